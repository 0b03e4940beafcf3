#include "dashboard/PlotPanel.h"

#include <qcustomplot.h>
#include <QMouseEvent>
#include <QSvgGenerator>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

namespace streetgan::ui {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

QColor metricColour(int runIndex, int metricIndex) {
    static const QColor base[] = {QColor(31, 119, 180),  QColor(255, 127, 14), QColor(44, 160, 44),   QColor(214, 39, 40),
                                  QColor(148, 103, 189), QColor(140, 86, 75),  QColor(227, 119, 194), QColor(23, 190, 207)};
    QColor c = base[(metricIndex + runIndex * 3) % 8];
    if (runIndex % 2 == 1) c = c.darker(140);
    return c;
}

// An opaque light tint (translucent pens make Qt's raster engine slow on long polylines).
QColor faint(const QColor& c) { return QColor((c.red() + 3 * 255) / 4, (c.green() + 3 * 255) / 4, (c.blue() + 3 * 255) / 4); }

}  // namespace

PlotPanel::PlotPanel(const QString& title, QVector<Metric> metrics, QWidget* parent)
    : QWidget(parent), title_(title), metrics_(std::move(metrics)), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setObjectName(title);
    plot_->setMinimumSize(240, 160);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->setNoAntialiasingOnDrag(true);
    plot_->setPlottingHint(QCP::phCacheLabels, true);
    plot_->setPlottingHint(QCP::phFastPolylines, true);  // wide pens on long polylines are slow otherwise
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, new QCPTextElement(plot_, title, QFont(font().family(), 9, QFont::Bold)));
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), 7));
    plot_->legend->setBrush(QColor(255, 255, 255, 200));
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    plot_->xAxis->setLabel(tr("step"));
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent*) { userView_ = true; });
    connect(plot_, &QCustomPlot::mouseWheel, this, [this](QWheelEvent*) { userView_ = true; });
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) {
        resetView();
        emit viewReset();
    });
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) { onMouseMove(e); });
    connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this](const QCPRange& r) {
        viewDirty_ = true;
        if (userView_ && !linking_) emit userXRangeChanged(r.lower, r.upper);
    });
    connect(plot_, &QCustomPlot::beforeReplot, this, [this] { refreshView(); });
    updateRanges();
}

PlotPanel::~PlotPanel() = default;

void PlotPanel::styleTrace(Trace& t) {
    const QColor c = metricColour(t.runIndex, t.metricIndex);
    t.raw->setPen(QPen(alpha_ > 0 ? faint(c) : c, 1));
    t.smooth->setPen(QPen(c, 1.5));
    t.smooth->setVisible(alpha_ > 0);
    t.raw->removeFromLegend();
    t.smooth->removeFromLegend();
    (alpha_ > 0 ? t.smooth : t.raw)->addToLegend();
}

void PlotPanel::addRun(const RunSeries* run, const QString& name, int runIndex) {
    for (int m = 0; m < metrics_.size(); ++m) {
        auto t = std::make_unique<Trace>();
        t->run = run;
        t->metric = metrics_[m];
        t->runIndex = runIndex;
        t->metricIndex = m;
        t->raw = plot_->addGraph();
        t->smooth = plot_->addGraph();
        for (QCPGraph* g : {t->raw, t->smooth}) {
            g->setAdaptiveSampling(true);
            g->setLineStyle(QCPGraph::lsLine);
        }
        const QString label = metrics_.size() > 1 ? QString("%1 %2").arg(metricLabel(t->metric), name) : name;
        t->raw->setName(label);
        t->smooth->setName(label);
        styleTrace(*t);
        take(*t);
        traces_.push_back(std::move(t));
    }
    updateRanges();
    viewDirty_ = true;
}

void PlotPanel::removeRun(const RunSeries* run) {
    for (auto it = traces_.begin(); it != traces_.end();) {
        if ((*it)->run == run) {
            plot_->removeGraph((*it)->raw);
            plot_->removeGraph((*it)->smooth);
            it = traces_.erase(it);
        } else {
            ++it;
        }
    }
    rebuild();
}

