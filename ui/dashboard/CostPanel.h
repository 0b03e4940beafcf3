// What the run costs: the instance's price per hour (presets of common GPU instances, editable)
// turned live into images per hour, images per dollar and the cost so far. GUI thread.
#pragma once

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;

namespace streetgan::ui {

class RunSeries;

class CostPanel : public QWidget {
    Q_OBJECT
public:
    explicit CostPanel(QWidget* parent = nullptr);
    void update(const RunSeries* run);
    double pricePerHour() const;
    void setPricePerHour(double dollars);
    QString imagesPerDollarText() const;

signals:
    void priceChanged(double dollars);

private:
    void recompute();
    QComboBox* preset_;
    QDoubleSpinBox* price_;
    QLabel *perHour_, *perDollar_, *soFar_;
    double imgPerS_ = 0, hours_ = 0;
};

}  // namespace streetgan::ui
