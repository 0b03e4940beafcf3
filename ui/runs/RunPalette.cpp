#include "runs/RunPalette.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QVariantMap>

namespace streetgan::ui {

namespace {
constexpr char kColours[] = "runs/colours";
constexpr char kNext[] = "runs/nextColour";
constexpr int kRemembered = 512;  // colours kept; past that the map starts again (a few KB)
}  // namespace

QString RunPalette::key(const QString& host, const QString& runDir) {
    if (host.isEmpty()) return QDir::cleanPath(QFileInfo(runDir).absoluteFilePath());
    // Cleaned, so that "root/./x" and "root/x" (a listing and a start's output) are one run.
    return host + ":" + QDir::cleanPath(runDir);
}

const QVector<QColor>& RunPalette::palette() {
    // Tableau 10: distinct hues that stay legible on white at 1.5 px.
    static const QVector<QColor> colours = {QColor(31, 119, 180), QColor(255, 127, 14),  QColor(44, 160, 44),   QColor(214, 39, 40),  QColor(148, 103, 189),
                                            QColor(140, 86, 75),  QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34), QColor(23, 190, 207)};
    return colours;
}

QColor RunPalette::colour(const QString& runKey) {
    QSettings settings;
    QVariantMap map = settings.value(kColours).toMap();
    const auto& p = palette();
    if (auto it = map.constFind(runKey); it != map.constEnd()) return p[std::abs(it.value().toInt()) % p.size()];
    const int next = settings.value(kNext, 0).toInt();
    if (map.size() >= kRemembered) map.clear();
    map.insert(runKey, next % p.size());
    settings.setValue(kColours, map);
    settings.setValue(kNext, (next + 1) % p.size());
    return p[next % p.size()];
}

QColor RunPalette::shade(const QColor& c, int metricIndex) {
    switch (metricIndex % 3) {
        case 0:
            return c;
        case 1:
            return c.darker(165);
        default:
            return c.lighter(135);
    }
}

}  // namespace streetgan::ui
