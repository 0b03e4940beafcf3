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

// Whether any kept reading has the field: a row shows once the run has measured it at all.
template <class Get>
bool measured(const RunSeries& r, Get get) {
    for (const SystemSample& s : r.system())
        if (std::isfinite(get(s))) return true;
    return false;
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
    form_ = new QFormLayout;
    auto add = [&](const QString& name, QLabel*& label, const QString& tip = {}) {
        label = new QLabel(tr("n/a"));
        label->setObjectName(name);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        label->setToolTip(tip);
        form_->addRow(name + ":", label);
    };
    add(tr("State"), state_);
    add(tr("Device"), device_);
    add(tr("Progress"), progress_);
    add(tr("Images/s"), imgs_, tr("Training images per second over the last logging interval"));
    add(tr("Data wait"), wait_, tr("Share of the last logging interval the trainer spent waiting for the data loader"));
    add(tr("Data read"), read_, tr("Bytes the trainer read per second (read() calls, page cache included; /proc/self/io)"));
    add(tr("CPU"), cpu_, tr("CPU time of the trainer's process, in % of one core (2 busy cores read 200 %)"));
    add(tr("Memory"), rss_, tr("Resident memory of the trainer's process"));
    add(tr("GPU"), gpu_, tr("GPU utilisation (NVML)"));
    add(tr("GPU memory"), gpuMem_, tr("GPU memory in use (NVML)"));
    layout->addLayout(form_);
    // Muted (the theme's placeholder colour, so it follows light and dark): what is hidden and why.
    note_ = new QLabel;
    note_->setObjectName("systemNote");
    note_->setWordWrap(true);
    note_->setForegroundRole(QPalette::PlaceholderText);
    note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    note_->setVisible(false);
    layout->addWidget(note_);
    layout->addStretch();
}

void SystemPanel::setShown(QLabel* row, bool shown) { form_->setRowVisible(row, shown); }

void SystemPanel::update(const RunSeries* r, const RunContext& where) {
    // Each label is set once per update (to its value or "n/a"): a label whose text changes is
    // laid out again, and this runs at the dashboard's frame rate (issue 48: little CPU).
    QLabel* const measuredRows[] = {read_, cpu_, rss_, gpu_, gpuMem_};
    QStringList notes;
    if (!r) {
        for (QLabel* l : {state_, device_, progress_, imgs_, wait_, read_, cpu_, rss_, gpu_, gpuMem_}) l->setText(tr("n/a"));
        for (QLabel* l : measuredRows) setShown(l, false);
        banner_->setVisible(false);
        note_->setText(tr("No run selected."));
        note_->setVisible(true);
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

    if (r->system().empty()) {
        for (QLabel* l : measuredRows) {
            l->setText(tr("n/a"));
            setShown(l, false);
        }
        notes << (r->ended() ? tr("No system readings: the run ended before the trainer wrote its first one.")
                             : tr("Waiting for the first system reading from %1…").arg(where.where()));
    } else {
        const SystemSample& s = r->system().back();
        cpu_->setText(num(s.cpuPercent, "%"));
        rss_->setText(num(s.rssMb, "MB", 0));
        gpu_->setText(num(s.gpuUtil, "%"));
        gpuMem_->setText(num(s.gpuMemMb, "MB", 0));
        read_->setText(num(s.readMbS, "MB/s"));
        // The reason the trainer gave (new events), else what the run's device says (older ones).
        const auto reason = [&](const char* key, const QString& fallback) {
            const auto it = s.unavailable.find(key);
            return it != s.unavailable.end() ? QString::fromStdString(it->second) : fallback;
        };
        const bool onCpu = r->device().rfind("cpu", 0) == 0;
        const QString notReported = tr("the trainer did not report it");
        // Rows never measured, grouped by reason (in row order), one line each.
        QList<QPair<QString, QStringList>> hidden;
        const auto hide = [&](QLabel* row, const QString& name, const QString& why) {
            setShown(row, false);
            for (auto& h : hidden)
                if (h.first == why) return void(h.second << name);
            hidden.append({why, {name}});
        };
        const auto show = [&](QLabel* row, bool on, const QString& name, const QString& why) { on ? setShown(row, true) : hide(row, name, why); };
        show(read_, measured(*r, [](const SystemSample& x) { return x.readMbS; }), tr("Data read"), reason(EventField::kUnavailableRead, notReported));
        show(cpu_, measured(*r, [](const SystemSample& x) { return x.cpuPercent; }), tr("CPU"), notReported);
        show(rss_, measured(*r, [](const SystemSample& x) { return x.rssMb; }), tr("Memory"), notReported);
        const QString gpuWhy = reason(EventField::kUnavailableGpu, onCpu ? tr("this run trains on the CPU") : notReported);
        show(gpu_, measured(*r, [](const SystemSample& x) { return x.gpuUtil; }), tr("GPU"), gpuWhy);
        show(gpuMem_, measured(*r, [](const SystemSample& x) { return x.gpuMemMb; }), tr("GPU memory"), gpuWhy);
        for (const auto& [why, names] : hidden) notes << tr("%1: not shown — %2.").arg(names.size() == 2 ? names.join(tr(" and ")) : names.join(", "), why);
    }
    note_->setText(notes.join('\n'));
    note_->setVisible(!notes.isEmpty());

    const bool live = r->state() == RunState::kRunning;
    const bool starving = live && std::isfinite(wait) && wait > kStarvingDataWait;
    // What to do: the trainer's own advice when it gave one (the threads this machine has for it,
    // or the exact data pack command), else the general rule.
    const QString what = r->loaderAdvice().empty() ? tr("Use more <tt>--loader-threads</tt>, or pack the data with <tt>streetgan-trainer data pack</tt>.")
                                                   : tr("The trainer says: %1").arg(QString::fromStdString(r->loaderAdvice()).toHtmlEscaped());
    if (starving)
        banner_->setText((r->device().rfind("cuda", 0) == 0 ? tr("<b>The GPU is starving:</b>") : tr("<b>Training is starving:</b>")) +
                         tr(" the data loader cannot keep up (%1 % of the last interval was spent waiting for data). ").arg(100 * wait, 0, 'f', 0) + what);
    banner_->setVisible(starving);
}

bool SystemPanel::bannerVisible() const { return !banner_->isHidden(); }

QString SystemPanel::bannerText() const { return banner_->text(); }

QString SystemPanel::valueText(const QString& name) const {
    auto* l = findChild<QLabel*>(name);
    return l ? l->text() : QString();
}

bool SystemPanel::rowShown(const QString& name) const {
    auto* l = findChild<QLabel*>(name);
    return l && form_->isRowVisible(l);
}

QString SystemPanel::noteText() const { return note_->isHidden() ? QString() : note_->text(); }

}  // namespace streetgan::ui
