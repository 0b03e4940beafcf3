#include "dashboard/DashboardPage.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSlider>
#include <QTabWidget>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>
#include <cstdio>

#include "dashboard/PlotPanel.h"
#include "dashboard/ScalarsPanel.h"
#include "runs/RunPalette.h"
#include "runs/RunSession.h"
#include "runs/RunsSidebar.h"

namespace streetgan::ui {

DashboardPage::DashboardPage(QWidget* parent) : QWidget(parent) {
    auto* top = new QVBoxLayout(this);
    top->addLayout(buildControls());
    top->addWidget(buildViews(), 1);
    restoreControls();
}

// x axis, smoothing, log y, reset and export, over the plots.
QHBoxLayout* DashboardPage::buildControls() {
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("x:")));
    xMode_ = new QComboBox;
    // In PlotXAxis order; index 2 was "wall time" in seconds since the start, which it still is.
    xMode_->addItems({tr("step"), tr("epoch"), tr("time since start"), tr("wall-clock time")});
    xMode_->setToolTip(tr("What the x axis shows: time since start lines up runs started at different times"));
    controls->addWidget(xMode_);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Smoothing:")));
    smoothing_ = new QSlider(Qt::Horizontal);
    smoothing_->setRange(0, 99);
    smoothing_->setMaximumWidth(180);
    smoothing_->setToolTip(tr("Exponential moving average weight; the raw series stays faint behind"));
    controls->addWidget(smoothing_);
    smoothingLabel_ = new QLabel("0.00");
    controls->addWidget(smoothingLabel_);
    logY_ = new QCheckBox(tr("log y"));
    controls->addWidget(logY_);
    auto* reset = new QPushButton(tr("Reset view"));
    reset->setToolTip(tr("Back to the full range (or double-click a plot)"));
    controls->addWidget(reset);
    auto* exportButton = new QToolButton;
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(exportButton);
    auto ask = [this](const QString& format) {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Export the plots as %1 into").arg(format.toUpper()));
        if (!dir.isEmpty()) exportPlots(dir, format);
    };
    menu->addAction(tr("Plots as PNG…"), this, [ask] { ask("png"); });
    menu->addAction(tr("Plots as SVG…"), this, [ask] { ask("svg"); });
    menu->addAction(tr("Metrics as CSV…"), this, [this] {
        if (sessions_.isEmpty()) return;
        const QString path = QFileDialog::getSaveFileName(this, tr("Export metrics as CSV"), sessions_.back()->title() + ".csv", tr("CSV (*.csv)"));
        if (!path.isEmpty()) exportCsv(sessions_.back(), path);
    });
    exportButton->setMenu(menu);
    controls->addWidget(exportButton);
    controls->addStretch();
    connect(reset, &QPushButton::clicked, this, [this] {
        for (auto* p : allPanels()) p->resetView();
    });
    return controls;
}

// The run's own plots, and the Scalars tab with the checkpoint metrics (SWD, FID, ...) and a
// TensorBoard run's other tags.
QTabWidget* DashboardPage::buildViews() {
    views_ = new QTabWidget;
    views_->setDocumentMode(true);
    auto* training = new QWidget;
    auto* column = new QVBoxLayout(training);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(4);
    views_->addTab(training, tr("Training"));
    scalars_ = new ScalarsPanel;
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(scalars_);
    views_->addTab(scroll, tr("Scalars"));
    // One plot per group of the training scalars' table, its scalars in the table's order; the
    // first half of the groups (the losses and D's outputs) on a taller top row.
    QVector<QPair<QString, QVector<Metric>>> groups;
    for (int g = 0; g < TrainingScalar::kGroupCount; ++g) {
        QVector<Metric> metrics;
        for (const TrainingScalar::Spec& s : TrainingScalar::all())
            if (static_cast<int>(s.group) == g) metrics << s.key;
        if (!metrics.isEmpty()) groups.append({tr(TrainingScalar::groupTitle(static_cast<TrainingScalar::Group>(g))), metrics});
    }
    QHBoxLayout* rows[2] = {new QHBoxLayout, new QHBoxLayout};
    for (int i = 0; i < groups.size(); ++i) {
        auto* p = new PlotPanel(groups[i].first, groups[i].second, training);
        panels_.push_back(p);
        rows[i < groups.size() / 2 ? 0 : 1]->addWidget(p, 1);
    }
    for (QHBoxLayout* row : rows) row->setSpacing(4);
    column->addLayout(rows[0], 3);
    column->addLayout(rows[1], 2);
    // Zooming or panning one plot's x axis moves the others with it; a double-click resets all.
    for (auto* p : panels_) linkXRange(p);
    connect(scalars_, &ScalarsPanel::panelAdded, this, [this](PlotPanel* p) { linkXRange(p); });

    return views_;
}

