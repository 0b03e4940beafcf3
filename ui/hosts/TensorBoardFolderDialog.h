// "Watch TensorBoard runs on HOST": for a host with another trainer's event files (the reference
// project's Python trainer on a DL1 box, PyTorch Lightning...), which may have no streetgan-trainer
// at all. Searches the host's home folder for folders of TensorBoard runs (RemoteHost::
// findTensorBoardFolders: ~/runs, ~/logs, ~/lightning_logs..., then home to a bounded depth) and
// lists them with their runs; lets the user browse the host's folders over SFTP; "Watch" makes the
// chosen folder the host's runs folder (saved per host, listed at once: watchRequested); "Set up
// streetgan-trainer…" is the second choice, for starting runs from the app (setUpRequested).
// GUI thread; the host's worker does the remote work.
#pragma once

#include <QDialog>
#include <QPointer>
#include <QString>
#include <QStringList>

#include "remote/RemoteFolder.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace streetgan::ui {

class RemoteHost;

class TensorBoardFolderDialog : public QDialog {
    Q_OBJECT
public:
    TensorBoardFolderDialog(RemoteHost* host, QWidget* parent = nullptr);
    RemoteHost* host() const { return host_; }

    /// Starts the search of the host's home folder (the dialog does when shown first).
    void search();
    bool isSearching() const { return searching_; }
    /// The folders found, newest first (absolute paths).
    QStringList foundFolders() const;
    /// Lists `path` on the host in the browser (empty: the home folder).
    void browse(const QString& path);
    /// The folder Watch would choose: the browser's (a found folder once selected).
    QString chosenFolder() const;
    /// Presses Watch (tests); false when no folder is shown yet.
    bool watch();
    QString headerText() const;
    QString searchText() const;
    QString folderText() const;

signals:
    void watchRequested(const QString& folder);
    void setUpRequested();
    void searchFinished();
    void folderShown(const QString& path);

protected:
    void showEvent(QShowEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    QWidget* buildFound();
    QWidget* buildBrowser();
    void showFound(const QString& home, const RemoteFolderList& folders, int listed, bool cut, const QString& error);
    void showFolder(const RemoteFolder& folder);
    /// The wrapped labels as tall as their text at their width (a group box's layout gives a label
    /// set after the dialog was laid out the height of one line).
    void fitText();
    /// "~/runs" for HOME/runs.
    QString shortPath(const QString& path) const;
    QPointer<RemoteHost> host_;
    QString home_, shown_;
    bool searching_ = false, searched_ = false;
    QLabel *header_, *searchState_, *folderState_;
    QListWidget *found_, *folders_;
    QLineEdit* path_;
    QPushButton *up_, *watch_, *setUp_;
};

}  // namespace streetgan::ui