// Takes the rows the trace has not seen yet: ranges, EMA, level-of-detail pyramids.
void PlotPanel::take(Trace& t) {
    const RunSeries& r = *t.run;
    const size_t n = r.rows();
    if (t.rows >= n) return;
    const float* v = r.values(t.metric);
    const bool smoothing = alpha_ > 0;
    // Once RunSeries downsamples, a row stands for bucketSize() / 2 events: weigh the EMA per
    // event so that the smoothing looks the same before and after.
    const double alpha = r.bucketSize() > 1 ? std::pow(alpha_, r.bucketSize() / 2.0) : alpha_;
    float ema = t.ema.empty() ? std::numeric_limits<float>::quiet_NaN() : t.ema.back();
    if (smoothing) t.ema.reserve(n);
    for (size_t i = t.rows; i < n; ++i) {
        const double val = v[i];
        if (std::isfinite(val)) {
            const double key = r.x(xMode_, i);
            if (std::isfinite(key)) {
                xMin_ = std::min(xMin_, key);
                xMax_ = std::max(xMax_, key);
            }
            yMin_ = std::min(yMin_, val);
            yMax_ = std::max(yMax_, val);
            if (val > 0) yMinPos_ = std::min(yMinPos_, val);
            if (smoothing) ema = ema == ema ? static_cast<float>(alpha * ema + (1 - alpha) * val) : static_cast<float>(val);
        }
        if (smoothing) t.ema.push_back(std::isfinite(val) ? ema : std::numeric_limits<float>::quiet_NaN());
    }
    t.rows = n;
    t.rawLod.update(v, n);
    if (smoothing) t.smoothLod.update(t.ema.data(), n);
    viewDirty_ = true;
}

void PlotPanel::append(const RunSeries* run, size_t fromRow) {
    bool any = false;
    for (auto& t : traces_)
        if (t->run == run) {
            // RunSeries rewrote rows from fromRow (its downsampled tail, or all after a compaction):
            // drop them and take them again. The x/y ranges stay: downsampling keeps every
            // bucket's extremes and the first and last x.
            if (fromRow < t->rows) {
                t->rows = fromRow;
                if (t->ema.size() > fromRow) t->ema.resize(fromRow);
                t->rawLod.truncate(fromRow);
                t->smoothLod.truncate(fromRow);
            }
            take(*t);
            any = true;
        }
    if (any) updateRanges();
}

void PlotPanel::rebuild() {
    xMin_ = yMin_ = yMinPos_ = kInf;
    xMax_ = yMax_ = -kInf;
    for (auto& t : traces_) {
        t->rows = 0;
        t->ema.clear();
        t->ema.shrink_to_fit();
        t->rawLod.clear();
        t->smoothLod.clear();
        take(*t);
    }
    updateRanges();
    viewDirty_ = true;
}

