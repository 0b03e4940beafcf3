// What the run costs, honestly. Every run: the wall time so far, images per hour, and the energy
// the trainer measured (kWh and the last interval's power, from the system events' energy_j and
// power_w) or one muted line saying why it is not measurable. A remote run also: the host's
// instance type (a picker of on-demand list prices, or a custom price per hour), images per
// dollar and the cost so far. A local run shows no cloud price: it is not billed by the hour.
// The price is per host: MainWindow hands the saved one in with setHost() and saves the user's
// changes from hostPriceChanged (AppSettings lives in app/, which dashboard/ may not include).
// GUI thread.
#pragma once

#include <QWidget>

#include "dashboard/RunContext.h"

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;

namespace streetgan::ui {

class RunSeries;

class CostPanel : public QWidget {
    Q_OBJECT
public:
    /// The instance name saved for a typed price.
    static constexpr char kCustomInstance[] = "custom";

    explicit CostPanel(QWidget* parent = nullptr);
    void update(const RunSeries* run, const RunContext& where = {});
    /// The remote host `label` the next update() shows, billed as `instance` (a picker entry, or
    /// kCustomInstance / "" for a typed price) at `perHour` dollars. Does not emit; a call for the
    /// host already shown changes nothing (it would undo what the user is typing).
    void setHost(const QString& label, const QString& instance, double perHour);
    QString hostLabel() const { return host_; }
    double pricePerHour() const;
    /// The picker's instance name, or kCustomInstance.
    QString instance() const;
    /// Sets the price as if typed (emits priceChanged and, for a host, hostPriceChanged).
    void setPricePerHour(double dollars);
    QString imagesPerDollarText() const;
    /// A row's value ("Wall time", "Energy", "Power", "Images/hour", "Cost so far").
    QString valueText(const QString& name) const;
    /// Whether the row of `name` shows (also "Instance", "Price", "Images/$").
    bool rowShown(const QString& name) const;
    /// The muted note (why energy is not measured, what it counts); "" when none.
    QString noteText() const;

signals:
    void priceChanged(double dollars);
    /// The user picked an instance or typed a price for the remote host `label`.
    void hostPriceChanged(const QString& label, const QString& instance, double perHour);

private:
    void recompute();
    void selectInstance(const QString& instance, double perHour);
    void priceEdited();
    QFormLayout* form_;
    QComboBox* preset_;
    QDoubleSpinBox* price_;
    QLabel *hostRow_, *wall_, *energy_, *power_, *perHour_, *perDollar_, *soFar_, *note_;
    double imgPerS_ = 0, hours_ = 0;
    bool remote_ = false;
    QString host_;
};

}  // namespace streetgan::ui
