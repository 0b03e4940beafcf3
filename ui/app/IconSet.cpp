#include "app/IconSet.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QPalette>

// Q_INIT_RESOURCE must run at global scope: streetgan_ui is a static library, whose resource
// initialiser the linker drops unless something refers to it.
static void initActionIcons() { Q_INIT_RESOURCE(actions); }

namespace streetgan::ui {

namespace {

bool paletteIsDark() { return QApplication::palette().color(QPalette::Window).lightness() < 128; }

}  // namespace

IconSet::IconSet(QObject* parent) : QObject(parent) { initActionIcons(); }

QStringList IconSet::names() {
    return {"document-new",  "document-open", "network-server",           "media-playback-pause", "media-playback-start",   "media-playback-stop",
            "document-save", "view-grid",     "utilities-system-monitor", "view-refresh",         "help-keyboard-shortcuts"};
}

QIcon IconSet::bundled(const QString& name, bool dark) {
    initActionIcons();
    const QString path = QStringLiteral(":/streetgan/actions/%1/%2.svg").arg(dark ? "dark" : "light", name);
    return QFile::exists(path) ? QIcon(path) : QIcon();
}

QIcon IconSet::icon(const QString& name) const {
    if (useTheme_ && QIcon::hasThemeIcon(name)) return QIcon::fromTheme(name);
    return bundled(name, paletteIsDark());
}

void IconSet::attach(QAction* action, const QString& name) {
    attached_.append({action, name});
    action->setIcon(icon(name));
}

void IconSet::setUseThemeIcons(bool on) {
    if (useTheme_ == on) return;
    useTheme_ = on;
    refresh();
}

void IconSet::refresh() {
    for (const auto& [action, name] : attached_)
        if (action) action->setIcon(icon(name));
}

}  // namespace streetgan::ui
