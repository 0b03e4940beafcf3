#include "base/remote/RemoteAttach.h"

#include "base/follow/AttachFollower.h"

#include <chrono>
#include <cmath>
#include <set>

#include "base/remote/RemoteError.h"
#include "base/remote/SftpClient.h"
#include "base/remote/SftpEventFiles.h"
#include "base/remote/ShellQuote.h"
#include "base/remote/SshSession.h"
#include "base/run/Events.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {
double steadyNow() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
double wallNow() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

std::string lastLine(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    const size_t nl = s.find_last_of('\n');
    return nl == std::string::npos ? s : s.substr(nl + 1);
}
}  // namespace

RemoteAttach::RemoteAttach(SshOptions ssh, AttachOptions options) : ssh_(std::move(ssh)), options_(std::move(options)), offset_(options_.fromOffset) {}

RemoteAttach::~RemoteAttach() = default;

AttachMessage RemoteAttach::parseLine(const std::string& line) {
    AttachMessage m;
    m.line = line;
    m.receivedAt = wallNow();
    // One reader per thread: it keeps its buffers from line to line (parseLine is static).
    thread_local EventReader reader;
    ParsedAttachLine parsed = reader.readAttach(line);
    if (parsed.status == LineStatus::NotProtocol) throw RemoteError("unknown attach line: " + line.substr(0, 200));
    if (!parsed.ok()) throw RemoteError("not an attach protocol line: " + line.substr(0, 200));
    AttachLine& a = parsed.line;
    auto required = [&](const std::optional<uint64_t>& v, const char* key) -> uint64_t {
        if (!v) throw RemoteError(std::string("attach line without a valid \"") + key + "\": " + line.substr(0, 200));
        return *v;
    };
    switch (a.type) {
        case AttachLine::Type::Event:
            m.kind = AttachMessage::Kind::Event;
            m.offset = required(a.offset, EventField::kOffset);
            m.end = required(a.end, EventField::kEnd);
            m.body = toJson(a.event);  // the event as sent: the schema keeps members it does not name
            break;
        case AttachLine::Type::Reply:
            m.kind = AttachMessage::Kind::Reply;
            m.body = std::move(a.reply);
            break;
        case AttachLine::Type::Live:
            m.kind = AttachMessage::Kind::Live;
            m.offset = required(a.offset, EventField::kOffset);
            m.state = a.state;
            m.body = attachLiveJson(m.offset, m.state);
            break;
        case AttachLine::Type::End:
            m.kind = AttachMessage::Kind::End;
            m.offset = required(a.offset, EventField::kOffset);
            m.state = a.state;
            m.body = attachEndJson(m.offset, m.state);
            break;
    }
    return m;
}

void RemoteAttach::sendCommand(const nlohmann::json& command) {
    std::lock_guard<std::mutex> lock(mutex_);
    commands_.push_back(command.dump());
}

void RemoteAttach::stop() {
    stop_.store(true);
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
}

bool RemoteAttach::waitBackoff(double seconds) {
    double until = steadyNow() + seconds;
    if (deadline_ > 0) until = std::min(until, deadline_);
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_.load() && steadyNow() < until) wake_.wait_for(lock, std::chrono::duration<double>(std::max(0.0, until - steadyNow())));
    return !stop_.load() && (deadline_ == 0 || steadyNow() < deadline_);
}

std::optional<RemoteAttach::Outcome> RemoteAttach::turn(SshSession& session) {
    if (stop_.load()) return Outcome::Stopped;
    if (deadline_ > 0 && steadyNow() >= deadline_) return Outcome::TimeUp;
    if (dropRequested_.exchange(false)) session.dropConnection();
    return std::nullopt;
}

