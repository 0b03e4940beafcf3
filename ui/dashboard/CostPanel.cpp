#include "dashboard/CostPanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>
#include <cmath>

#include "base/run/Events.h"
#include "events/RunSeries.h"

namespace streetgan::ui {
namespace {

struct Instance {
    const char* name;
    double price;
};
// AWS on-demand list prices, USD per hour in us-east-1, as of 2026: change them here (and only
// here) when they move. The user's choice per host is saved; a custom price overrides the list.
const Instance kInstances[] = {{"p3.2xlarge", 3.06}, {"p3.8xlarge", 12.24}, {"p3.16xlarge", 24.48}, {"dl1.24xlarge", 13.11},
                               {"g5.xlarge", 1.006}, {"g5.2xlarge", 1.212}, {"g4dn.xlarge", 0.526}, {"p4d.24xlarge", 32.77}};
constexpr int kNameRole = Qt::UserRole + 1;

QString hms(double seconds) {
    if (seconds < 60) return QObject::tr("%1 s").arg(QLocale().toString(std::max(0.0, seconds), 'f', 1));  // a first tiny run: not 0:00:00
    const auto s = static_cast<qint64>(seconds);
    return QString("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QChar('0')).arg(s % 60, 2, 10, QChar('0'));
}

QString energyText(double joules) {
    const QLocale loc;
    const double kwh = joules / 3.6e6;
    if (kwh >= 0.1) return QObject::tr("%1 kWh").arg(loc.toString(kwh, 'f', 2));
    // Small runs: kWh alone would read 0.00; the Wh (or J) say how much.
    const QString small = joules >= 36 ? QObject::tr("%1 Wh").arg(loc.toString(joules / 3600, 'f', 2)) : QObject::tr("%1 J").arg(loc.toString(joules, 'f', 0));
    return kwh >= 0.001 ? QObject::tr("%1 kWh (%2)").arg(loc.toString(kwh, 'f', 4), small) : QObject::tr("< 0.001 kWh (%1)").arg(small);
}

}  // namespace

CostPanel::CostPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    form_ = new QFormLayout;
    layout->addLayout(form_);
    const auto label = [](const QString& name, const QString& tip) {
        auto* l = new QLabel(tr("n/a"));
        l->setObjectName(name);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        l->setToolTip(tip);
        return l;
    };
    hostRow_ = label(tr("Host"), tr("The remote host this run trains on; its price is saved for it"));
    preset_ = new QComboBox;
    preset_->setObjectName("Instance");
    preset_->setToolTip(tr("On-demand list price per hour (USD, us-east-1); pick \"custom\" and type a price for anything else"));
    preset_->addItem(tr("custom"), -1.0);
    preset_->setItemData(0, QString(kCustomInstance), kNameRole);
    for (const auto& i : kInstances) {
        preset_->addItem(QString("%1 ($%2/h)").arg(i.name).arg(QLocale().toString(i.price, 'f', i.price < 2 ? 3 : 2)), i.price);
        preset_->setItemData(preset_->count() - 1, QString(i.name), kNameRole);
    }
    price_ = new QDoubleSpinBox;
    price_->setObjectName("Price");
    price_->setRange(0, 1000);
    price_->setDecimals(3);
    price_->setPrefix("$ ");
    price_->setSuffix(tr(" /hour"));
    price_->setValue(3.06);
    preset_->setCurrentIndex(1);
    wall_ = label(tr("Wall time"), tr("From the run's first event to its latest (h:mm:ss; seconds under a minute)"));
    energy_ = label(tr("Energy"), QString());
    power_ = label(tr("Power"), tr("Mean power over the interval before the latest system reading"));
    perHour_ = label(tr("Images/hour"), tr("Training images per hour at the last interval's speed"));
    perDollar_ = label(tr("Images/$"), tr("Training images per dollar at the host's price"));
    perDollar_->setObjectName("imagesPerDollar");
    soFar_ = label(tr("Cost so far"), tr("Wall time so far at the host's price"));
    form_->addRow(tr("Host:"), hostRow_);
    form_->addRow(tr("Instance:"), preset_);
    form_->addRow(tr("Price:"), price_);
    form_->addRow(tr("Wall time:"), wall_);
    form_->addRow(tr("Energy:"), energy_);
    form_->addRow(tr("Power:"), power_);
    form_->addRow(tr("Images/hour:"), perHour_);
    form_->addRow(tr("Images/$:"), perDollar_);
    form_->addRow(tr("Cost so far:"), soFar_);
    note_ = new QLabel;
    note_->setObjectName("costNote");
    note_->setWordWrap(true);
    note_->setForegroundRole(QPalette::PlaceholderText);  // muted, following the theme
    note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    note_->setVisible(false);
    layout->addWidget(note_);
    connect(preset_, &QComboBox::currentIndexChanged, this, [this](int i) {
        const double p = preset_->itemData(i).toDouble();
        if (p < 0) return priceEdited();  // "custom": the price as it is, now typed
        if (std::abs(price_->value() - p) > 1e-9)
            price_->setValue(p);  // priceEdited() through valueChanged
        else
            priceEdited();
    });
    connect(price_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        const double p = preset_->currentData().toDouble();
        if (p >= 0 && std::abs(p - v) > 1e-9) {
            const QSignalBlocker block(preset_);  // a typed price: "custom", one change signal
            preset_->setCurrentIndex(0);
        }
        priceEdited();
    });
    update(nullptr);
}

void CostPanel::priceEdited() {
    recompute();
    emit priceChanged(price_->value());
    if (remote_ && !host_.isEmpty()) emit hostPriceChanged(host_, instance(), price_->value());
}

