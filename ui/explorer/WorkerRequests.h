// Requests to the explore worker with a handler per request, over a RenderClient that several
// panels share (ExplorerPage, WalkPreview, SessionLoader each have their own WorkerRequests on the
// page's client): send() and latest() take the handler of that request's final reply; replies to
// other requests (another panel's, a SeedGridDialog's) are not this object's, and a reply that
// says "superseded" (RenderClient::latest replaced the request) is dropped without a call.
//
// Thread contract: GUI thread; the RenderClient must outlive this object.
#pragma once

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <functional>

#include <nlohmann/json.hpp>

namespace streetgan::ui {

class RenderClient;

class WorkerRequests : public QObject {
    Q_OBJECT
public:
    using Reply = std::function<void(const nlohmann::json& header, const QByteArray& payload)>;

    WorkerRequests(RenderClient* client, QObject* parent);

    qint64 send(const nlohmann::json& request, Reply reply);
    /// RenderClient::latest: at most one request of `channel` in flight.
    qint64 latest(const QString& channel, const nlohmann::json& request, Reply reply);
    RenderClient* client() const { return client_; }

private:
    void onFinished(qint64 id, const nlohmann::json& header, const QByteArray& payload);

    RenderClient* client_;
    QHash<qint64, Reply> replies_;
};

}  // namespace streetgan::ui
