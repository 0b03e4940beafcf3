#include "app/WelcomePage.h"

#include <QCommandLinkButton>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QStandardPaths>
#include <QVBoxLayout>

#include "app/AppSettings.h"

namespace streetgan::ui {

namespace {

// "~/…" for folders under the home directory: shorter, and what a newcomer recognises.
QString shortPath(const QString& path) {
    const QString home = QDir::homePath();
    if (path == home) return "~";
    if (path.startsWith(home + "/")) return "~" + path.mid(home.size());
    return path;
}

QLabel* heading(const QString& text, double scale) {
    auto* l = new QLabel(text);
    QFont f = l->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * scale);
    l->setFont(f);
    return l;
}

QPushButton* button(const QString& text, const char* name) {
    auto* b = new QPushButton(text);
    b->setObjectName(name);
    b->setMinimumHeight(34);
    return b;
}

}  // namespace

QString WelcomePage::defaultRunsFolder() { return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + "/streetgan/runs"; }

WelcomePage::WelcomePage(QWidget* parent) : QWidget(parent) {
    setObjectName("welcomePage");
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    // A scroll area so that a short window (or a large font) never clips the buttons.
    auto* scroll = new QScrollArea;
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    outer->addWidget(scroll);
    auto* canvas = new QWidget;
    scroll->setWidget(canvas);
    auto* canvasLayout = new QVBoxLayout(canvas);
    canvasLayout->setContentsMargins(24, 16, 24, 16);
    auto* content = new QWidget;
    content->setMaximumWidth(1000);  // centred; lines longer than this are hard to read
    auto* row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(content, 100);
    row->addStretch(1);
    canvasLayout->addStretch(1);
    canvasLayout->addLayout(row);
    canvasLayout->addStretch(2);

    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(10);
    layout->addWidget(heading(tr("StreetGAN Studio"), 1.8));
    auto* intro = new QLabel(tr("Train DCGAN models on street photos, watch them learn, and explore what they learned."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    layout->addSpacing(6);

    auto* tiny = button(tr("Start a tiny CPU run on synthetic streets"), "tinyRunButton");
    tiny->setDefault(true);
    tiny->setToolTip(tr("A 32x32 model on generated street scenes: a few minutes on this computer's CPU, no data to download"));
    auto* newRun = button(tr("New run…"), "newRunButton");
    newRun->setToolTip(tr("Choose the data, the model size and the steps, here or on a connected GPU box (Ctrl+N)"));
    auto* connectBox = button(tr("Connect to a GPU box…"), "connectButton");
    connectBox->setToolTip(tr("Train on a remote machine over SSH and follow its runs here (Ctrl+Shift+O)"));
    auto* open = button(tr("Open run…"), "openRunButton");
    open->setToolTip(tr("Open a run folder (one with events.jsonl, or another trainer's TensorBoard logs), finished or still training (Ctrl+O)"));
    auto* demo = button(tr("Explore the demo model"), "exploreDemoButton");
    demo->setToolTip(tr("Latent walks through synthetic streets with the model that ships with the app"));

    layout->addWidget(card(tr("Train"), tr("Train a GAN here on the CPU or GPU, or on a remote GPU box over SSH."), {tiny, newRun, connectBox}));
    layout->addWidget(card(tr("Monitor"), tr("Follow a run live: losses, D(x) and D(G(z)), throughput, data starvation, cost and sample grids."), {open}));
    layout->addWidget(card(tr("Explore"), tr("Browse checkpoints, walk through the latent space, export GIF, PNG or video."), {demo}));
    layout->addSpacing(6);

    layout->addWidget(buildFolderBox());
    layout->addWidget(buildRecentBox());

    auto act = [this](QPushButton* b, void (WelcomePage::*signal)()) {
        connect(b, &QPushButton::clicked, this, [this, signal] {
            if (acceptFolder()) emit(this->*signal)();
        });
    };
    act(tiny, &WelcomePage::tinyRunRequested);
    act(newRun, &WelcomePage::newRunRequested);
    act(connectBox, &WelcomePage::connectRequested);
    act(open, &WelcomePage::openRunRequested);
    act(demo, &WelcomePage::exploreDemoRequested);
    updateMode();
}

// First start: the runs folder, pre-filled and changeable (no modal dialog).
QWidget* WelcomePage::buildFolderBox() {
    folderBox_ = new QWidget;
    auto* fl = new QVBoxLayout(folderBox_);
    fl->setContentsMargins(0, 0, 0, 0);
    fl->addWidget(heading(tr("Runs folder"), 1.0));
    auto* fieldRow = new QHBoxLayout;
    folder_ = new QLineEdit;
    folder_->setObjectName("runsFolderEdit");
    folder_->setToolTip(tr("Each run gets its own folder in here (events, checkpoints, samples)"));
    auto* change = new QPushButton(tr("Change…"));
    change->setObjectName("changeFolderButton");
    fieldRow->addWidget(folder_, 1);
    fieldRow->addWidget(change);
    fl->addLayout(fieldRow);
    auto* later = new QLabel(tr("Your runs are kept here. You can change it later in Settings (File → Settings…)."));
    later->setWordWrap(true);
    fl->addWidget(later);
    error_ = new QLabel;
    error_->setObjectName("runsFolderError");
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont ef = error_->font();
    ef.setBold(true);  // bold, not red: a fixed colour may be unreadable on a dark or light theme
    error_->setFont(ef);
    error_->hide();
    fl->addWidget(error_);

    connect(change, &QPushButton::clicked, this, [this] { changeFolder(); });
    connect(folder_, &QLineEdit::textEdited, this, [this] { showError({}); });
    return folderBox_;
}

// Later starts: the recent runs.
QWidget* WelcomePage::buildRecentBox() {
    recentBox_ = new QWidget;
    auto* rl = new QVBoxLayout(recentBox_);
    rl->setContentsMargins(0, 0, 0, 0);
    rl->setSpacing(2);
    rl->addWidget(heading(tr("Recent runs"), 1.0));
    recentList_ = new QGridLayout;
    recentList_->setSpacing(0);
    recentList_->setColumnStretch(0, 1);
    recentList_->setColumnStretch(1, 1);
    rl->addLayout(recentList_);
    noRecent_ = new QLabel(tr("No runs yet: start one above."));
    rl->addWidget(noRecent_);
    folderHint_ = new QLabel;
    folderHint_->setObjectName("runsFolderHint");
    folderHint_->setWordWrap(true);
    rl->addSpacing(6);
    rl->addWidget(folderHint_);

    return recentBox_;
}

QWidget* WelcomePage::card(const QString& title, const QString& text, const QList<QPushButton*>& buttons) {
    auto* frame = new QFrame;
    frame->setObjectName("welcomeCard");
    frame->setFrameShape(QFrame::StyledPanel);
    // The palette's base colour (a text field's background): a card on the window colour that
    // follows the theme, light or dark.
    frame->setBackgroundRole(QPalette::Base);
    frame->setAutoFillBackground(true);
    auto* l = new QHBoxLayout(frame);
    l->setContentsMargins(16, 12, 16, 12);
    l->setSpacing(16);
    auto* words = new QVBoxLayout;
    words->addWidget(heading(title, 1.25));
    auto* line = new QLabel(text);
    line->setWordWrap(true);
    words->addWidget(line);
    words->addStretch();
    l->addLayout(words, 3);
    auto* actions = new QVBoxLayout;
    actions->setSpacing(6);
    for (QPushButton* b : buttons) actions->addWidget(b);
    actions->addStretch();
    l->addLayout(actions, 2);
    return frame;
}

void WelcomePage::setFirstStart(bool on) {
    firstStart_ = on;
    updateMode();
}

void WelcomePage::updateMode() {
    folderBox_->setVisible(firstStart_);
    recentBox_->setVisible(!firstStart_);
}

void WelcomePage::setRunsFolder(const QString& dir) {
    folder_->setText(QDir::toNativeSeparators(dir));
    folderHint_->setText(tr("Runs are kept in %1 (File → Settings… to change it).").arg(shortPath(dir)));
    folderHint_->setToolTip(dir);
    showError({});
}

QString WelcomePage::runsFolder() const { return AppSettings::folderFromText(folder_->text()); }

void WelcomePage::setRecentRuns(const QStringList& runDirs) {
    while (QLayoutItem* item = recentList_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    shownRecent_.clear();
    for (const QString& dir : runDirs) {
        if (shownRecent_.size() >= kMaxRecentShown) break;
        if (!QFileInfo(dir).isDir()) continue;  // deleted or on an unmounted disk: nothing to open
        shownRecent_ << dir;
        const QFileInfo info(dir);
        auto* b = new QCommandLinkButton(info.fileName(), shortPath(info.absolutePath()));
        b->setObjectName("recentRunButton");
        b->setToolTip(dir);
        connect(b, &QPushButton::clicked, this, [this, dir] { emit recentRunRequested(dir); });
        const int i = static_cast<int>(shownRecent_.size()) - 1;
        recentList_->addWidget(b, i / 2, i % 2);
    }
    noRecent_->setVisible(shownRecent_.isEmpty());
}

QString WelcomePage::errorText() const { return error_->isHidden() ? QString() : error_->text(); }

void WelcomePage::showError(const QString& text) {
    error_->setText(text.isEmpty() ? QString() : QStringLiteral("⚠ ") + text);
    error_->setVisible(!text.isEmpty());
}

bool WelcomePage::acceptFolder() {
    if (!firstStart_) return true;
    const QString dir = runsFolder();
    if (dir.isEmpty()) {
        showError(tr("No runs folder: type one, or choose one with Change…."));
        return false;
    }
    if (const QString why = AppSettings::prepareWorkspace(dir); !why.isEmpty()) {
        showError(tr("%1: choose a folder you can write to (Change…).").arg(why));
        return false;
    }
    showError({});
    emit workspaceChosen(dir);
    return true;
}

void WelcomePage::changeFolder() {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Where should StreetGAN keep its runs?"), runsFolder());
    if (d.isEmpty()) return;
    setRunsFolder(d);
    emit workspaceChosen(QDir::cleanPath(d));
}

}  // namespace streetgan::ui
