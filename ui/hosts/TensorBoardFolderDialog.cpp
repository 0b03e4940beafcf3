#include "hosts/TensorBoardFolderDialog.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "remote/RemoteHost.h"

namespace streetgan::ui {
namespace {

/// "1 run", "3 runs" (the app ships no translations: QObject::tr's %n would print "run(s)").
QString count(qsizetype n, const char* one, const char* many) { return n == 1 ? QObject::tr(one) : QObject::tr(many).arg(n); }

QString age(qint64 mtime) {
    if (mtime <= 0) return {};
    const qint64 s = QDateTime::currentSecsSinceEpoch() - mtime;
    if (s < 120) return QObject::tr("written just now");
    if (s < qint64{2} * 3600) return QObject::tr("newest %1 min ago").arg(s / 60);
    if (s < qint64{2} * 86400) return QObject::tr("newest %1 h ago").arg(s / 3600);
    return QObject::tr("newest %1 days ago").arg(s / 86400);
}

}  // namespace

TensorBoardFolderDialog::TensorBoardFolderDialog(RemoteHost* host, QWidget* parent) : QDialog(parent), host_(host) {
    setWindowTitle(tr("Watch TensorBoard runs on %1").arg(host->label()));
    setObjectName("tensorBoardFolderDialog");
    header_ = new QLabel(this);
    header_->setObjectName("tbFolderHeader");
    header_->setWordWrap(true);
    const TrainerStatus& t = host->trainerStatus();
    if (t.state == TrainerStatus::Missing)
        header_->setText(tr("%1 has no streetgan-trainer. You can watch the TensorBoard runs already there — any trainer that writes "
                            "event files, such as the reference project's or PyTorch Lightning — over SFTP, with nothing to install. "
                            "To start runs from this app, set up streetgan-trainer instead (you can do both).")
                             .arg(host->label()));
    else
        header_->setText(tr("Choose the folder on %1 that holds TensorBoard runs (event files of any trainer): it becomes the host's "
                            "runs folder, and its runs are listed at once.")
                             .arg(host->label()));
    auto* buttons = new QDialogButtonBox(this);
    watch_ = buttons->addButton(tr("Watch TensorBoard runs here"), QDialogButtonBox::AcceptRole);
    watch_->setObjectName("tbFolderWatch");
    watch_->setEnabled(false);
    watch_->setDefault(true);
    setUp_ = buttons->addButton(tr("Set up streetgan-trainer…"), QDialogButtonBox::ActionRole);
    setUp_->setObjectName("tbFolderSetUp");
    buttons->addButton(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(watch_, &QPushButton::clicked, this, [this] { watch(); });
    connect(setUp_, &QPushButton::clicked, this, [this] {
        emit setUpRequested();
        accept();
    });
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(header_);
    layout->addWidget(buildFound());
    layout->addWidget(buildBrowser(), 1);
    layout->addWidget(buttons);
    resize(640, 560);
    connect(host, &RemoteHost::tensorBoardFoldersFound, this, &TensorBoardFolderDialog::showFound);
    connect(host, &RemoteHost::folderListed, this, &TensorBoardFolderDialog::showFolder);
}

QWidget* TensorBoardFolderDialog::buildFound() {
    auto* box = new QGroupBox(tr("Found on the host"), this);
    searchState_ = new QLabel(box);
    searchState_->setObjectName("tbFolderSearchState");
    searchState_->setWordWrap(true);
    found_ = new QListWidget(box);
    found_->setObjectName("tbFolderFound");
    found_->setMaximumHeight(130);
    connect(found_, &QListWidget::currentRowChanged, this, [this](int row) {
        if (QListWidgetItem* item = found_->item(row)) browse(item->data(Qt::UserRole).toString());
    });
    connect(found_, &QListWidget::itemDoubleClicked, this, [this] { watch(); });
    auto* l = new QVBoxLayout(box);
    l->addWidget(searchState_);
    l->addWidget(found_);
    return box;
}

QWidget* TensorBoardFolderDialog::buildBrowser() {
    auto* box = new QGroupBox(tr("Or browse the host's folders"), this);
    path_ = new QLineEdit(box);
    path_->setObjectName("tbFolderPath");
    path_->setPlaceholderText(tr("a folder on the host (~ is the home folder)"));
    up_ = new QPushButton(tr("Up"), box);
    up_->setObjectName("tbFolderUp");
    connect(path_, &QLineEdit::returnPressed, this, [this] { browse(path_->text().trimmed()); });
    connect(up_, &QPushButton::clicked, this, [this] {
        const int slash = static_cast<int>(shown_.lastIndexOf('/'));
        if (slash > 0)
            browse(shown_.left(slash));
        else if (slash == 0 && shown_.size() > 1)
            browse("/");
    });
    folders_ = new QListWidget(box);
    folders_->setObjectName("tbFolderBrowser");
    connect(folders_, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { browse(shown_ == "/" ? "/" + item->text() : shown_ + "/" + item->text()); });
    folderState_ = new QLabel(box);
    folderState_->setObjectName("tbFolderState");
    folderState_->setWordWrap(true);
    auto* row = new QHBoxLayout;
    row->addWidget(path_, 1);
    row->addWidget(up_);
    auto* l = new QVBoxLayout(box);
    l->addLayout(row);
    l->addWidget(folders_, 1);
    l->addWidget(folderState_);
    return box;
}

void TensorBoardFolderDialog::showEvent(QShowEvent* e) {
    QDialog::showEvent(e);
    if (!searched_ && !searching_) search();
}

void TensorBoardFolderDialog::resizeEvent(QResizeEvent* e) {
    QDialog::resizeEvent(e);
    fitText();
}

void TensorBoardFolderDialog::fitText() {
    for (QLabel* l : {header_, searchState_, folderState_})
        if (l->width() > 0) l->setMinimumHeight(l->heightForWidth(l->width()));
}

void TensorBoardFolderDialog::search() {
    if (!host_ || searching_) return;
    searching_ = true;
    searchState_->setText(tr("Looking in ~/runs, ~/logs, ~/lightning_logs and the home folder of %1…").arg(host_->label()));
    host_->findTensorBoardFolders();
    fitText();
}

void TensorBoardFolderDialog::showFound(const QString& home, const RemoteFolderList& folders, int listed, bool cut, const QString& error) {
    searching_ = false;
    searched_ = true;
    home_ = home;
    found_->clear();
    if (!error.isEmpty()) {
        searchState_->setText(tr("The search failed: %1. Type a folder below instead.").arg(error));
    } else if (folders.isEmpty()) {
        searchState_->setText((cut ? tr("No TensorBoard runs in the %1 searched under %2 (the search stops there): browse below.")
                                   : tr("No TensorBoard runs under %2 (%1 searched): browse below, or set up streetgan-trainer."))
                                  .arg(count(listed, "1 folder", "%1 folders"), shortPath(home)));
    } else {
        searchState_->setText(tr("%1 with TensorBoard runs (%2 searched). Select one, or browse below.")
                                  .arg(count(folders.size(), "1 folder", "%1 folders"), count(listed, "1 folder", "%1 folders")));
        for (const RemoteFolder& f : folders) {
            QStringList names = f.runs.mid(0, 4);
            if (f.runs.size() > 4) names << tr("…");
            auto* item = new QListWidgetItem(tr("%1 — %2: %3").arg(shortPath(f.path), count(f.runs.size(), "1 run", "%1 runs"), names.join(", ")) +
                                             (f.newest > 0 ? " · " + age(f.newest) : QString()));
            item->setData(Qt::UserRole, f.path);
            item->setToolTip(f.path + "\n" + f.runs.join("\n"));
            found_->addItem(item);
        }
    }
    if (found_->count() > 0) {
        found_->setCurrentRow(0);  // the newest: the browser shows it, Watch takes it
    } else {
        setUp_->setDefault(true);  // nothing to watch found: the set-up is the likelier wish
        if (shown_.isEmpty()) browse(QString());
    }
    fitText();
    emit searchFinished();
}

void TensorBoardFolderDialog::browse(const QString& path) {
    if (!host_) return;
    folderState_->setText(tr("Listing %1…").arg(path.isEmpty() ? tr("the home folder") : path));
    watch_->setEnabled(false);  // until the folder asked for is the one shown
    host_->listFolder(path);
}

void TensorBoardFolderDialog::showFolder(const RemoteFolder& folder) {
    if (!folder.error.isEmpty()) {
        folderState_->setText(tr("Cannot list %1: %2").arg(folder.path.isEmpty() ? path_->text() : folder.path, folder.error));
        watch_->setEnabled(!shown_.isEmpty());
        fitText();
        return;  // the folder shown before stays (and stays the choice)
    }
    shown_ = folder.path;
    path_->setText(folder.path);
    folders_->clear();
    folders_->addItems(folder.folders);
    up_->setEnabled(shown_ != "/");
    watch_->setEnabled(true);
    if (folder.ourRun)
        folderState_->setText(tr("%1 is a run of streetgan-trainer: watch the folder that holds it.").arg(shortPath(shown_)));
    else if (folder.eventFiles > 0)
        folderState_->setText(
            tr("%1 holds %2: it is a TensorBoard run itself.").arg(shortPath(shown_), count(folder.eventFiles, "1 event file", "%1 event files")));
    else
        folderState_->setText(tr("Watch lists the TensorBoard runs in %1 and up to three folders below it.").arg(shortPath(shown_)));
    fitText();
    emit folderShown(shown_);
}

QString TensorBoardFolderDialog::shortPath(const QString& path) const {
    if (!home_.isEmpty() && path == home_) return "~";
    if (!home_.isEmpty() && path.startsWith(home_ + "/")) return "~" + path.mid(home_.size());
    return path;
}

QStringList TensorBoardFolderDialog::foundFolders() const {
    QStringList out;
    for (int i = 0; i < found_->count(); ++i) out << found_->item(i)->data(Qt::UserRole).toString();
    return out;
}

QString TensorBoardFolderDialog::chosenFolder() const { return shown_; }

bool TensorBoardFolderDialog::watch() {
    if (shown_.isEmpty()) return false;
    emit watchRequested(shown_);
    accept();
    return true;
}

QString TensorBoardFolderDialog::headerText() const { return header_->text(); }
QString TensorBoardFolderDialog::searchText() const { return searchState_->text(); }
QString TensorBoardFolderDialog::folderText() const { return folderState_->text(); }

}  // namespace streetgan::ui
