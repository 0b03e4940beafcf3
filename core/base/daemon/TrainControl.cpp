#include "base/daemon/TrainControl.h"

#include <algorithm>
#include <cmath>

#include "base/run/TrainConfig.h"

namespace streetgan {
namespace {

/// At most `n` bytes of the valid UTF-8 `s`, cut before a character rather than inside one: the
/// reply quotes the command, and a cut character would make ControlServer's JSON dump throw.
std::string utf8Prefix(const std::string& s, size_t n) {
    if (s.size() <= n) return s;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // s[n] continues a character
    return s.substr(0, n);
}

}  // namespace

const std::vector<std::string>& TrainControl::commands() {
    static const std::vector<std::string> names = {"pause", "resume", "stop", "checkpoint-now", "sample-now", "set-lr"};
    return names;
}

nlohmann::json TrainControl::reject(ControlRequest r, const std::string& why) {
    r.rejected = why;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(r);
    }
    cv_.notify_all();
    return nlohmann::json{{"ok", false}, {"error", why}};
}

nlohmann::json TrainControl::submit(const nlohmann::json& request) {
    ControlRequest r;
    r.raw = request;
    auto refuse = [&](const std::string& why) { return reject(r, why); };
    std::string expected;
    for (const auto& c : commands()) expected += (expected.empty() ? "" : ", ") + c;
    if (!request.is_object() || !request.contains("cmd") || !request.at("cmd").is_string())
        return refuse("malformed control command: expected {\"cmd\": NAME} with NAME one of " + expected);
    r.cmd = request.at("cmd").get<std::string>();
    const auto& names = commands();
    if (std::find(names.begin(), names.end(), r.cmd) == names.end())
        return refuse("unknown control command '" + utf8Prefix(r.cmd, 64) + "': expected one of " + expected);
    if (r.cmd == "set-lr") {
        if (!request.contains("value") || !request.at("value").is_number())
            return refuse("set-lr needs a numeric \"value\" (the new learning rate, e.g. 0.0001)");
        r.value = request.at("value").get<double>();
        if (!std::isfinite(r.value) || r.value < TrainConfig::kLrMin || r.value > TrainConfig::kLrMax)
            return refuse("set-lr value " + request.at("value").dump() + " is out of range: use a learning rate in [1e-08, 10]");
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(r);
    }
    cv_.notify_all();
    nlohmann::json reply = {{"ok", true}, {"cmd", r.cmd}};
    if (r.cmd == "set-lr") reply["value"] = r.value;
    return reply;
}

nlohmann::json TrainControl::submitLine(const std::string& line) {
    nlohmann::json j;
    // The keys seen in each object being parsed, innermost last; the first key met twice.
    std::vector<std::vector<std::string>> keys;
    std::string duplicate;
    const auto noteKeys = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using E = nlohmann::json::parse_event_t;
        if (event == E::object_start) {
            keys.emplace_back();
        } else if (event == E::object_end && !keys.empty()) {
            keys.pop_back();
        } else if (event == E::key && !keys.empty() && parsed.is_string()) {
            const auto& k = parsed.get_ref<const std::string&>();
            if (duplicate.empty() && std::find(keys.back().begin(), keys.back().end(), k) != keys.back().end()) duplicate = k;
            keys.back().push_back(k);
        }
        return true;
    };
    try {
        j = nlohmann::json::parse(line, noteKeys);
    } catch (const nlohmann::json::exception&) {
        return submit(nlohmann::json(line.substr(0, 200)));  // refused as malformed, with the text
    }
    if (!duplicate.empty()) {
        ControlRequest r;
        r.raw = nlohmann::json(line.substr(0, 200));
        return reject(r, "the key '" + utf8Prefix(duplicate, 64) + "' appears twice in one control command: send each key once, e.g. {\"cmd\": \"pause\"}");
    }
    return submit(j);
}

std::vector<ControlRequest> TrainControl::take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<ControlRequest> out(queue_.begin(), queue_.end());
    queue_.clear();
    return out;
}

void TrainControl::waitForCommand(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait_for(lock, timeout, [&] { return !queue_.empty(); });
}

}  // namespace streetgan
