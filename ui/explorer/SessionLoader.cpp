#include "explorer/SessionLoader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <optional>

#include "base/util/Errors.h"
#include "common/JsonFields.h"
#include "common/JsonText.h"
#include "explorer/DemoCheckpoint.h"
#include "explorer/WorkerRequests.h"

namespace streetgan::ui {
namespace {

using nlohmann::json;
using F = JsonFields;

QString shortHash(const QString& sha) { return sha.left(12) + "…"; }

}  // namespace

SessionLoader::SessionLoader(RenderClient* client, QObject* parent) : QObject(parent), worker_(new WorkerRequests(client, this)) {}

void SessionLoader::openCheckpoint(const QString& checkpoint) {
    const QFileInfo info(checkpoint);
    if (!info.isFile()) {
        emit failed(tr("Checkpoint %1 does not exist; choose a .pt file").arg(checkpoint));
        return;
    }
    load(info.absoluteFilePath(), nullptr, {}, false);
}

void SessionLoader::openSession(const QString& path, const QString& current, bool play) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        emit failed(tr("Session %1 cannot be read (%2); choose another file").arg(path, f.errorString()));
        return;
    }
    QString parseError;
    std::optional<json> parsed = JsonText::parse(f.readAll(), &parseError);
    if (!parsed || !parsed->is_object()) {
        emit failed(
            tr("Session %1 is not a JSON object (%2); choose a session file of docs/cli.md's format").arg(path, parsed ? tr("not an object") : parseError));
        return;
    }
    json session = std::move(*parsed);
    QString ck = F::text(session, "checkpoint");
    if (ck.isEmpty()) {
        if (current.isEmpty()) {
            emit failed(tr("Session %1 names no checkpoint; open a checkpoint first, then the session").arg(path));
            return;
        }
        ck = current;  // like render --checkpoint: the open checkpoint renders a session that names none
    } else if (QFileInfo(ck).isRelative()) {
        ck = QFileInfo(path).absoluteDir().filePath(ck);  // docs/cli.md: relative to the session file's folder
    }
    ck = QDir::cleanPath(QFileInfo(ck).absoluteFilePath());
    if (!QFileInfo(ck).isFile()) {
        emit failed(tr("Session %1 names checkpoint %2, which does not exist; open that checkpoint, then the session").arg(path, ck));
        return;
    }
    // The page keeps the checkpoint as an absolute path, so a session saved elsewhere still finds it.
    session["checkpoint"] = ck;
    load(ck, std::move(session), QFileInfo(path).absoluteFilePath(), play);
}

void SessionLoader::openDemo(const QString& current, bool play) {
    QString walk;
    try {
        walk = DemoCheckpoint::install();
    } catch (const Error& e) {
        emit failed(tr("Demo: %1").arg(QString::fromStdString(e.what())));
        return;
    }
    openSession(walk, current, play);
}

void SessionLoader::load(const QString& checkpoint, json session, const QString& sessionPath, bool play) {
    const quint64 serial = ++serial_;
    emit statusMessage(tr("Opening %1…").arg(QFileInfo(checkpoint).fileName()));
    worker_->send({{"op", "open"}, {"checkpoint", checkpoint}}, [=](const json& info, const QByteArray&) mutable {
        if (serial != serial_) return;  // another open started meanwhile
        if (!F::flag(info, "ok")) {
            emit failed(F::text(info, "error"));
            return;
        }
        const QString sha = F::text(info, "sha256");
        if (session.is_null()) {
            // A new session: three seed keyframes; the worker fills every other default.
            session = {{"checkpoint", checkpoint}, {"keyframes", json::array({{{"seed", 0}}, {{"seed", 1}}, {{"seed", 2}}})}};
        } else {
            const QString expected = F::text(session, "checkpoint_sha256").toLower();
            if (!expected.isEmpty() && expected != sha) {
                const QString warning = tr("Session %1 was made with another checkpoint (sha256 %2), not %3 (sha256 %4): its frames will differ.")
                                            .arg(QFileInfo(sessionPath).fileName(), shortHash(expected), QFileInfo(checkpoint).fileName(), shortHash(sha));
                if (confirm_ && !confirm_(warning)) {
                    emit statusMessage(tr("Kept the open session; %1 was not opened").arg(sessionPath));
                    return;
                }
            }
        }
        session["checkpoint_sha256"] = sha;
        worker_->send({{"op", "session"}, {"session", session}}, [=](const json& h, const QByteArray&) {
            if (serial != serial_) return;
            Opened opened{{}, checkpoint, info, sessionPath, play};
            QString error = F::flag(h, "ok") ? QString() : F::text(h, "error");
            if (error.isEmpty()) {
                try {
                    opened.session = LatentSession::fromJson(F::at(h, "session"));  // the worker's validated session
                } catch (const Error& e) {
                    error = QString::fromStdString(e.what());
                }
            }
            if (!error.isEmpty()) {
                emit failed(sessionPath.isEmpty() ? error : tr("Session %1: %2").arg(sessionPath, error));
                return;
            }
            emit loaded(opened);
            // Warm the PCA cache now, behind the first frame, so the first direction slider moves at once.
            const LatentSession& s = opened.session;
            worker_->send({{"op", "pca"}, {"checkpoint", checkpoint}, {"components", s.pcaComponents}, {"samples", s.pcaSamples}, {"seed", s.pcaSeed}},
                          [this](const json& r, const QByteArray&) {
                              if (!F::flag(r, "ok")) emit failed(tr("PCA directions: %1").arg(F::text(r, "error")));
                          });
        });
    });
}

}  // namespace streetgan::ui
