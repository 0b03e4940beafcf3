// SpotNoticeWatch: the EC2 spot interruption notice, watched on a thread of its own. EC2 gives a
// spot instance two minutes' warning before it stops or terminates it, as the instance metadata
// document meta-data/spot/instance-action ({"action": "terminate", "time": "..."}; 404 until
// then); it may also send SIGTERM, but only shortly before the end, so the trainer watches the
// notice to checkpoint early in the warning. The thread first asks the metadata service for a
// session token (ImdsClient, IMDSv2); when none answers (not on EC2) it ends at once and nothing
// more happens. Otherwise it polls every `interval` and calls `onNotice` once, with the action and
// its time, when the notice appears.
//
// Thread contract: construct and destroy on one thread; `onNotice` runs on the watch's thread and
// must be quick (destruction waits for a call in progress; it must not destroy the watch). The
// thread is detached: destruction never waits for a metadata request in flight (off EC2 a probe
// may take the connect timeout); once destroyed, `onNotice` is not called.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace streetgan::s3 {

class SpotNoticeWatch {
public:
    struct Notice {
        std::string action;  ///< "terminate", "stop" or "hibernate"; "" when the document did not say
        std::string time;    ///< when EC2 acts, as the document writes it (UTC, ISO 8601)
        std::string document;
    };
    using OnNotice = std::function<void(const Notice& notice)>;
    static constexpr std::chrono::seconds kInterval{5};  ///< AWS's advice: poll every 5 s

    /// `endpoint`: the metadata service's (ImdsClient::endpointFor; "" watches nothing).
    SpotNoticeWatch(const std::string& endpoint, std::chrono::milliseconds interval, OnNotice onNotice);
    ~SpotNoticeWatch();
    SpotNoticeWatch(const SpotNoticeWatch&) = delete;
    SpotNoticeWatch& operator=(const SpotNoticeWatch&) = delete;

    /// The notice document's fields; a document that is not such JSON gives only `document`.
    static Notice parse(const std::string& document);

private:
    struct State;
    std::shared_ptr<State> state_;
};

}  // namespace streetgan::s3
