// The page shown while no run is open: what the app does, at a glance, in three cards — Train
// (a tiny CPU run in one click, a new run, a GPU box over SSH), Monitor (open a run) and Explore
// (the demo model) — each with its action buttons. On the first start it also shows the runs
// folder, pre-filled (defaultRunsFolder() unless the caller gives another) and changeable, instead
// of a modal dialog; later starts show the recent runs there instead. The page only asks (signals);
// MainWindow acts and remembers (AppSettings). In first-start mode an action first makes the folder
// (mkpath): when that fails the page says so in one line and the action is not asked for;
// otherwise workspaceChosen(folder) comes before the action's signal. GUI thread.
#pragma once

#include <QStringList>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QGridLayout;
class QWidget;

namespace streetgan::ui {

class WelcomePage : public QWidget {
    Q_OBJECT
public:
    /// Recent runs listed after the first start.
    static constexpr int kMaxRecentShown = 5;
    /// The runs folder offered on the first start: the XDG data location,
    /// $XDG_DATA_HOME/streetgan/runs (~/.local/share/streetgan/runs).
    static QString defaultRunsFolder();

    explicit WelcomePage(QWidget* parent = nullptr);

    /// First start: the runs-folder prompt; otherwise the recent runs.
    void setFirstStart(bool on);
    bool isFirstStart() const { return firstStart_; }
    /// The runs folder shown (pre-filled on the first start, named in the later page's hint).
    void setRunsFolder(const QString& dir);
    /// The folder in the field (trimmed, "~" expanded, absolute); empty when the field is.
    QString runsFolder() const;
    /// Recent run folders, newest first; the first kMaxRecentShown that still exist are listed.
    void setRecentRuns(const QStringList& runDirs);
    /// The runs listed under "Recent runs" (tests).
    QStringList shownRecentRuns() const { return shownRecent_; }
    /// The one-line error under the folder field (empty when none).
    QString errorText() const;

signals:
    void tinyRunRequested();
    void newRunRequested();
    void connectRequested();
    void openRunRequested();
    void exploreDemoRequested();
    void recentRunRequested(const QString& runDir);
    /// The user accepted (first start: acted with it) or picked (Change…) this runs folder; it exists.
    void workspaceChosen(const QString& dir);

private:
    QWidget* buildFolderBox();
    QWidget* buildRecentBox();
    QWidget* card(const QString& title, const QString& text, const QList<QPushButton*>& buttons);
    /// First start: makes the folder and emits workspaceChosen; false (and the error shown) when it
    /// cannot be made. Later starts: true.
    bool acceptFolder();
    void changeFolder();
    void showError(const QString& text);
    void updateMode();

    bool firstStart_ = false;
    QWidget* folderBox_;
    QLineEdit* folder_;
    QLabel* error_;
    QWidget* recentBox_;
    QGridLayout* recentList_;  ///< two columns: five runs fit under the cards at 1280x800
    QLabel* noRecent_;
    QLabel* folderHint_;
    QStringList shownRecent_;
};

}  // namespace streetgan::ui
