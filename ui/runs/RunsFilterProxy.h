// The runs sidebar's filter: keeps the runs whose name or host (the delegate's second line)
// contains the text, case-insensitive, and the groups (this computer, a host) that keep a run, or
// that have no runs listed yet and whose own label matches. Rows keep the model's order. GUI thread.
#pragma once

#include <QSortFilterProxyModel>

namespace streetgan::ui {

class RunsFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit RunsFilterProxy(QObject* parent = nullptr);
    void setText(const QString& text);
    QString text() const { return text_; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString text_;
};

}  // namespace streetgan::ui