double CostPanel::pricePerHour() const { return price_->value(); }
void CostPanel::setPricePerHour(double d) { price_->setValue(d); }
QString CostPanel::instance() const { return preset_->currentData(kNameRole).toString(); }
QString CostPanel::imagesPerDollarText() const { return perDollar_->text(); }

void CostPanel::selectInstance(const QString& instance, double perHour) {
    const QSignalBlocker b1(preset_), b2(price_);
    int index = instance.isEmpty() || instance == kCustomInstance ? -1 : preset_->findData(instance, kNameRole);
    if (index < 0 && instance.isEmpty()) {  // never picked: the list entry with that price, if any
        for (int i = 1; i < preset_->count() && index < 0; ++i)
            if (std::abs(preset_->itemData(i).toDouble() - perHour) < 1e-9) index = i;
    }
    // A saved instance whose list price has changed since keeps the price saved (what was billed).
    if (index >= 0 && std::abs(preset_->itemData(index).toDouble() - perHour) > 1e-9) index = -1;
    preset_->setCurrentIndex(std::max(0, index));
    price_->setValue(perHour);
}

void CostPanel::setHost(const QString& label, const QString& instance, double perHour) {
    if (label == host_) return;
    host_ = label;
    selectInstance(instance, perHour);
    recompute();
}

void CostPanel::update(const RunSeries* r, const RunContext& where) {
    remote_ = where.remote;
    if (!remote_) host_.clear();
    hostRow_->setText(where.remote ? where.hostLabel : QString());
    for (QWidget* w : std::initializer_list<QWidget*>{hostRow_, preset_, price_, perDollar_, soFar_}) form_->setRowVisible(w, remote_);
    imgPerS_ = r ? r->lastValue(Metric::ImgPerS) : 0;
    // Wall time from the events' own clock (the first event to the latest), not this computer's:
    // a remote host's clock may differ, and a recorded run must not grow while it is looked at.
    double last = r && r->rows() > 0 ? r->wallTime(r->rows() - 1) : 0;
    if (r && !r->system().empty()) last = std::max(last, r->system().back().t);
    const double seconds = r && r->startTime() > 0 && last > 0 ? std::max(0.0, last - r->startTime()) : 0;
    hours_ = seconds / 3600.0;
    wall_->setText(r && r->startTime() > 0 ? hms(seconds) : tr("n/a"));

    // Energy: measured (what it counts in the note) or why not.
    QStringList notes;
    const double joules = r ? r->energyJoules() : std::nan("");
    const SystemSample* s = r && !r->system().empty() ? &r->system().back() : nullptr;
    const bool measured = std::isfinite(joules);
    form_->setRowVisible(energy_, measured);
    form_->setRowVisible(power_, measured && s && std::isfinite(s->powerW));
    if (measured) {
        energy_->setText(energyText(joules));
        power_->setText(s && std::isfinite(s->powerW) ? tr("%1 W").arg(QLocale().toString(s->powerW, 'f', 0)) : tr("n/a"));
        if (s && !s->energySource.empty()) {
            QString counts = tr("Energy counts: %1.").arg(QString::fromStdString(s->energySource));
            const auto gpu = s->unavailable.find(EventField::kUnavailableGpuEnergy);
            if (gpu != s->unavailable.end()) counts += ' ' + tr("GPU energy: not measurable — %1.").arg(QString::fromStdString(gpu->second));
            notes << counts;
        }
    } else if (!r) {
        notes << tr("No run selected.");
    } else if (!s) {
        notes << tr("Energy: waiting for the first system reading from %1…").arg(where.where());
    } else {
        QStringList why;
        const auto add = [&](const char* key, const QString& part) {
            const auto it = s->unavailable.find(key);
            if (it != s->unavailable.end()) why << (part.isEmpty() ? QString() : part + ": ") + QString::fromStdString(it->second);
        };
        const bool gpuRun = s->unavailable.count(EventField::kUnavailableGpuEnergy) > 0;
        add(EventField::kUnavailableCpuEnergy, gpuRun ? tr("CPU") : QString());
        add(EventField::kUnavailableGpuEnergy, tr("GPU"));
        notes
            << tr("Energy: not measurable — %1.").arg(why.isEmpty() ? tr("the trainer did not report it (a trainer without energy readings)") : why.join("; "));
    }
    note_->setText(notes.join('\n'));
    note_->setVisible(!notes.isEmpty());
    recompute();
}

void CostPanel::recompute() {
    const QLocale loc;
    if (!std::isfinite(imgPerS_) || imgPerS_ <= 0) {
        perHour_->setText(tr("n/a"));
        perDollar_->setText(tr("n/a"));
    } else {
        const double perHour = imgPerS_ * 3600;
        perHour_->setText(loc.toString(perHour, 'f', 0));
        perDollar_->setText(price_->value() > 0 ? loc.toString(perHour / price_->value(), 'f', 0) : tr("free"));
    }
    soFar_->setText(QString("$ %1").arg(loc.toString(hours_ * price_->value(), 'f', 2)));
}

QString CostPanel::valueText(const QString& name) const {
    auto* l = findChild<QLabel*>(name);
    return l ? l->text() : QString();
}

bool CostPanel::rowShown(const QString& name) const {
    QWidget* w = findChild<QWidget*>(name == tr("Images/$") ? QString("imagesPerDollar") : name);
    return w && form_->isRowVisible(w);
}

QString CostPanel::noteText() const { return note_->isHidden() ? QString() : note_->text(); }

}  // namespace streetgan::ui
