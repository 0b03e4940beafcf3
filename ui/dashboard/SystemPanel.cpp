#include "dashboard/SystemPanel.h"

#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <cmath>

#include "base/run/Events.h"
#include "events/RunSeries.h"

namespace streetgan::ui {
namespace {

QString num(double v, const char* unit, int decimals = 1) {
    return std::isfinite(v) ? QString("%1 %2").arg(v, 0, 'f', decimals).arg(unit).trimmed() : QObject::tr("n/a");
}

}  // namespace

SystemPanel::SystemPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    banner_ = new QLabel;
    banner_->setWordWrap(true);
    banner_->setObjectName("starvingBanner");
    banner_->setStyleSheet("QLabel { background: #fff3cd; color: #664d03; border: 1px solid #e0c060; padding: 6px; border-radius: 4px; }");
    banner_->setVisible(false);
    layout->addWidget(banner_);
    auto* form = new QFormLayout;
    auto add = [&](const QString& name, QLabel*& label) {
        label = new QLabel(tr("n/a"));
        label->setObjectName(name);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        form->addRow(name + ":", label);
    };
    add(tr("State"), state_);
    add(tr("Device"), device_);
    add(tr("Progress"), progress_);
    add(tr("Images/s"), imgs_);
    add(tr("Data wait"), wait_);
    add(tr("Data read"), read_);
    add(tr("CPU"), cpu_);
    add(tr("Memory"), rss_);
    add(tr("GPU"), gpu_);
    add(tr("GPU memory"), gpuMem_);
    layout->addLayout(form);
    layout->addStretch();
}

void SystemPanel::update(const RunSeries* r) {
    if (!r) {
        for (QLabel* l : {state_, device_, progress_, imgs_, wait_, read_, cpu_, rss_, gpu_, gpuMem_}) l->setText(tr("n/a"));
        banner_->setVisible(false);
        return;
    }
    state_->setText(r->state().empty() ? tr("n/a") : QString::fromStdString(r->state()));
    device_->setText(r->device().empty() ? tr("n/a") : QString::fromStdString(r->device()));
    if (r->totalSteps() > 0)
        progress_->setText(tr("step %1 of %2 (%3 %)")
                               .arg(std::max<int64_t>(0, r->lastStep()))
                               .arg(r->totalSteps())
                               .arg(100.0 * std::max<int64_t>(0, r->lastStep()) / r->totalSteps(), 0, 'f', 1));
    else
        progress_->setText(r->lastStep() >= 0 ? tr("step %1").arg(r->lastStep()) : tr("n/a"));
    const double ips = r->lastValue(Metric::ImgPerS);
    const double wait = r->lastValue(Metric::DataWait);
    imgs_->setText(num(ips, "", 1));
    wait_->setText(std::isfinite(wait) ? QString("%1 %").arg(100 * wait, 0, 'f', 1) : tr("n/a"));
    if (!r->system().empty()) {
        const SystemSample& s = r->system().back();
        cpu_->setText(num(s.cpuPercent, "%"));
        rss_->setText(num(s.rssMb, "MB", 0));
        gpu_->setText(num(s.gpuUtil, "%"));
        gpuMem_->setText(num(s.gpuMemMb, "MB", 0));
        read_->setText(num(s.readMbS, "MB/s"));
    } else {
        for (QLabel* l : {cpu_, rss_, gpu_, gpuMem_, read_}) l->setText(tr("n/a"));
    }
    const bool live = r->state() == RunState::kRunning;
    const bool starving = live && std::isfinite(wait) && wait > kStarvingDataWait;
    if (starving)
        banner_->setText(tr("<b>The GPU is starving:</b> the data loader cannot keep up (%1 % of the last interval was spent waiting "
                            "for data). Use more <tt>--loader-threads</tt>, or pack the data with <tt>streetgan-trainer data pack</tt>.")
                             .arg(100 * wait, 0, 'f', 0));
    banner_->setVisible(starving);
}

bool SystemPanel::bannerVisible() const { return !banner_->isHidden(); }

QString SystemPanel::valueText(const QString& name) const {
    auto* l = findChild<QLabel*>(name);
    return l ? l->text() : QString();
}

}  // namespace streetgan::ui
