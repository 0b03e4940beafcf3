// File → Settings…: the runs folder (field and Browse…), the appearance (follow the desktop,
// light or dark) and desktop notifications. It shows what AppSettings holds and, on OK or Apply,
// stores the changes there and says what changed (workspaceChanged, themeChanged); the window
// applies them (the sidebar's folder, the theme). A runs folder that cannot be created keeps the
// dialog open with a one-line error. GUI thread.
#pragma once

#include <QDialog>

class QAbstractButton;
class QCheckBox;
class QLabel;
class QLineEdit;
class QRadioButton;

namespace streetgan::ui {

class AppSettings;

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    /// `settings` outlives the dialog; `runsFolder` is the folder in use (the sidebar's).
    SettingsDialog(AppSettings& settings, const QString& runsFolder, QWidget* parent = nullptr);

    /// Stores the choices (what OK and Apply do); false, with the error shown, when the runs folder
    /// cannot be created.
    bool apply();
    QString errorText() const;

signals:
    /// The runs folder changed to `dir` (it exists; AppSettings holds it already).
    void workspaceChanged(const QString& dir);
    /// The theme changed: "system", "light" or "dark" (AppSettings holds it already).
    void themeChanged(const QString& theme);

private:
    QString chosenTheme() const;
    void showError(const QString& text);

    AppSettings& settings_;
    QString runsFolder_;  ///< in use (applied)
    QLineEdit* folder_;
    QLabel* error_;
    QRadioButton *system_, *light_, *dark_;
    QCheckBox* notifications_;
};

}  // namespace streetgan::ui
