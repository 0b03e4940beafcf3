#include "app/SettingsDialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

#include "app/AppSettings.h"

namespace streetgan::ui {

SettingsDialog::SettingsDialog(AppSettings& settings, const QString& runsFolder, QWidget* parent)
    : QDialog(parent), settings_(settings), runsFolder_(runsFolder) {
    setObjectName("settingsDialog");
    setWindowTitle(tr("Settings — StreetGAN Studio"));
    auto* layout = new QVBoxLayout(this);

    auto* runs = new QGroupBox(tr("Runs folder"));
    auto* rl = new QVBoxLayout(runs);
    auto* row = new QHBoxLayout;
    folder_ = new QLineEdit(QDir::toNativeSeparators(runsFolder));
    folder_->setObjectName("runsFolderEdit");
    folder_->setMinimumWidth(360);
    auto* browse = new QPushButton(tr("Browse…"));
    browse->setObjectName("browseFolderButton");
    row->addWidget(folder_, 1);
    row->addWidget(browse);
    rl->addLayout(row);
    auto* hint = new QLabel(tr("New runs on this computer go here, and the runs list shows the runs in it."));
    hint->setWordWrap(true);
    rl->addWidget(hint);
    error_ = new QLabel;
    error_->setObjectName("settingsError");
    error_->setWordWrap(true);
    QFont ef = error_->font();
    ef.setBold(true);  // not red: a fixed colour may be unreadable on a dark or light theme
    error_->setFont(ef);
    error_->hide();
    rl->addWidget(error_);
    layout->addWidget(runs);

    auto* look = new QGroupBox(tr("Appearance"));
    auto* ll = new QVBoxLayout(look);
    system_ = new QRadioButton(tr("Follow the desktop"));
    system_->setObjectName("themeSystem");
    light_ = new QRadioButton(tr("Light"));
    light_->setObjectName("themeLight");
    dark_ = new QRadioButton(tr("Dark"));
    dark_->setObjectName("themeDark");
    for (QRadioButton* b : {system_, light_, dark_}) ll->addWidget(b);
    const QString theme = settings_.theme();
    (theme == "light" ? light_ : theme == "dark" ? dark_ : system_)->setChecked(true);
    layout->addWidget(look);

    auto* notes = new QGroupBox(tr("Notifications"));
    auto* nl = new QVBoxLayout(notes);
    notifications_ = new QCheckBox(tr("Desktop notifications when a run finishes, crashes, stalls or starves for data"));
    notifications_->setObjectName("notificationsCheck");
    notifications_->setChecked(settings_.notificationsEnabled());
    nl->addWidget(notifications_);
    layout->addWidget(notes);
    layout->addStretch();

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::Apply);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (apply()) accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::Apply), &QPushButton::clicked, this, [this] { apply(); });
    connect(folder_, &QLineEdit::textEdited, this, [this] { showError({}); });
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Where should StreetGAN keep its runs?"), folder_->text());
        if (!d.isEmpty()) folder_->setText(QDir::toNativeSeparators(d));
    });
}

QString SettingsDialog::chosenTheme() const { return light_->isChecked() ? "light" : dark_->isChecked() ? "dark" : "system"; }

QString SettingsDialog::errorText() const { return error_->isHidden() ? QString() : error_->text(); }

void SettingsDialog::showError(const QString& text) {
    error_->setText(text.isEmpty() ? QString() : QStringLiteral("⚠ ") + text);
    error_->setVisible(!text.isEmpty());
}

bool SettingsDialog::apply() {
    const QString dir = AppSettings::folderFromText(folder_->text());
    if (dir.isEmpty()) {
        showError(tr("No runs folder: type one, or choose one with Browse…."));
        return false;
    }
    // Also when unchanged but not remembered yet (the first start's folder, not acted on yet).
    if (dir != runsFolder_ || settings_.workspace() != dir) {
        if (const QString why = AppSettings::prepareWorkspace(dir); !why.isEmpty()) {
            showError(tr("%1: choose a folder you can write to (Browse…).").arg(why));
            return false;
        }
        settings_.setWorkspace(dir);
        if (dir != runsFolder_) {
            runsFolder_ = dir;
            emit workspaceChanged(dir);
        }
    }
    showError({});
    folder_->setText(QDir::toNativeSeparators(dir));
    if (const QString theme = chosenTheme(); theme != settings_.theme()) {
        settings_.setTheme(theme);
        emit themeChanged(theme);
    }
    settings_.setNotificationsEnabled(notifications_->isChecked());
    return true;
}

}  // namespace streetgan::ui
