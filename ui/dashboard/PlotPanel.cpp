#include "dashboard/PlotPanel.h"

#include <algorithm>
#include <utility>

#include <qcustomplot.h>
#include <QDateTime>
#include <QMouseEvent>
#include <QSvgGenerator>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "runs/RunPalette.h"

namespace streetgan::ui {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The raw series behind a smoothed one, as TensorBoard draws it: the same colour, low alpha.
// Translucent pens cost Qt's raster engine a blend per pixel, which the level of detail bounds:
// a graph gets at most ~2 points per pixel of width (refreshView).
constexpr int kRawAlpha = 64;
QColor faint(QColor c) {
    c.setAlpha(kRawAlpha);
    return c;
}

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
    // The legend is a row of its own between the title and the axis rect: never over the data.
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), 8));
    plot_->legend->setBrush(Qt::NoBrush);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setRowSpacing(0);
    plot_->legend->setColumnSpacing(8);
    plot_->legend->setMargins(QMargins(4, 0, 4, 0));
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    plot_->axisRect()->insetLayout()->simplify();
    plot_->plotLayout()->insertRow(1);
    plot_->plotLayout()->addElement(1, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot_->legend->setWrap(2);
    plot_->xAxis->setLabel(tr("step"));
    // Raw graphs under the smoothed ones; the crosshair on top. The overlay (empty state, decimation
    // note) is unbuffered (QCustomPlot buffers it for a selection rectangle, unused here), the crosshair
    // buffered only while shown (showCrosshair): each buffer is a full-size image cleared and composed
    // at every replot, ten a second per plot while following (issue 48).
    plot_->addLayer("raw", plot_->layer("main"), QCustomPlot::limBelow);
    plot_->layer("overlay")->setMode(QCPLayer::lmLogical);
    plot_->addLayer("crosshair", plot_->layer("overlay"), QCustomPlot::limAbove);
    plot_->layer("crosshair")->setMode(QCPLayer::lmLogical);
    empty_ = overlayText(0.5, 0.5, Qt::AlignCenter, 10);
    empty_->setColor(QColor(110, 110, 110));
    empty_->setClipToAxisRect(false);
    // Says when the points are bucket extremes rather than events (issue 48), without hiding data:
    // small, in the axis rect's top right corner.
    decimated_ = overlayText(1, 0, Qt::AlignRight | Qt::AlignTop, 8);
    decimated_->setPadding(QMargins(4, 2, 4, 2));
    decimated_->setVisible(false);
    crossLine_ = new QCPItemStraightLine(plot_);
    crossLine_->setLayer("crosshair");
    crossLine_->setPen(QPen(QColor(90, 90, 90), 1, Qt::DashLine));
    for (QCPItemPosition* pos : {crossLine_->point1, crossLine_->point2}) {
        pos->setTypeX(QCPItemPosition::ptPlotCoords);
        pos->setTypeY(QCPItemPosition::ptAxisRectRatio);
    }
    crossLabel_ = new QCPItemText(plot_);
    crossLabel_->setLayer("crosshair");
    crossLabel_->position->setType(QCPItemPosition::ptAbsolute);
    crossLabel_->setTextAlignment(Qt::AlignLeft);
    crossLabel_->setFont(QFont(font().family(), 8));
    crossLabel_->setBrush(QColor(255, 255, 255, 230));
    crossLabel_->setPen(QPen(QColor(160, 160, 160)));
    crossLabel_->setPadding(QMargins(4, 2, 4, 2));
    crossLabel_->setClipToAxisRect(false);
    crossLine_->setVisible(false);
    crossLabel_->setVisible(false);
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent*) { userView_ = true; });
    connect(plot_, &QCustomPlot::mouseWheel, this, [this](QWheelEvent*) { userView_ = true; });
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) {
        resetView();
        emit viewReset();
    });
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) { onMouseMove(e); });
    applyPalette();
    connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this](const QCPRange& r) {
        viewDirty_ = true;
        if (userView_ && !linking_) emit userXRangeChanged(r.lower, r.upper);
    });
    connect(plot_, &QCustomPlot::beforeReplot, this, [this] { refreshView(); });
    updateRanges();
}

PlotPanel::~PlotPanel() = default;

void PlotPanel::styleTracePens(Trace& t) {
    QColor c = metrics_.size() > 1 ? RunPalette::shade(t.colour, t.metricIndex) : t.colour;
    // On a dark background the darker shade of a run's colour all but vanishes: a light one instead.
    if (metrics_.size() > 1 && t.metricIndex % 3 == 1 && palette().color(QPalette::Base).lightness() < 128) c = t.colour.lighter(175);
    t.raw->setPen(QPen(alpha_ > 0 ? faint(c) : c, alpha_ > 0 ? 1 : 1.5));
    t.smooth->setPen(QPen(c, 1.6));
}

