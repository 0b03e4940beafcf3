#include "explorer/DemoCheckpoint.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QStandardPaths>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "common/JsonFields.h"
#include "common/JsonText.h"

// Q_INIT_RESOURCE must run at global scope: streetgan_ui is a static library, whose resource
// initialiser the linker would otherwise drop.
static void initDemoResource() { Q_INIT_RESOURCE(demo); }

namespace streetgan::ui {
namespace {

QByteArray resource(const QString& name) {
    QFile f(":/streetgan/demo/" + name);
    if (!f.open(QIODevice::ReadOnly))
        throw DataError("embedded demo file '" + name.toStdString() + "' is missing from this build; rebuild streetgan_ui with resources/demo.qrc");
    return f.readAll();
}

QString hexSha256(const QByteArray& bytes) { return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()); }

void writeIfDifferent(const QString& path, const QByteArray& bytes) {
    QFile existing(path);
    if (existing.open(QIODevice::ReadOnly) && existing.size() == bytes.size() && existing.readAll() == bytes) return;
    AtomicFile::write(path.toStdString(), bytes.constData(), static_cast<size_t>(bytes.size()));
}

}  // namespace

QString DemoCheckpoint::folder() { return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/demo"; }

QString DemoCheckpoint::sha256(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData(&f);
    return QString::fromLatin1(h.result().toHex());
}

QString DemoCheckpoint::install() {
    static const bool registered = (initDemoResource(), true);  // once: each call would register it again
    (void)registered;
    const QByteArray walk = resource("walk.json");
    const QByteArray checkpoint = resource(kCheckpointFile);
    const QString expected = JsonFields::text(JsonText::parse(walk).value_or(nlohmann::json()), "checkpoint_sha256").toLower();
    const QString actual = hexSha256(checkpoint);
    if (expected.isEmpty() || expected != actual)
        throw DataError("embedded demo checkpoint has sha256 " + actual.left(12).toStdString() + "... but walk.json expects " +
                        expected.left(12).toStdString() + "...; rebuild streetgan_ui from a clean checkout");
    const QString dir = folder();
    if (!QDir().mkpath(dir)) throw IoError("cannot create the demo folder '" + dir.toStdString() + "'; make its parent writable or set XDG_DATA_HOME");
    // The checkpoint first: the session is only ever next to a complete, verified checkpoint.
    writeIfDifferent(dir + "/" + kCheckpointFile, checkpoint);
    writeIfDifferent(dir + "/walk.json", walk);
    return dir + "/walk.json";
}

}  // namespace streetgan::ui
