#include "runs/LocalRunStarter.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThread>

#include "base/launch/LaunchError.h"
#include "base/launch/LocalRunLauncher.h"
#include "common/TrainerLocator.h"

namespace streetgan::ui {

LocalRunStarter::LocalRunStarter(QObject* parent) : QObject(parent) {}

QString LocalRunStarter::program() { return TrainerLocator::trainer(); }

void LocalRunStarter::start(const QStringList& args) {
    std::vector<std::string> words;
    for (const QString& a : args) words.push_back(a.toStdString());
    QPointer<LocalRunStarter> self(this);
    // The thread owns copies of all it uses and reports through the application object, which
    // outlives the starter (CheckpointBrowserPage's rule).
    QThread* t = QThread::create([trainer = program().toStdString(), words, self] {
        QString runDir, message;
        bool notRun = false;
        try {
            runDir = QString::fromStdString(LocalRunLauncher(trainer).start(words));
        } catch (const LaunchError& e) {
            // The trainer's own line under the app's heading; without one, the launcher's line.
            notRun = e.notRun();
            message = QString::fromStdString(e.trainerMessage().empty() ? e.what() : e.trainerMessage());
        } catch (const std::exception& e) {  // no process could be made (IoError)
            message = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(qApp, [self, runDir, message, notRun] {
            if (!self) return;
            if (message.isEmpty())
                emit self->started(runDir);
            else
                emit self->failed(message, notRun);
        });
    });
    connect(t, &QThread::finished, t, &QObject::deleteLater);
    t->start();
}

}  // namespace streetgan::ui
