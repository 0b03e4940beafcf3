#include "common/RenderClient.h"

#include <algorithm>
#include <utility>

#include <QTimer>

#include "common/JsonText.h"
#include "common/TrainerLocator.h"

namespace streetgan::ui {

namespace {

using nlohmann::json;

json failure(qint64 id, const QString& error) { return json{{"id", id}, {"ok", false}, {"error", error}}; }

}  // namespace

RenderClient::RenderClient(const QString& device, QObject* parent) : QObject(parent), device_(device) {}

RenderClient::~RenderClient() {
    if (!process_) return;
    process_->disconnect(this);  // no failure signals while being destroyed
    if (process_->state() != QProcess::NotRunning) {
        process_->write("{\"id\":0,\"op\":\"quit\"}\n");
        process_->closeWriteChannel();
        if (!process_->waitForFinished(1000)) {
            process_->kill();
            process_->waitForFinished(1000);
        }
    }
}

bool RenderClient::isRunning() const { return process_ && process_->state() != QProcess::NotRunning; }

int RenderClient::outstanding() const { return static_cast<int>(inFlight_.size() + channelWaiting_.size()); }

void RenderClient::ensureStarted() {
    if (process_) return;
    auto* p = new QProcess(this);
    process_ = p;
    buffer_.clear();
    pendingBytes_ = -1;
    pendingHeader_ = nullptr;
    stderrTail_.clear();
    const QString program = TrainerLocator::trainer();
    connect(p, &QProcess::readyReadStandardOutput, this, [this, p] {
        if (p == process_) readReplies();
    });
    connect(p, &QProcess::readyReadStandardError, this, [this, p] {
        if (p != process_) return;
        stderrTail_ += p->readAllStandardError();
        if (stderrTail_.size() > 4096) stderrTail_ = stderrTail_.right(4096);
    });
    connect(p, &QProcess::errorOccurred, this, [this, p, program](QProcess::ProcessError e) {
        // A crash also emits finished(), which reports it; only a failed start ends here.
        if (e == QProcess::FailedToStart) workerDied(p, tr("Cannot start the explore worker %1: %2").arg(program, p->errorString()));
    });
    connect(p, &QProcess::finished, this, [this, p](int code, QProcess::ExitStatus status) {
        if (p != process_) return;
        readReplies();  // replies that arrived just before the exit still count
        if (p != process_) return;
        stderrTail_ += p->readAllStandardError();
        QString why = status == QProcess::CrashExit ? tr("The explore worker crashed") : tr("The explore worker exited with code %1").arg(code);
        const QList<QByteArray> lines = stderrTail_.trimmed().split('\n');
        if (!lines.isEmpty() && !lines.last().isEmpty()) why += ": " + QString::fromUtf8(lines.last());
        workerDied(p, why);
    });
    p->start(program, {QStringLiteral("explore-worker"), QStringLiteral("--device"), device_});
}

void RenderClient::write(const json& request) {
    ensureStarted();
    if (process_) process_->write(JsonText::write(request, JsonText::Format::Compact) + '\n');
}

qint64 RenderClient::send(json request) {
    const qint64 id = nextId_++;
    request["id"] = id;
    inFlight_.insert(id, QString());
    write(request);
    return id;
}

qint64 RenderClient::latest(const QString& channel, json request) {
    if (!channelBusy_.contains(channel)) {
        const qint64 id = nextId_++;
        request["id"] = id;
        inFlight_.insert(id, channel);
        channelBusy_.insert(channel, id);
        write(request);
        return id;
    }
    const qint64 id = nextId_++;
    request["id"] = id;
    if (channelWaiting_.contains(channel)) {
        const qint64 old = channelWaiting_.take(channel).first;
        json h = failure(old, QStringLiteral("superseded"));
        h["superseded"] = true;
        emit finished(old, h, {});
    }
    channelWaiting_.insert(channel, {id, request});
    return id;
}

void RenderClient::cancel(qint64 id) {
    for (auto it = channelWaiting_.begin(); it != channelWaiting_.end(); ++it) {
        if (it.value().first != id) continue;
        channelWaiting_.erase(it);
        json h = failure(id, QStringLiteral("cancelled"));
        h["cancelled"] = true;
        emit finished(id, h, {});
        return;
    }
    if (!inFlight_.contains(id) || !process_) return;
    const qint64 cid = nextId_++;
    internal_.insert(cid);
    write(json{{"id", cid}, {"op", "cancel"}, {"target", id}});
}

qint64 RenderClient::open(const QString& checkpoint) { return send(json{{"op", "open"}, {"checkpoint", checkpoint}}); }

qint64 RenderClient::exportSession(const QString& checkpoint, const json& session, const QString& out) {
    return send(json{{"op", "export"}, {"checkpoint", checkpoint}, {"session", session}, {"out", out}});
}

void RenderClient::readReplies() {
    QProcess* p = process_;
    buffer_ += p->readAllStandardOutput();
    qsizetype pos = 0;  // consumed prefix; removed once at the end (no quadratic copying)
    while (process_ == p) {
        if (pendingBytes_ >= 0) {
            if (buffer_.size() - pos < pendingBytes_) break;
            const QByteArray payload = buffer_.mid(pos, pendingBytes_);
            pos += pendingBytes_;
            pendingBytes_ = -1;
            deliver(std::exchange(pendingHeader_, nullptr), payload);
            continue;
        }
        const qsizetype nl = buffer_.indexOf('\n', pos);
        if (nl < 0) break;
        const QByteArray line = buffer_.mid(pos, nl - pos);
        pos = nl + 1;
        QString err;
        std::optional<json> h = JsonText::parse(line, &err);
        if (!h || !h->is_object()) {
            // Not the protocol: nothing after this can be trusted, so the worker is dropped.
            p->disconnect(this);
            p->kill();
            workerDied(p, tr("The explore worker sent an unreadable reply (%1); it was stopped").arg(h ? tr("not an object") : err));
            return;
        }
        const qint64 bytes = JsonFields::integer(*h, "bytes", 0);
        if (bytes > 0) {
            pendingHeader_ = std::move(*h);
            pendingBytes_ = bytes;
        } else {
            deliver(*h, {});
        }
    }
    if (process_ == p) buffer_.remove(0, pos);
}

void RenderClient::deliver(const json& header, const QByteArray& payload) {
    const qint64 id = JsonFields::integer(header, "id", -1);
    if (header.contains("progress")) {
        const json& pr = header.at("progress");
        const auto step = [&](size_t i) { return pr.is_array() && pr.size() > i ? JsonFields::asInteger(pr[i]) : qint64(0); };
        if (inFlight_.contains(id)) emit progress(id, step(0), step(1));
        return;
    }
    if (internal_.remove(id)) return;
    if (!inFlight_.contains(id)) return;  // id -1: the worker could not read a line we sent (a bug); nothing waits for it
    const QString channel = inFlight_.take(id);
    if (!channel.isEmpty() && channelBusy_.value(channel, -1) == id) {
        channelBusy_.remove(channel);
        startWaiting(channel);  // keep the worker busy before the receiver handles this reply
    }
    emit finished(id, header, payload);
}

void RenderClient::startWaiting(const QString& channel) {
    if (!channelWaiting_.contains(channel)) return;
    const auto [id, request] = channelWaiting_.take(channel);
    inFlight_.insert(id, channel);
    channelBusy_.insert(channel, id);
    write(request);
}

void RenderClient::workerDied(QProcess* p, const QString& message) {
    if (p != process_) return;
    p->disconnect(this);
    if (p->state() != QProcess::NotRunning) p->kill();
    p->deleteLater();
    process_ = nullptr;  // the next request starts a fresh worker
    failAll(message);
}

void RenderClient::failAll(const QString& message) {
    QList<qint64> ids = inFlight_.keys();
    for (const auto& w : std::as_const(channelWaiting_)) ids.append(w.first);
    std::sort(ids.begin(), ids.end());
    inFlight_.clear();
    channelBusy_.clear();
    channelWaiting_.clear();
    internal_.clear();
    buffer_.clear();
    pendingBytes_ = -1;
    pendingHeader_ = nullptr;
    // Emitted from the event loop: this may run inside send() (a worker that fails to start),
    // before the caller knows the id it is about to get.
    QTimer::singleShot(0, this, [this, ids, message] {
        for (qint64 id : ids) emit finished(id, failure(id, message), {});
        emit workerFailed(message);
    });
}

QList<QImage> RenderClient::images(const json& header, const QByteArray& payload) {
    const qint64 n = JsonFields::integer(header, "frames"), w = JsonFields::integer(header, "width"), h = JsonFields::integer(header, "height");
    const qint64 frameBytes = w * h * 3;
    QList<QImage> out;
    if (n <= 0 || w <= 0 || h <= 0 || payload.size() != n * frameBytes) return out;
    for (qint64 i = 0; i < n; ++i) {
        const auto* data = reinterpret_cast<const uchar*>(payload.constData() + i * frameBytes);
        out.append(QImage(data, static_cast<int>(w), static_cast<int>(h), static_cast<qsizetype>(w * 3), QImage::Format_RGB888).copy());
    }
    return out;
}

}  // namespace streetgan::ui