PlotPanel* DashboardPage::panelOf(Metric m) const {
    for (PlotPanel* p : panels_)
        if (p->metrics().contains(m)) return p;
    return nullptr;
}

// The controls persist (QSettings "dashboard/..."): restored, then saved on each change.
void DashboardPage::restoreControls() {
    QSettings settings;
    xMode_->setCurrentIndex(std::clamp(settings.value("dashboard/xMode", 0).toInt(), 0, xMode_->count() - 1));
    smoothing_->setValue(std::clamp(settings.value("dashboard/smoothing", 0).toInt(), 0, 99));
    logY_->setChecked(settings.value("dashboard/logY", false).toBool());
    for (auto* p : panels_) {
        p->setXAxis(static_cast<PlotXAxis>(xMode_->currentIndex()));
        p->setSmoothing(smoothing_->value() / 100.0);
        p->setLogY(logY_->isChecked());
    }
    scalars_->setStyle(static_cast<PlotXAxis>(xMode_->currentIndex()), smoothing_->value() / 100.0, logY_->isChecked());
    smoothingLabel_->setText(QString::number(smoothing_->value() / 100.0, 'f', 2));
    connect(xMode_, &QComboBox::currentIndexChanged, this, [this](int m) {
        QSettings().setValue("dashboard/xMode", m);
        setXAxis(static_cast<PlotXAxis>(m));
    });
    connect(smoothing_, &QSlider::valueChanged, this, [this](int v) {
        QSettings().setValue("dashboard/smoothing", v);
        smoothingLabel_->setText(QString::number(v / 100.0, 'f', 2));
        scalars_->setStyle(static_cast<PlotXAxis>(xMode_->currentIndex()), v / 100.0, logY_->isChecked());
        for (auto* p : allPanels()) {
            p->setSmoothing(v / 100.0);
            p->replot();
        }
    });
    connect(logY_, &QCheckBox::toggled, this, [this](bool on) {
        QSettings().setValue("dashboard/logY", on);
        scalars_->setStyle(static_cast<PlotXAxis>(xMode_->currentIndex()), smoothing_->value() / 100.0, on);
        for (auto* p : allPanels()) {
            p->setLogY(on);
            p->replot();
        }
    });
}

PlotPanel* DashboardPage::panel(const QString& title) const {
    for (auto* p : panels_)
        if (p->title() == title) return p;
    return nullptr;
}

void DashboardPage::setXMode(XAxisMode mode) {
    setXAxis(mode == XAxisMode::Step ? PlotXAxis::Step : mode == XAxisMode::Epoch ? PlotXAxis::Epoch : PlotXAxis::Relative);
}

void DashboardPage::setXAxis(PlotXAxis x) {
    if (xMode_->currentIndex() != static_cast<int>(x)) xMode_->setCurrentIndex(static_cast<int>(x));  // comes back here
    scalars_->setStyle(x, smoothing_->value() / 100.0, logY_->isChecked());
    for (auto* p : allPanels()) {
        p->setXAxis(x);
        p->replot();
    }
}

void DashboardPage::setSmoothing(double alpha) { smoothing_->setValue(static_cast<int>(std::lround(alpha * 100))); }
void DashboardPage::setLogY(bool on) { logY_->setChecked(on); }

QVector<PlotPanel*> DashboardPage::allPanels() const { return panels_ + scalars_->panels(); }

void DashboardPage::linkXRange(PlotPanel* p) {
    connect(p, &PlotPanel::userXRangeChanged, this, [this, p](double lower, double upper) {
        for (auto* other : allPanels())
            if (other != p) other->setUserXRange(lower, upper);
    });
    connect(p, &PlotPanel::viewReset, this, [this] {
        for (auto* other : allPanels()) other->resetView();
    });
}

void DashboardPage::addSession(RunSession* s) {
    if (sessions_.contains(s)) return;
    sessions_.push_back(s);
    scalars_->addSession(s);
    connect(s, &RunSession::appended, this, [this, s](qsizetype from) { onAppended(s, from); });
    setPlotted(s, true);
}

void DashboardPage::removeSession(RunSession* s) {
    if (!sessions_.contains(s)) return;
    setPlotted(s, false);
    scalars_->removeSession(s);
    sessions_.removeOne(s);
    hidden_.remove(s);
    disconnect(s, nullptr, this, nullptr);
}

bool DashboardPage::isPlotted(RunSession* s) const { return sessions_.contains(s) && !hidden_.contains(s); }

void DashboardPage::setPlotted(RunSession* s, bool on) {
    if (!sessions_.contains(s)) return;
    if (on)
        hidden_.remove(s);
    else
        hidden_.insert(s);
    const QString key = s->runKey();
    scalars_->setPlotted(s, on);
    for (auto* p : panels_) {
        if (on && !p->hasRun(&s->series()))
            p->addRun(&s->series(), s->title(), RunPalette::colour(key), s->isRemote() ? s->hostLabel() : QString());
        else if (!on && p->hasRun(&s->series()))
            p->removeRun(&s->series());
        p->replot();
    }
    emit plottedChanged(key, on);
}