RemoteAttach::Outcome RemoteAttach::followOverSftp(SshSession& session, const MessageCallback& onMessage, std::string& why) {
    try {
        SftpClient sftp(session);
        SftpEventFiles files(sftp);
        if (!TensorBoardRun::eventFiles(files.list(options_.run)).size())
            throw RemoteError(options_.remoteTrainer + " is not installed on " + session.label() + " and " + options_.run +
                              " holds no TensorBoard event file to follow over SFTP: set the trainer up there (or name it with --remote-trainer PATH)");
        // The lines `attach` would print there (AttachFollower), read over SFTP.
        AttachFollower follower(files, options_.run, static_cast<int64_t>(offset_.load()));
        std::vector<nlohmann::json> lines;
        for (;;) {
            if (const auto o = turn(session)) return *o;
            {
                std::deque<std::string> pending;
                {
                    std::lock_guard<std::mutex> lock(mutex_);
                    pending.swap(commands_);
                }
                for (size_t k = 0; k < pending.size(); ++k)
                    onMessage(parseLine(attachReplyJson({{"ok", false}, {"error", "a TensorBoard run followed over SFTP takes no commands"}}).dump()));
            }
            lines.clear();
            const bool more = follower.poll(lines);
            for (const auto& j : lines) {
                const AttachMessage m = parseLine(j.dump());
                if (m.kind == AttachMessage::Kind::Event && m.end <= offset_.load()) continue;
                progressed_ = true;
                onMessage(m);
                if (m.kind == AttachMessage::Kind::Event) offset_.store(m.end);
                if (m.kind == AttachMessage::Kind::Live && m.offset > offset_.load()) offset_.store(m.offset);
            }
            if (more) continue;
            // SFTP cannot wait for a change: look again in a quarter of a second (stop wakes it).
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait_for(lock, std::chrono::milliseconds(250), [&] { return stop_.load(); });
        }
    } catch (const ConnectionLostError& e) {
        why = e.what();
        return Outcome::Dropped;
    } catch (const IoError& e) {
        throw RemoteError(std::string(e.what()) + " (on " + session.label() + ", over SFTP)");
    } catch (const ConfigError& e) {
        throw RemoteError(std::string(e.what()) + " (on " + session.label() + ")");
    }
}

RemoteAttach::Outcome RemoteAttach::attachOnce(SshSession& session, const MessageCallback& onMessage, std::string& why) {
    if (overSftp_) return followOverSftp(session, onMessage, why);
    const std::string command = ShellQuote::join({options_.remoteTrainer, "attach", options_.run, "--from-offset", std::to_string(offset_.load())});
    std::unique_ptr<SshChannel> ch;
    try {
        ch = session.openExec(command);
    } catch (const ConnectionLostError& e) {
        why = e.what();
        return Outcome::Dropped;
    }
    std::string buffer;
    std::deque<std::string> sent;  // commands written to this attach (a missing trainer never read them)
    double lastTraffic = steadyNow();
    const int keepalive = ssh_.keepaliveSeconds;
    for (;;) {
        try {
            if (const auto o = turn(session)) return *o;
            std::deque<std::string> pending;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                pending.swap(commands_);
            }
            while (!pending.empty()) {
                try {
                    ch->write(pending.front() + "\n");
                } catch (...) {
                    std::lock_guard<std::mutex> lock(mutex_);  // not sent: keep for the next connection
                    commands_.insert(commands_.begin(), pending.begin(), pending.end());
                    throw;
                }
                sent.push_back(std::move(pending.front()));
                pending.pop_front();
            }
            const size_t n = ch->read(buffer, 50);
            if (n > 0) lastTraffic = steadyNow();
            size_t start = 0, nl;
            while ((nl = buffer.find('\n', start)) != std::string::npos) {
                std::string line = buffer.substr(start, nl - start);
                start = nl + 1;
                if (!line.empty() && line.back() == '\r') line.pop_back();
                if (line.empty()) continue;
                AttachMessage m;
                try {
                    m = parseLine(line);
                    progressed_ = true;
                } catch (const RemoteError&) {
                    continue;  // not protocol (a login banner, a warning): skip
                }
                switch (m.kind) {
                    case AttachMessage::Kind::Event:
                        if (m.end <= offset_.load()) continue;  // already delivered before a reconnect
                        onMessage(m);
                        offset_.store(m.end);
                        break;
                    case AttachMessage::Kind::Live:
                        if (m.offset > offset_.load()) offset_.store(m.offset);
                        onMessage(m);
                        break;
                    case AttachMessage::Kind::Reply:
                        onMessage(m);
                        break;
                    case AttachMessage::Kind::End:
                        if (m.offset > offset_.load()) offset_.store(m.offset);
                        onMessage(m);
                        return Outcome::Ended;
                }
            }
            buffer.erase(0, start);
            if (n == 0 && ch->atEof()) {
                const std::optional<int> status = ch->exitStatus(3000);
                if (status && *status == 0) return Outcome::Ended;  // ended without an end line (e.g. --seconds)
                if (status && *status == 127 && !progressed_) {     // the shell found no trainer there
                    overSftp_ = true;
                    {
                        std::lock_guard<std::mutex> lock(mutex_);  // answered by the SFTP follow
                        commands_.insert(commands_.begin(), sent.begin(), sent.end());
                    }
                    return followOverSftp(session, onMessage, why);
                }
                if (status)
                    throw RemoteError(options_.remoteTrainer + " attach " + options_.run + " on " + session.label() + " failed (exit " +
                                      std::to_string(*status) + "): " + lastLine(ch->stderrText()));
                why = "the remote attach ended without an exit status";
                return Outcome::Dropped;
            }
            if (keepalive > 0 && steadyNow() - lastTraffic > keepalive) {
                session.sendKeepalive();
                lastTraffic = steadyNow();
            }
        } catch (const ConnectionLostError& e) {
            why = e.what();
            return Outcome::Dropped;
        }
    }
}

