// A folder on a remote host as the TensorBoard-folder dialog shows it: a watch folder found by
// TensorBoardDiscovery (its runs, its newest event file) or one folder listed while the user
// browses the host's tree (its sub-folders, the event files right in it). A value type for
// signals between RemoteHostWorker and the GUI; any thread.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

namespace streetgan::ui {

struct RemoteFolder {
    QString path;         ///< absolute on the host
    QStringList runs;     ///< found: the TensorBoard runs under it, as the Runs list names them
    qint64 newest = 0;    ///< found: the newest event file's modification time (seconds since the epoch)
    QStringList folders;  ///< listed: its sub-folders (not hidden ones), sorted
    int eventFiles = 0;   ///< listed: event files right in it (it is a TensorBoard run itself)
    bool ourRun = false;  ///< listed: one of our runs (run.json or events.jsonl)
    QString error;        ///< listed: why it could not be read (the rest is empty then)
};
using RemoteFolderList = QList<RemoteFolder>;

}  // namespace streetgan::ui

Q_DECLARE_METATYPE(streetgan::ui::RemoteFolder)
