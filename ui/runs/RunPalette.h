// The colour of each run in the runs sidebar (its swatch) and in the dashboard's plots, and the
// key that names a run across both: a local run's absolute folder, "HOST:FOLDER" for a remote
// one. A run gets its colour the first time one is asked for, round-robin over a palette of ten
// distinct hues, and keeps it across restarts (QSettings "runs/colours"), so two runs plotted
// together differ unless ten others were coloured in between. GUI thread (QSettings).
#pragma once

#include <QColor>
#include <QString>
#include <QVector>

namespace streetgan::ui {

class RunPalette {
public:
    /// The key of a run: `host` empty for a local run.
    static QString key(const QString& host, const QString& runDir);
    /// The run's colour (assigned and remembered on the first call).
    static QColor colour(const QString& runKey);
    /// The palette, in assignment order.
    static const QVector<QColor>& palette();
    /// The colour of a run's `metricIndex`-th metric in a plot with several: shades of the run's
    /// colour, so the run stays recognisable and its metrics distinct (dashes would vanish: the
    /// plots draw ~2 points per pixel, too dense for a dash pattern).
    static QColor shade(const QColor& runColour, int metricIndex);
};

}  // namespace streetgan::ui
