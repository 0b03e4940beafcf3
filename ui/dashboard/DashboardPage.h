// The live dashboard: six PlotPanels (losses; D outputs; images/s; data wait; learning rate;
// system readings are in SystemPanel) for every open run overlaid, with the shared controls:
// x by step/epoch/wall time, EMA smoothing slider, log-y, reset view, export PNG/SVG/CSV.
// Views update when a RunSession drains (at most every 40 ms); replots are queued. GUI thread.
#pragma once

#include <QHash>
#include <QVector>
#include <QWidget>

#include "events/RunSeries.h"

class QComboBox;
class QCheckBox;
class QSlider;
class QLabel;

namespace streetgan::ui {

class PlotPanel;
class RunSession;

class DashboardPage : public QWidget {
    Q_OBJECT
public:
    explicit DashboardPage(QWidget* parent = nullptr);
    void addSession(RunSession* session);
    void removeSession(RunSession* session);
    const QVector<PlotPanel*>& panels() const { return panels_; }
    PlotPanel* panel(const QString& title) const;
    void setXMode(XAxisMode mode);
    void setSmoothing(double alpha);
    void setLogY(bool on);
    /// Writes every panel as PNG or SVG into `dir` (one file per plot); returns the files.
    QStringList exportPlots(const QString& dir, const QString& format);
    /// Writes the metrics of `session` as CSV (on a worker thread); `done(ok, message)` later.
    void exportCsv(RunSession* session, const QString& path);
    /// Replot count and mean replot time, for the status bar and benchmarks.
    double lastReplotMs() const;

signals:
    void csvExported(bool ok, const QString& message);

private:
    void onAppended(RunSession* s, qsizetype from);
    QVector<PlotPanel*> panels_;
    QVector<RunSession*> sessions_;
    QComboBox* xMode_;
    QSlider* smoothing_;
    QLabel* smoothingLabel_;
    QCheckBox* logY_;
};

}  // namespace streetgan::ui
