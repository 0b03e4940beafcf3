#include "explorer/WorkerRequests.h"

#include "common/JsonFields.h"
#include "common/RenderClient.h"

namespace streetgan::ui {

WorkerRequests::WorkerRequests(RenderClient* client, QObject* parent) : QObject(parent), client_(client) {
    connect(client_, &RenderClient::finished, this, &WorkerRequests::onFinished);
}

qint64 WorkerRequests::send(const nlohmann::json& request, Reply reply) {
    const qint64 id = client_->send(request);
    replies_.emplace(id, std::move(reply));
    return id;
}

qint64 WorkerRequests::latest(const QString& channel, const nlohmann::json& request, Reply reply) {
    const qint64 id = client_->latest(channel, request);
    replies_.emplace(id, std::move(reply));
    return id;
}

void WorkerRequests::onFinished(qint64 id, const nlohmann::json& header, const QByteArray& payload) {
    auto it = replies_.find(id);
    if (it == replies_.end()) return;
    const Reply reply = std::move(it.value());
    replies_.erase(it);
    if (JsonFields::flag(header, "superseded") || JsonFields::text(header, "error").contains("superseded")) return;
    reply(header, payload);
}

}  // namespace streetgan::ui
