#include "dashboard/CostPanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <cmath>

#include "events/RunSeries.h"

namespace streetgan::ui {
namespace {

struct Instance {
    const char* name;
    double price;
};
const Instance kInstances[] = {{"p2.xlarge", 0.90}, {"p2.8xlarge", 7.20}, {"p3.2xlarge", 3.06}, {"p3.8xlarge", 12.24}, {"dl1.24xlarge", 13.11}};

}  // namespace

CostPanel::CostPanel(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);
    preset_ = new QComboBox;
    preset_->addItem(tr("custom"), -1.0);
    for (const auto& i : kInstances) preset_->addItem(QString("%1 ($%2/h)").arg(i.name).arg(i.price, 0, 'f', 2), i.price);
    price_ = new QDoubleSpinBox;
    price_->setRange(0, 1000);
    price_->setDecimals(2);
    price_->setPrefix("$ ");
    price_->setSuffix(tr(" /hour"));
    price_->setValue(3.06);
    preset_->setCurrentIndex(3);
    perHour_ = new QLabel(tr("n/a"));
    perDollar_ = new QLabel(tr("n/a"));
    perDollar_->setObjectName("imagesPerDollar");
    soFar_ = new QLabel(tr("n/a"));
    form->addRow(tr("Instance:"), preset_);
    form->addRow(tr("Price:"), price_);
    form->addRow(tr("Images/hour:"), perHour_);
    form->addRow(tr("Images/$:"), perDollar_);
    form->addRow(tr("Cost so far:"), soFar_);
    connect(preset_, &QComboBox::currentIndexChanged, this, [this](int i) {
        const double p = preset_->itemData(i).toDouble();
        if (p >= 0) price_->setValue(p);
    });
    connect(price_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        const double p = preset_->currentData().toDouble();
        if (p >= 0 && std::abs(p - v) > 1e-9) preset_->setCurrentIndex(0);
        recompute();
        emit priceChanged(v);
    });
}

double CostPanel::pricePerHour() const { return price_->value(); }
void CostPanel::setPricePerHour(double d) { price_->setValue(d); }
QString CostPanel::imagesPerDollarText() const { return perDollar_->text(); }

void CostPanel::update(const RunSeries* r) {
    imgPerS_ = r ? r->lastValue(Metric::ImgPerS) : 0;
    hours_ = r && r->rows() > 0 ? std::max(0.0, r->x(XAxisMode::WallTime, r->rows() - 1)) / 3600.0 : 0;
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
    soFar_->setText(QString("$ %1").arg(hours_ * price_->value(), 0, 'f', 2));
}

}  // namespace streetgan::ui