bool DashboardPage::setRunPlotted(const QString& key, bool on) {
    for (RunSession* s : sessions_)
        if (s->runKey() == key) {
            setPlotted(s, on);
            return true;
        }
    return false;
}

void DashboardPage::linkSidebar(RunsSidebar* sidebar) {
    if (sidebar_) disconnect(sidebar_, nullptr, this, nullptr);
    sidebar_ = sidebar;
    if (!sidebar) return;
    connect(sidebar, &RunsSidebar::plotToggled, this, [this](const QString& key, bool on) {
        // Not open yet: the sidebar asks for it (the window opens it and calls addSession).
        if (!setRunPlotted(key, on) && on && sidebar_ && !sidebar_->openRun(key)) sidebar_->setPlotted(key, false);
    });
    connect(this, &DashboardPage::plottedChanged, sidebar, &RunsSidebar::setPlotted);
    for (RunSession* s : sessions_) sidebar->setPlotted(s->runKey(), isPlotted(s));
}

void DashboardPage::onAppended(RunSession* s, qsizetype from) {
    if (static_cast<size_t>(from) >= s->series().rows()) return;
    for (auto* p : panels_) {
        p->append(&s->series(), static_cast<size_t>(from));
        p->replot();
    }
}

QStringList DashboardPage::exportPlots(const QString& dir, const QString& format) {
    QStringList files;
    for (auto* p : allPanels()) {
        // The first word of a plot's title ("loss", "d", ...); a tag's whole name, '/' as '_'.
        QString name = panels_.contains(p) ? p->title().section(' ', 0, 0).toLower().remove('/') : "scalar_" + QString(p->title()).replace('/', '_');
        const QString path = QDir(dir).filePath(QString("%1.%2").arg(name, format));
        const bool ok = format == "svg" ? p->exportSvg(path) : p->exportPng(path);
        if (ok) files << path;
    }
    return files;
}

void DashboardPage::exportCsv(RunSession* s, const QString& path) {
    // Copy the columns (GUI thread), write them on a worker.
    const RunSeries& r = s->series();
    const size_t n = r.rows();
    auto cols = std::make_shared<std::vector<std::vector<double>>>(3 + kMetricCount, std::vector<double>(n));
    for (size_t i = 0; i < n; ++i) {
        (*cols)[0][i] = r.x(XAxisMode::Step, i);
        (*cols)[1][i] = r.x(XAxisMode::Epoch, i);
        (*cols)[2][i] = r.wallTime(i);
        for (int k = 0; k < kMetricCount; ++k) (*cols)[3 + static_cast<size_t>(k)][i] = r.value(static_cast<Metric>(k), i);
    }
    const qint64 bucket = r.bucketSize();  // > 1: the rows are downsampled (RunSeries::kMaxRows)
    QThread* t = QThread::create([this, cols, path, n, bucket] {
        FILE* f = std::fopen(path.toLocal8Bit().constData(), "w");
        if (!f) {
            QMetaObject::invokeMethod(this, [this, path] { emit csvExported(false, tr("Cannot write %1").arg(path)); });
            return;
        }
        std::fputs("step,epoch,t", f);
        for (int k = 0; k < kMetricCount; ++k) std::fprintf(f, ",%s", metricKey(static_cast<Metric>(k)));
        std::fputc('\n', f);
        for (size_t i = 0; i < n; ++i) {
            std::fprintf(f, "%.17g,%.9g,%.6f", (*cols)[0][i], (*cols)[1][i], (*cols)[2][i]);
            for (int k = 0; k < kMetricCount; ++k) std::fprintf(f, ",%.9g", (*cols)[3 + static_cast<size_t>(k)][i]);
            std::fputc('\n', f);
        }
        const bool ok = std::fclose(f) == 0;
        QMetaObject::invokeMethod(this, [this, ok, path, n, bucket] {
            QString done = tr("Wrote %1 rows to %2").arg(n).arg(path);
            if (bucket > 1) done += tr(" (downsampled: each pair of rows holds the minimum and maximum of %1 events; events.jsonl has them all)").arg(bucket);
            emit csvExported(ok, ok ? done : tr("Writing %1 failed (disk full?)").arg(path));
        });
    });
    connect(t, &QThread::finished, t, &QObject::deleteLater);
    t->start();
}

double DashboardPage::lastReplotMs() const {
    double sum = 0;
    for (auto* p : panels_) sum += p->plot()->replotTime(false);
    return sum;
}

}  // namespace streetgan::ui
