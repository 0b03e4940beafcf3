#include "common/TrainerLocator.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStandardPaths>

namespace streetgan::ui {

QString TrainerLocator::trainer() {
    QString env = qEnvironmentVariable("STREETGAN_TRAINER");
    if (!env.isEmpty()) return env;
    QString beside = QCoreApplication::applicationDirPath() + "/streetgan-trainer";
    if (QFileInfo(beside).isExecutable()) return beside;
    const QString onPath = QStandardPaths::findExecutable("streetgan-trainer");
    return onPath.isEmpty() ? QString("streetgan-trainer") : onPath;
}

}  // namespace streetgan::ui
