// The live dashboard: five PlotPanels (losses; D outputs; images/s; data wait; learning rate;
// system readings are in SystemPanel) in its Training tab, and in its Scalars tab a plot per
// other tag of a TensorBoard run (ScalarsPanel), overlaying the open runs that are checked ("plotted"),
// each in its RunPalette colour, with the shared controls: x by step/epoch/time since start/
// wall-clock time, EMA smoothing slider, log-y, reset view, export PNG/SVG/CSV. An added session
// is plotted; setPlotted hides or shows it again without closing it. linkSidebar ties the plotted
// runs to the runs sidebar's check boxes both ways. Views update when a RunSession drains (at
// most every RunSession::kFrameMs); replots are queued. GUI thread.
#pragma once

#include <QHash>
#include <QPointer>
#include <QSet>
#include <QVector>
#include <QWidget>

#include "dashboard/PlotPanel.h"
#include "events/RunSeries.h"

class QComboBox;
class QCheckBox;
class QSlider;
class QLabel;
class QTabWidget;
class QHBoxLayout;

namespace streetgan::ui {

class RunSession;
class RunsSidebar;
class ScalarsPanel;

class DashboardPage : public QWidget {
    Q_OBJECT
public:
    explicit DashboardPage(QWidget* parent = nullptr);
    void addSession(RunSession* session);
    void removeSession(RunSession* session);
    /// The five plots of the Training tab.
    const QVector<PlotPanel*>& panels() const { return panels_; }
    /// The Training tab's plot that shows `m` (its group's).
    PlotPanel* panelOf(Metric m) const;
    /// Those and the Scalars tab's (a TensorBoard run's other tags), which the controls also drive.
    QVector<PlotPanel*> allPanels() const;
    ScalarsPanel* scalars() const { return scalars_; }
    QTabWidget* views() const { return views_; }
    PlotPanel* panel(const QString& title) const;
    /// Step, Epoch, or WallTime (= PlotXAxis::Relative: RunSeries' wall time is since the start).
    void setXMode(XAxisMode mode);
    void setXAxis(PlotXAxis x);
    /// Shows (plots) or hides an added session's graphs; plottedChanged tells.
    void setPlotted(RunSession* session, bool on);
    bool isPlotted(RunSession* session) const;
    /// setPlotted for the added session whose RunPalette::key is `runKey`; false when none is.
    bool setRunPlotted(const QString& runKey, bool on);
    /// Ties the runs sidebar's check boxes to the plotted runs: checking a run plots it (asking
    /// the sidebar to open it first when it is not open: openLocal/openRemote, then addSession),
    /// unchecking hides it; the sidebar's boxes follow setPlotted, addSession and removeSession.
    void linkSidebar(RunsSidebar* sidebar);
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
    /// The run `runKey` is plotted (added or checked) or not (hidden or removed).
    void plottedChanged(const QString& runKey, bool on);

private:
    QHBoxLayout* buildControls();
    QTabWidget* buildViews();
    void restoreControls();
    void onAppended(RunSession* s, qsizetype from);
    void linkXRange(PlotPanel* p);
    QVector<PlotPanel*> panels_;
    QVector<RunSession*> sessions_;
    QSet<RunSession*> hidden_;  ///< added but unchecked
    QPointer<RunsSidebar> sidebar_;
    QComboBox* xMode_;
    QSlider* smoothing_;
    QLabel* smoothingLabel_;
    QCheckBox* logY_;
    QTabWidget* views_;
    ScalarsPanel* scalars_;
};

}  // namespace streetgan::ui