size_t PlotPanel::rowAt(const RunSeries& r, double key) const {
    // First row whose x is >= key (x is sorted by construction: steps, epochs and wall time grow).
    size_t lo = 0, hi = r.rows();
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (r.x(xMode_, mid) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void PlotPanel::refreshView() {
    if (!viewDirty_) return;
    viewDirty_ = false;
    const QCPRange range = plot_->xAxis->range();
    const size_t maxPoints = static_cast<size_t>(std::max(256, plot_->axisRect()->width() * 2));
    for (auto& tp : traces_) {
        Trace& t = *tp;
        const RunSeries& r = *t.run;
        const size_t n = std::min(t.rows, r.rows());
        // one row either side so that lines run to the plot's edges
        size_t r0 = rowAt(r, range.lower), r1 = std::min(n, rowAt(r, range.upper) + 2);
        r0 = r0 > 0 ? r0 - 1 : 0;
        r0 = std::min(r0, n);
        auto fill = [&](QCPGraph* g, const MinMaxPyramid& lod, const float* v) {
            QVector<QCPGraphData> pts;
            pts.reserve(static_cast<qsizetype>(std::min(r1 - r0, maxPoints * 2 + 8)));
            lod.forEachPoint(v, r0, r1, maxPoints, [&](size_t row, float value) { pts.append(QCPGraphData(r.x(xMode_, row), value)); });
            g->data()->set(pts, false);  // sorted unless a resumed run logged a step twice
        };
        fill(t.raw, t.rawLod, r.values(t.metric));
        if (alpha_ > 0 && !t.ema.empty())
            fill(t.smooth, t.smoothLod, t.ema.data());
        else
            t.smooth->data()->clear();
    }
}

void PlotPanel::updateRanges() {
    if (traces_.empty()) xMin_ = yMin_ = yMinPos_ = kInf, xMax_ = yMax_ = -kInf;
    if (userView_) return;
    if (xMin_ <= xMax_)
        plot_->xAxis->setRange(xMin_, xMax_ > xMin_ ? xMax_ : xMin_ + 1);
    else
        plot_->xAxis->setRange(0, 1);
    if (logY_) {
        if (yMinPos_ < kInf)
            plot_->yAxis->setRange(yMinPos_ / 1.2, std::max(yMax_ * 1.2, yMinPos_ * 10));
        else
            plot_->yAxis->setRange(1e-3, 1);
    } else if (yMin_ <= yMax_) {
        const double pad = yMax_ > yMin_ ? 0.05 * (yMax_ - yMin_) : std::max(1e-9, std::abs(yMax_) * 0.05 + 1e-9);
        plot_->yAxis->setRange(yMin_ - pad, yMax_ + pad);
    } else {
        plot_->yAxis->setRange(0, 1);
    }
    viewDirty_ = true;
}

void PlotPanel::setXMode(XAxisMode mode) {
    if (mode == xMode_) return;
    xMode_ = mode;
    plot_->xAxis->setLabel(mode == XAxisMode::Step ? tr("step") : mode == XAxisMode::Epoch ? tr("epoch") : tr("wall time (s)"));
    userView_ = false;
    rebuild();
}

void PlotPanel::setSmoothing(double alpha) {
    alpha = std::clamp(alpha, 0.0, 0.999);
    if (alpha == alpha_) return;
    alpha_ = alpha;
    for (auto& t : traces_) styleTrace(*t);
    rebuild();
}

void PlotPanel::setLogY(bool on) {
    logY_ = on;
    plot_->yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (on)
        plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    else
        plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    updateRanges();
}

void PlotPanel::replot() { plot_->replot(QCustomPlot::rpQueuedReplot); }

void PlotPanel::resetView() {
    userView_ = false;
    updateRanges();
    replot();
}

int PlotPanel::pointCount(const RunSeries* run, Metric metric) const {
    for (const auto& t : traces_)
        if (t->run == run && t->metric == metric) {
            const float* v = run->values(metric);
            int finite = 0;
            for (size_t i = 0; i < std::min(t->rows, run->rows()); ++i) finite += std::isfinite(v[i]) ? 1 : 0;
            return finite;
        }
    return -1;
}

int PlotPanel::drawnPointCount(const RunSeries* run, Metric metric) const {
    for (const auto& t : traces_)
        if (t->run == run && t->metric == metric) return t->raw->data()->size();
    return -1;
}

double PlotPanel::smoothedAt(const RunSeries* run, Metric metric, double key) const {
    for (const auto& t : traces_) {
        if (t->run != run || t->metric != metric || t->ema.empty()) continue;
        const size_t i = std::min(rowAt(*run, key), t->ema.size() - 1);
        return t->ema[i];
    }
    return std::numeric_limits<double>::quiet_NaN();
}

QString PlotPanel::readoutAt(double key) const {
    QStringList lines;
    const QString xName = plot_->xAxis->label();
    for (const auto& t : traces_) {
        const RunSeries& r = *t->run;
        const size_t n = std::min(t->rows, r.rows());
        if (n == 0) continue;
        size_t i = std::min(rowAt(r, key), n - 1);
        if (i > 0 && std::abs(r.x(xMode_, i - 1) - key) < std::abs(r.x(xMode_, i) - key)) --i;
        QString line = QString("%1: %2").arg(t->raw->name(), QString::number(r.value(t->metric, i), 'g', 6));
        if (alpha_ > 0 && i < t->ema.size()) line += tr(" (smoothed %1)").arg(QString::number(t->ema[i], 'g', 6));
        lines << line + QString("  @ %1 %2").arg(xName, QString::number(r.x(xMode_, i), 'g', 8));
    }
    return lines.join('\n');
}

void PlotPanel::onMouseMove(QMouseEvent* e) {
    if (e->buttons() != Qt::NoButton || traces_.empty()) return;
    if (!plot_->axisRect()->rect().contains(e->pos())) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(e->globalPosition().toPoint(), readoutAt(plot_->xAxis->pixelToCoord(e->pos().x())), plot_);
}

void PlotPanel::setUserXRange(double lower, double upper) {
    userView_ = true;
    linking_ = true;
    plot_->xAxis->setRange(lower, upper);
    linking_ = false;
    replot();
}

bool PlotPanel::exportPng(const QString& path, int width, int height) { return plot_->savePng(path, width, height); }

bool PlotPanel::exportSvg(const QString& path) {
    QSvgGenerator gen;
    gen.setFileName(path);
    gen.setSize(plot_->size());
    gen.setViewBox(QRect(QPoint(0, 0), plot_->size()));
    gen.setTitle(title_);
    QCPPainter painter;
    if (!painter.begin(&gen)) return false;
    viewDirty_ = true;
    refreshView();
    plot_->toPainter(&painter, plot_->width(), plot_->height());
    painter.end();
    return true;
}

}  // namespace streetgan::ui
