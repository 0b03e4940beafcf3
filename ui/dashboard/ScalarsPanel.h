// The dashboard's Scalars tab: the tags of the open runs that have no plot of their own (a
// TensorBoard run's tags other than the losses and D outputs, and every run's checkpoint metrics:
// metrics/swd, metrics/swd_<px>, metrics/fid, ...: RunSession::tagSeries), one
// PlotPanel per tag in a section per group (the part of the tag before its first '/', as
// TensorBoard groups them; tags without one are under "other"), each run in its RunPalette colour,
// so runs overlay as in the other plots. The dashboard's controls (x axis, smoothing, log y,
// reset, export) apply to these panels too (DashboardPage::allPanels). GUI thread.
#pragma once

#include <QMap>
#include <QSet>
#include <QVector>
#include <QWidget>

#include "dashboard/PlotPanel.h"

class QGridLayout;
class QLabel;
class QVBoxLayout;

namespace streetgan::ui {

class RunSession;

class ScalarsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ScalarsPanel(QWidget* parent = nullptr);
    /// Plots `session`'s tags (now and as they come) while it is plotted.
    void addSession(RunSession* session);
    void removeSession(RunSession* session);
    void setPlotted(RunSession* session, bool on);
    /// Every tag's panel, in the order they appeared.
    const QVector<PlotPanel*>& panels() const { return panels_; }
    PlotPanel* panel(const QString& tag) const { return byTag_.value(tag); }
    /// The section a tag is shown in.
    static QString groupOf(const QString& tag);
    /// What new panels start with (the dashboard's controls).
    void setStyle(PlotXAxis x, double smoothing, bool logY);

signals:
    /// A tag got its first panel (the dashboard links its x range to the others).
    void panelAdded(PlotPanel* panel);

private:
    void onScalars(RunSession* s, const QString& tag, qsizetype from);
    PlotPanel* panelFor(const QString& tag);
    void plot(RunSession* s, const QString& tag, PlotPanel* p);

    QVBoxLayout* sections_;
    QLabel* empty_;
    QMap<QString, QGridLayout*> groups_;
    QMap<QString, PlotPanel*> byTag_;
    QVector<PlotPanel*> panels_;
    QVector<RunSession*> sessions_;
    QSet<RunSession*> hidden_;
    PlotXAxis x_ = PlotXAxis::Step;
    double smoothing_ = 0;
    bool logY_ = false;
};

}  // namespace streetgan::ui
