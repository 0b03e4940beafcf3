// What the app knows of the streetgan-trainer on a remote host (RemoteTrainerSetup's probe, in Qt
// types, for signals between the host worker and the GUI). A value type; any thread.
#pragma once

#include <QMetaType>
#include <QString>

#include "base/remote/RemoteTrainerSetup.h"

namespace streetgan::ui {

struct TrainerStatus {
    enum State { Unknown = -1, Missing = 0, Incompatible = 1, Ready = 2 };
    int state = Unknown;
    QString summary;  ///< "streetgan-trainer V (protocol 1)", "not installed", "incompatible (protocol 0)"
    QString version;  ///< empty when missing
    int protocol = -1;
    QString trainer;   ///< the trainer found (path or command)
    QString mismatch;  ///< Incompatible: the one line to show (RemoteTrainerSetup::protocolMismatch)
    QString osName;
    bool debian12 = false;
    bool hasConda = false;

    bool needsSetup() const { return state == Missing || state == Incompatible; }
    static TrainerStatus fromProbe(const TrainerProbe& p, const QString& host) {
        TrainerStatus s;
        s.state = p.state == TrainerProbe::State::Ready ? Ready : p.state == TrainerProbe::State::Incompatible ? Incompatible : Missing;
        s.summary = QString::fromStdString(p.summary());
        s.version = QString::fromStdString(p.version);
        s.protocol = p.protocol;
        s.trainer = QString::fromStdString(p.trainer);
        if (s.state == Incompatible) s.mismatch = QString::fromStdString(RemoteTrainerSetup::protocolMismatch(host.toStdString(), p.version, p.protocol));
        s.osName = QString::fromStdString(p.osName);
        s.debian12 = p.isDebian12();
        s.hasConda = p.hasConda;
        return s;
    }
};

}  // namespace streetgan::ui

Q_DECLARE_METATYPE(streetgan::ui::TrainerStatus)
