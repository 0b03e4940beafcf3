#include "dashboard/ScalarsPanel.h"

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "runs/RunPalette.h"
#include "runs/RunSession.h"

namespace streetgan::ui {
namespace {
constexpr int kColumns = 3;
}

ScalarsPanel::ScalarsPanel(QWidget* parent) : QWidget(parent) {
    sections_ = new QVBoxLayout(this);
    empty_ =
        new QLabel(tr("No other scalars. The tags of a TensorBoard run other than its losses and D outputs (for example lr/G or "
                      "timing/data) appear here, one plot each, grouped by the part before the first '/'."));
    empty_->setWordWrap(true);
    empty_->setAlignment(Qt::AlignCenter);
    sections_->addWidget(empty_);
    sections_->addStretch();
}

QString ScalarsPanel::groupOf(const QString& tag) {
    const int slash = tag.indexOf('/');
    return slash > 0 ? tag.left(slash) : tr("other");
}

void ScalarsPanel::setStyle(PlotXAxis x, double smoothing, bool logY) {
    x_ = x;
    smoothing_ = smoothing;
    logY_ = logY;
}

void ScalarsPanel::addSession(RunSession* s) {
    if (sessions_.contains(s)) return;
    sessions_.push_back(s);
    connect(s, &RunSession::scalarsAppended, this, [this, s](const QString& tag, qsizetype from) { onScalars(s, tag, from); });
    for (const auto& [tag, series] : s->tagSeries()) onScalars(s, tag, 0);
}

void ScalarsPanel::removeSession(RunSession* s) {
    if (!sessions_.contains(s)) return;
    setPlotted(s, false);
    sessions_.removeOne(s);
    hidden_.remove(s);
    disconnect(s, nullptr, this, nullptr);
}

void ScalarsPanel::setPlotted(RunSession* s, bool on) {
    if (on)
        hidden_.remove(s);
    else
        hidden_.insert(s);
    for (const auto& [tag, series] : s->tagSeries()) {
        PlotPanel* p = byTag_.value(tag);
        if (!p) continue;
        if (on)
            plot(s, tag, p);
        else if (p->hasRun(series.get()))
            p->removeRun(series.get());
        p->replot();
    }
}

void ScalarsPanel::plot(RunSession* s, const QString& tag, PlotPanel* p) {
    const auto it = s->tagSeries().find(tag);
    if (it == s->tagSeries().end() || p->hasRun(it->second.get())) return;
    p->addRun(it->second.get(), s->title(), RunPalette::colour(s->runKey()), s->isRemote() ? s->hostLabel() : QString());
}

void ScalarsPanel::onScalars(RunSession* s, const QString& tag, qsizetype from) {
    if (hidden_.contains(s)) return;
    PlotPanel* p = panelFor(tag);
    plot(s, tag, p);
    p->append(s->tagSeries().at(tag).get(), static_cast<size_t>(from));
    p->replot();
}

PlotPanel* ScalarsPanel::panelFor(const QString& tag) {
    if (PlotPanel* p = byTag_.value(tag)) return p;
    empty_->hide();
    const QString group = groupOf(tag);
    QGridLayout* grid = groups_.value(group);
    if (!grid) {
        // Sections in the order their first tag came; the stretch stays last.
        auto* title = new QLabel(QStringLiteral("<b>%1</b>").arg(group.toHtmlEscaped()));
        grid = new QGridLayout;
        grid->setSpacing(4);
        sections_->insertWidget(sections_->count() - 1, title);
        sections_->insertLayout(sections_->count() - 1, grid);
        groups_.insert(group, grid);
    }
    auto* p = new PlotPanel(tag, {Metric{}}, this);  // a tag's values are the first column (RunSession::appendScalars)
    p->setMinimumHeight(220);
    p->setXAxis(x_);
    p->setSmoothing(smoothing_);
    p->setLogY(logY_);
    const int n = grid->count();
    grid->addWidget(p, n / kColumns, n % kColumns);
    byTag_.insert(tag, p);
    panels_.push_back(p);
    emit panelAdded(p);
    return p;
}

}  // namespace streetgan::ui