void PlotPanel::styleTrace(Trace& t) {
    styleTracePens(t);
    t.smooth->setVisible(alpha_ > 0);
    t.raw->removeFromLegend();
    t.smooth->removeFromLegend();
    (alpha_ > 0 ? t.smooth : t.raw)->addToLegend();
}

void PlotPanel::addRun(const RunSeries* run, const QString& name, int runIndex) {
    const auto& p = RunPalette::palette();
    addRun(run, name, p[std::abs(runIndex) % p.size()]);
}

bool PlotPanel::hasRun(const RunSeries* run) const {
    for (const auto& t : traces_)
        if (t->run == run) return true;
    return false;
}

void PlotPanel::addRun(const RunSeries* run, const QString& name, const QColor& colour, const QString& host) {
    if (hasRun(run)) return;
    for (int m = 0; m < metrics_.size(); ++m) {
        auto t = std::make_unique<Trace>();
        t->run = run;
        t->metric = metrics_[m];
        t->colour = colour;
        t->host = host;
        t->name = name;
        t->metricIndex = m;
        // raw first, on the layer below: behind the smoothed graph whatever the layer order says
        t->raw = plot_->addGraph();
        t->raw->setLayer("raw");
        t->smooth = plot_->addGraph();
        for (QCPGraph* g : {t->raw, t->smooth}) {
            g->setAdaptiveSampling(true);
            g->setLineStyle(QCPGraph::lsLine);
        }
        t->label = metrics_.size() > 1 ? QString("%1 · %2").arg(metricLabel(t->metric), name) : name;
        t->raw->setName(t->label);
        t->smooth->setName(t->label);
        styleTrace(*t);
        take(*t);
        traces_.push_back(std::move(t));
    }
    updateLegendLayout();
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
    updateLegendLayout();
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
            t.logged = true;
            const double key = keyOf(r, i);
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
        t->logged = false;
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
        if (keyOf(r, mid) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

double PlotPanel::keyOf(const RunSeries& r, size_t i) const {
    switch (x_) {
        case PlotXAxis::Step:
            return r.x(XAxisMode::Step, i);
        case PlotXAxis::Epoch:
            return r.x(XAxisMode::Epoch, i);
        case PlotXAxis::Relative:
            return r.x(XAxisMode::WallTime, i);
        case PlotXAxis::WallClock:
            return r.x(XAxisMode::WallTime, i) + r.startTime();
    }
    return r.x(XAxisMode::Step, i);
}

QString PlotPanel::formatKey(double key) const {
    switch (x_) {
        case PlotXAxis::Step:
            return QString::number(key, 'f', 0);
        case PlotXAxis::Epoch:
            return QString::number(key, 'f', 2);
        case PlotXAxis::Relative: {
            const qint64 s = std::llround(std::max(0.0, key));
            return QString("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QChar('0')).arg(s % 60, 2, 10, QChar('0'));
        }
        case PlotXAxis::WallClock:
            return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(key * 1000)).toString("yyyy-MM-dd hh:mm:ss");
    }
    return QString::number(key);
}

void PlotPanel::updateEmptyState() {
    QString text;
    if (traces_.empty()) {
        text = tr("No run selected: check a run in the Runs list");
    } else {
        QStringList waiting;
        bool any = false;
        for (const auto& t : traces_) {
            if (t->run->rows() > 0) {
                any = true;
                break;
            }
            const QString host = t->host.isEmpty() ? tr("this computer") : t->host;
            if (!waiting.contains(host)) waiting << host;
        }
        if (!any) {
            text = tr("Waiting for the first event from %1…").arg(waiting.join(", "));
        } else {
            // Events came, but none carries this panel's metrics (a TensorBoard run of another
            // trainer logs no data wait or learning rate): say so rather than show blank axes.
            bool values = false;
            QStringList silent;
            std::vector<bool> has(traces_.size(), false);
            for (size_t k = 0; k < traces_.size(); ++k) {
                // What take() saw: this runs before every replot, and scanning a metric the run
                // never logs went through all its rows each time (issue 48).
                const Trace& t = *traces_[k];
                has[k] = t.logged;
                values = values || has[k];
                if (!has[k] && !silent.contains(t.name)) silent << t.name;
            }
            // Beside runs that log it, a run that does not is named so in the legend (it draws no
            // line); alone, the panel's own text says it.
            for (size_t k = 0; k < traces_.size(); ++k) {
                Trace& t = *traces_[k];
                const QString legend = has[k] || !values ? t.label : tr("%1 (not logged)").arg(t.label);
                if (t.raw->name() != legend) {
                    t.raw->setName(legend);
                    t.smooth->setName(legend);
                }
            }
            if (!values) {
                QStringList what;
                for (Metric m : metrics_) what << QString::fromUtf8(metricLabel(m));
                text = tr("%1: not logged by the trainer of %2").arg(what.join(", "), silent.join(", "));
            }
        }
    }
    emptyRaw_ = text;
    empty_->setVisible(!text.isEmpty());
    fitToSize();
}

void PlotPanel::fitToSize() {
    const QRect rect = plot_->axisRect()->rect();
    if (rect.width() <= 0 || rect.height() <= 0) {
        empty_->setText(emptyRaw_);
        return;
    }
    const QCPRange xr = plot_->xAxis->range();
    // Measuring text is most of this, and it runs before every replot: only when what is measured
    // changed (the rect, the labels, the range's digits: a followed run's range grows every frame).
    const QString key = QString("%1x%2|%3|%4|%5|%6")
                            .arg(rect.width())
                            .arg(rect.height())
                            .arg(QString::number(xr.lower, 'g', 6).size())
                            .arg(QString::number(xr.upper, 'g', 6).size())
                            .arg(plot_->xAxis->tickVectorLabels().join('\x1f'), emptyRaw_);
    if (key == fitKey_) return;
    fitKey_ = key;
    // Ticks: room for the widest label of the current range, plus a gap, per tick.
    const QFontMetrics xfm(plot_->xAxis->tickLabelFont());
    const auto widest = [&](double lo, double hi) {
        return std::max(xfm.horizontalAdvance(QString::number(lo, 'g', 6)), xfm.horizontalAdvance(QString::number(hi, 'g', 6)));
    };
    int xLabel = std::max(widest(xr.lower, xr.upper), xfm.horizontalAdvance(QStringLiteral("00:00:00"))) + 16;
    for (const QString& l : plot_->xAxis->tickVectorLabels()) xLabel = std::max(xLabel, xfm.horizontalAdvance(l) + 16);  // the last drawn (dates)
    plot_->xAxis->ticker()->setTickCount(std::clamp(rect.width() / std::max(1, xLabel), 2, 6));
    const int yLabel = QFontMetrics(plot_->yAxis->tickLabelFont()).height() * 2;
    plot_->yAxis->ticker()->setTickCount(std::clamp(rect.height() / std::max(1, yLabel), 2, 6));
    // The empty-state text: words wrapped to the axis rect's width, a word longer than a line elided.
    const QFontMetrics fm(empty_->font());
    const int room = std::max(40, rect.width() - 16);
    QStringList lines;
    QString line;
    for (const QString& word : emptyRaw_.split(' ', Qt::SkipEmptyParts)) {
        const QString candidate = line.isEmpty() ? word : line + ' ' + word;
        if (fm.horizontalAdvance(candidate) <= room || line.isEmpty()) {
            line = candidate;
        } else {
            lines << line;
            line = word;
        }
    }
    if (!line.isEmpty()) lines << line;
    for (QString& l : lines) l = fm.elidedText(l, Qt::ElideMiddle, room);
    empty_->setText(lines.join('\n'));
}

QString PlotPanel::emptyText() const {
    const_cast<PlotPanel*>(this)->updateEmptyState();
    return empty_->visible() ? emptyRaw_ : QString();
}

QCPItemText* PlotPanel::overlayText(double x, double y, Qt::Alignment alignment, int pointSize) {
    auto* t = new QCPItemText(plot_);
    t->setLayer("overlay");
    t->position->setType(QCPItemPosition::ptAxisRectRatio);
    t->position->setCoords(x, y);
    t->setPositionAlignment(alignment);
    t->setFont(QFont(font().family(), pointSize));
    return t;
}

void PlotPanel::updateDecimationNote() {
    int64_t bucket = 1;
    for (const auto& t : traces_) bucket = std::max(bucket, t->run->bucketSize());
    const QString text = bucket > 1 ? tr("min/max of every %1 events").arg(bucket) : QString();
    if (text == decimated_->text() && decimated_->visible() == !text.isEmpty()) return;
    decimated_->setText(text);
    decimated_->setVisible(!text.isEmpty());
}

QString PlotPanel::decimationText() const { return decimated_->visible() ? decimated_->text() : QString(); }

void PlotPanel::refreshView() {
    updateEmptyState();  // and fitToSize(): the size or the ranges may have changed
    updateDecimationNote();
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
            lod.forEachPoint(v, r0, r1, maxPoints, [&](size_t row, float value) { pts.append(QCPGraphData(keyOf(r, row), value)); });
            g->data()->set(pts, false);  // sorted unless a resumed run logged a step twice
            // A line needs two points: a series of one (an SWD logged once) is drawn as a dot.
            g->setScatterStyle(pts.size() == 1 ? QCPScatterStyle(QCPScatterStyle::ssDisc, 7) : QCPScatterStyle(QCPScatterStyle::ssNone));
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
    setXAxis(mode == XAxisMode::Step ? PlotXAxis::Step : mode == XAxisMode::Epoch ? PlotXAxis::Epoch : PlotXAxis::Relative);
}

void PlotPanel::setXAxis(PlotXAxis x) {
    if (x == x_) return;
    x_ = x;
    switch (x) {
        case PlotXAxis::Step:
        case PlotXAxis::Epoch:
            plot_->xAxis->setLabel(x == PlotXAxis::Step ? tr("step") : tr("epoch"));
            plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
            break;
        case PlotXAxis::Relative: {
            plot_->xAxis->setLabel(tr("time since start"));
            QSharedPointer<QCPAxisTickerTime> t(new QCPAxisTickerTime);
            t->setTimeFormat("%h:%m:%s");  // hours go past 24: no day field in the format
            plot_->xAxis->setTicker(t);
            break;
        }
        case PlotXAxis::WallClock: {
            plot_->xAxis->setLabel(tr("wall-clock time"));
            QSharedPointer<QCPAxisTickerDateTime> t(new QCPAxisTickerDateTime);
            t->setDateTimeFormat("hh:mm:ss\nMMM d");
            plot_->xAxis->setTicker(t);
            break;
        }
    }
    userView_ = false;
    hideCrosshair();
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

void PlotPanel::replot() {
    // Drawing is most of a followed run's CPU (issue 48): none for a plot nobody sees.
    if (!isVisible()) {
        refreshView();
        replotWhenShown_ = true;
        return;
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void PlotPanel::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (std::exchange(replotWhenShown_, false)) plot_->replot(QCustomPlot::rpQueuedReplot);
}

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
    QStringList lines{QString("%1 %2").arg(plot_->xAxis->label(), formatKey(key))};
    for (const auto& t : traces_) {
        const RunSeries& r = *t->run;
        const size_t n = std::min(t->rows, r.rows());
        if (n == 0) continue;
        // a series is read where it has points: not left of its first row nor right of its last
        const double half = n > 1 ? (keyOf(r, n - 1) - keyOf(r, 0)) / static_cast<double>(n - 1) / 2 : 0;
        if (key < keyOf(r, 0) - half || key > keyOf(r, n - 1) + half) continue;
        size_t i = std::min(rowAt(r, key), n - 1);
        if (i > 0 && std::abs(keyOf(r, i - 1) - key) < std::abs(keyOf(r, i) - key)) --i;
        const float v = r.value(t->metric, i);
        if (!std::isfinite(v)) continue;
        const char* unit = TrainingScalar::of(t->metric).unit;
        QString line = QString("%1: %2%3").arg(t->raw->name(), QString::number(v, 'g', 6), *unit ? QString(" ") + unit : QString());
        if (alpha_ > 0 && i < t->ema.size()) line += tr(" (smoothed %1)").arg(QString::number(t->ema[i], 'g', 6));
        lines << line;
    }
    return lines.size() > 1 ? lines.join('\n') : QString();
}

void PlotPanel::showCrosshair(double key) {
    const QString text = readoutAt(key);
    if (text.isEmpty()) {
        hideCrosshair();
        return;
    }
    crossLine_->point1->setCoords(key, 0);
    crossLine_->point2->setCoords(key, 1);
    crossLabel_->setText(text);
    // Beside the line where the label fits (right first), else against the plot's edge.
    const QRect rect = plot_->axisRect()->rect();
    const double px = plot_->xAxis->coordToPixel(key);
    const int w = QFontMetrics(crossLabel_->font()).boundingRect(QRect(0, 0, 4000, 4000), Qt::AlignLeft, text).width() + 10;
    double left = px + 8;
    if (left + w > plot_->width()) left = px - 8 - w >= 0 ? px - 8 - w : std::max(0.0, plot_->width() - 1.0 - w);
    crossLabel_->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
    crossLabel_->position->setCoords(left, rect.top() + 4);
    crossLine_->setVisible(true);
    crossLabel_->setVisible(true);
    // Its own buffer while shown (the first replot after this one is a full one, which sets it up).
    plot_->layer("crosshair")->setMode(QCPLayer::lmBuffered);
    plot_->layer("crosshair")->replot();
}

void PlotPanel::hideCrosshair() {
    if (!crossLine_->visible()) return;
    crossLine_->setVisible(false);
    crossLabel_->setVisible(false);
    plot_->layer("crosshair")->setMode(QCPLayer::lmLogical);  // a full replot, without its buffer
    plot_->layer("crosshair")->replot();
}

bool PlotPanel::crosshairVisible() const { return crossLine_->visible(); }
QString PlotPanel::crosshairText() const { return crossLabel_->visible() ? crossLabel_->text() : QString(); }

QCPGraph* PlotPanel::rawGraph(const RunSeries* run, Metric metric) const {
    for (const auto& t : traces_)
        if (t->run == run && t->metric == metric) return t->raw;
    return nullptr;
}

QCPGraph* PlotPanel::smoothGraph(const RunSeries* run, Metric metric) const {
    for (const auto& t : traces_)
        if (t->run == run && t->metric == metric) return t->smooth;
    return nullptr;
}

void PlotPanel::onMouseMove(QMouseEvent* e) {
    if (e->buttons() != Qt::NoButton || traces_.empty() || !plot_->axisRect()->rect().contains(e->pos())) {
        hideCrosshair();
        return;
    }
    showCrosshair(plot_->xAxis->pixelToCoord(e->pos().x()));
}

// The plot follows the widget's palette (ThemeManager sets the application's): background, axes,
// grid, text, legend, crosshair and empty state. Run colours stay (RunPalette reads on both).
void PlotPanel::applyPalette() {
    const QPalette& pal = palette();
    const QColor base = pal.color(QPalette::Base), text = pal.color(QPalette::WindowText);
    const bool dark = base.lightness() < 128;
    const QColor axis = dark ? QColor(170, 170, 170) : QColor(0, 0, 0);
    const QColor grid = dark ? QColor(70, 70, 74) : QColor(200, 200, 200);
    const QColor subtle = dark ? QColor(150, 150, 150) : QColor(110, 110, 110);
    plot_->setBackground(base);
    for (QCPAxis* a : plot_->axisRect()->axes()) {
        a->setBasePen(QPen(axis, 0));
        a->setTickPen(QPen(axis, 0));
        a->setSubTickPen(QPen(axis, 0));
        a->setTickLabelColor(text);
        a->setLabelColor(text);
        a->grid()->setPen(QPen(grid, 0, Qt::DotLine));
        a->grid()->setSubGridPen(QPen(grid.darker(dark ? 130 : 90), 0, Qt::DotLine));
        a->grid()->setZeroLinePen(QPen(grid, 0, Qt::SolidLine));
    }
    if (auto* t = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))) t->setTextColor(text);
    plot_->legend->setTextColor(text);
    for (int i = 0; i < plot_->legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* item = plot_->legend->item(i)) item->setTextColor(text);
    empty_->setColor(subtle);
    decimated_->setColor(subtle);
    crossLine_->setPen(QPen(subtle, 1, Qt::DashLine));
    QColor labelBack = base;
    labelBack.setAlpha(230);
    crossLabel_->setBrush(labelBack);
    crossLabel_->setPen(QPen(dark ? QColor(100, 100, 100) : QColor(160, 160, 160)));
    crossLabel_->setColor(text);
    for (auto& t : traces_) styleTracePens(*t);
}

void PlotPanel::changeEvent(QEvent* e) {
    QWidget::changeEvent(e);
    if (e->type() == QEvent::FontChange) fitKey_.clear();
    if (e->type() == QEvent::PaletteChange) {
        applyPalette();
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
}

bool PlotPanel::eventFilter(QObject* watched, QEvent* e) {
    if (watched == plot_ && e->type() == QEvent::Leave) hideCrosshair();
    return QWidget::eventFilter(watched, e);
}

void PlotPanel::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    updateLegendLayout();
}

void PlotPanel::updateLegendLayout() {
    // As many columns as the widest name allows, so that no name is cut.
    const QFontMetrics fm(plot_->legend->font());
    int widest = 60;
    for (const auto& t : traces_) widest = std::max(widest, fm.horizontalAdvance(t->raw->name()));
    const int item = widest + plot_->legend->iconSize().width() + plot_->legend->iconTextPadding() + 16;
    const int columns = std::max(1, (width() - 8) / item);
    if (plot_->legend->wrap() != columns) {
        plot_->legend->setWrap(columns);
        plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
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
