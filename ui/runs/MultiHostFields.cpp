#include "runs/MultiHostFields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

namespace streetgan::ui {

MultiHostFields::MultiHostFields(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    auto* list = new QWidget;
    list_ = new QVBoxLayout(list);
    list_->setContentsMargins(0, 0, 0, 0);
    rank0_ = new QComboBox;
    rank0_->setObjectName("multiHostRank0");
    rank0_->setToolTip(tr("Rank 0's host: the rendezvous every rank meets at, and where the run folder is written and listed"));
    nproc_ = new QSpinBox;
    nproc_->setObjectName("multiHostNproc");
    nproc_->setRange(1, 1024);  // MultiHostRunLauncher's range
    nproc_->setToolTip(tr("Ranks on each host (--nproc-per-node): one per GPU there; ranks = hosts × this"));
    auto* note = new QLabel(tr("Every host needs the trainer and the training data at the same path."));
    note->setWordWrap(true);
    problem_ = new QLabel;
    problem_->setObjectName("multiHostProblem");
    problem_->setWordWrap(true);
    problem_->setStyleSheet("color: #b00020");  // the dialogs' error red
    problem_->hide();
    form->addRow(tr("Hosts:"), list);
    form->addRow(tr("Rank 0 on:"), rank0_);
    form->addRow(tr("Ranks per host:"), nproc_);
    form->addRow(note);
    form->addRow(problem_);
}

void MultiHostFields::setHosts(const QList<Host>& hosts) {
    qDeleteAll(boxes_);
    boxes_.clear();
    hosts_ = hosts;
    for (int i = 0; i < hosts.size(); ++i) {
        const Host& h = hosts[i];
        // A host that cannot train stays listed with the reason: checking it is refused by name.
        auto* box = new QCheckBox(h.unavailable.isEmpty() ? h.label : tr("%1 — %2").arg(h.label, h.unavailable));
        box->setObjectName(QString("multiHost%1").arg(i));
        box->setChecked(h.unavailable.isEmpty());
        connect(box, &QCheckBox::toggled, this, [this] {
            syncRank0();
            showProblem({});
        });
        list_->addWidget(box);
        boxes_ << box;
    }
    syncRank0();
}

void MultiHostFields::setChecked(int host, bool on) {
    if (QCheckBox* b = boxes_.value(host)) b->setChecked(on);
}

void MultiHostFields::setRank0(int host) {
    const int at = rank0_->findData(host);
    if (at >= 0) rank0_->setCurrentIndex(at);
}

void MultiHostFields::setNprocPerNode(int n) { nproc_->setValue(n); }
int MultiHostFields::nprocPerNode() const { return nproc_->value(); }

void MultiHostFields::syncRank0() {
    const QVariant was = rank0_->currentData();
    rank0_->clear();
    for (int i = 0; i < boxes_.size(); ++i)
        if (boxes_[i]->isChecked()) rank0_->addItem(hosts_[i].label, i);
    const int at = rank0_->findData(was);
    rank0_->setCurrentIndex(at >= 0 ? at : 0);
}

QList<int> MultiHostFields::chosen() const {
    QList<int> out;
    const int first = rank0_->currentData().isValid() ? rank0_->currentData().toInt() : -1;
    if (first >= 0) out << first;
    for (int i = 0; i < boxes_.size(); ++i)
        if (boxes_[i]->isChecked() && i != first) out << i;
    return out;
}

QString MultiHostFields::problem() const {
    const QList<int> hosts = chosen();
    if (hosts.size() < 2) return tr("Check two hosts or more: a run across hosts has ranks on each (%n checked).", nullptr, static_cast<int>(hosts.size()));
    for (int i : hosts)
        if (!hosts_[i].unavailable.isEmpty())
            return tr("%1 cannot train now (%2): connect it (File → Connect to host…) or uncheck it.").arg(hosts_[i].label, hosts_[i].unavailable);
    // One trainer runs on every host (the launcher's command line): a path that differs per host
    // would start rank 0's program where it does not exist.
    for (int i : hosts)
        if (hosts_[i].trainer != hosts_[hosts.front()].trainer)
            return tr("%1 runs %2 and %3 runs %4: a run across hosts runs one trainer path on every host; install it at the same path on each (or on "
                      "each PATH) and set that path for both hosts.")
                .arg(hosts_[hosts.front()].label, hosts_[hosts.front()].trainer, hosts_[i].label, hosts_[i].trainer);
    return {};
}

void MultiHostFields::showProblem(const QString& line) {
    problem_->setText(line);
    problem_->setVisible(!line.isEmpty());
}

}  // namespace streetgan::ui