void RemoteAttach::run(const MessageCallback& onMessage, const StatusCallback& onStatus) {
    auto status = [&](AttachStatus::State s, int attempt = 0, double delay = 0, const std::string& msg = {}) {
        if (onStatus) onStatus(AttachStatus{s, attempt, delay, msg});
    };
    // A key accepted once stays accepted for this attach's reconnects (same host, same key).
    SshOptions ssh = ssh_;
    auto acceptedOnce = std::make_shared<std::set<std::string>>();
    if (ssh_.onUnknownHostKey) {
        HostKeyCallback user = ssh_.onUnknownHostKey;
        ssh.onUnknownHostKey = [user, acceptedOnce](const HostKeyInfo& info) {
            const std::string key = info.host + " " + info.fingerprintSha256;
            if (acceptedOnce->count(key)) return HostKeyDecision::AcceptOnce;
            const HostKeyDecision d = user(info);
            if (d == HostKeyDecision::AcceptOnce) acceptedOnce->insert(key);
            return d;
        };
    }
    deadline_ = options_.seconds > 0 ? steadyNow() + options_.seconds : 0;
    int failures = 0;
    std::string why;
    for (;;) {
        if (stop_.load()) {
            status(AttachStatus::State::Stopped);
            return;
        }
        std::unique_ptr<SshSession> session;
        if (connections_.load() == 0) status(AttachStatus::State::Connecting);
        try {
            session = SshSession::connect(ssh);
        } catch (const HostKeyError&) {
            throw;
        } catch (const AuthError&) {
            throw;
        } catch (const RemoteError& e) {
            if (connections_.load() == 0) throw;  // never connected: report, do not retry
            why = e.what();
        }
        if (session) {
            ++connections_;
            status(AttachStatus::State::Attached);
            progressed_ = false;
            const Outcome o = attachOnce(*session, onMessage, why);
            if (o == Outcome::Ended) {
                status(AttachStatus::State::Ended);
                return;
            }
            if (o == Outcome::Stopped || o == Outcome::TimeUp) {
                status(AttachStatus::State::Stopped);
                return;
            }
            if (progressed_) failures = 0;  // it attached and got lines: a fresh series of retries
            session.reset();
        }
        ++failures;
        if (failures > options_.maxReconnects)
            throw ConnectionLostError("lost the connection and " + std::to_string(options_.maxReconnects) + " reconnects failed (" + why +
                                      "); attach again with --from-offset " + std::to_string(offset_.load()) + " to resume");
        const double delay = std::min(options_.maxBackoffSeconds, options_.initialBackoffSeconds * std::pow(2.0, failures - 1));
        status(AttachStatus::State::Reconnecting, failures, delay, why);
        if (!waitBackoff(delay)) {
            status(AttachStatus::State::Stopped);
            return;
        }
    }
}

}  // namespace streetgan
