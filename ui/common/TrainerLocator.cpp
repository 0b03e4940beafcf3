#include "common/TrainerLocator.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStandardPaths>

namespace streetgan::ui {

QString TrainerLocator::trainer() {
    const QString env = qEnvironmentVariable("STREETGAN_TRAINER");
    if (!env.isEmpty()) return env;
    const QString beside = QCoreApplication::applicationDirPath() + "/streetgan-trainer";
    if (QFileInfo(beside).isExecutable()) return beside;
    const QString onPath = QStandardPaths::findExecutable("streetgan-trainer");
    return onPath.isEmpty() ? QString("streetgan-trainer") : onPath;
}

}  // namespace streetgan::ui
