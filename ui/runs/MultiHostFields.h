// New run's fields of a run across several SSH hosts (shown when "Train on" is "Several hosts"):
// a check-list of the hosts (each with why it cannot train now, if so), rank 0's host (the
// rendezvous, which holds the run folder) among the checked ones, and the ranks per host
// (`--nproc-per-node`). problem() is the one line that refuses the choice (fewer than two hosts
// checked, a checked host that cannot train now, hosts with different trainers), shown under the
// fields in red when the dialog is accepted.
// GUI thread.
#pragma once

#include <QList>
#include <QString>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;
class QVBoxLayout;

namespace streetgan::ui {

class MultiHostFields : public QWidget {
    Q_OBJECT
public:
    struct Host {
        QString label;
        QString unavailable;  ///< why it cannot train now; empty: it can
        QString trainer;      ///< the program the host runs (HostConfig::trainer)
    };
    explicit MultiHostFields(QWidget* parent = nullptr);
    /// The hosts of the check-list; those that can train now start checked.
    void setHosts(const QList<Host>& hosts);
    void setChecked(int host, bool on);
    /// Makes checked host `host` rank 0's.
    void setRank0(int host);
    void setNprocPerNode(int n);
    int nprocPerNode() const;
    /// The checked hosts (indices into setHosts' list), rank 0's first.
    QList<int> chosen() const;
    /// "" when the run may start; else the first problem's line.
    QString problem() const;
    /// Shows `line` under the fields (empty: hides it).
    void showProblem(const QString& line);

private:
    /// Rank 0's choices: the checked hosts (the one chosen stays chosen while checked).
    void syncRank0();
    QList<Host> hosts_;
    QList<QCheckBox*> boxes_;
    QVBoxLayout* list_;
    QComboBox* rank0_;
    QSpinBox* nproc_;
    QLabel* problem_;
};

}  // namespace streetgan::ui
