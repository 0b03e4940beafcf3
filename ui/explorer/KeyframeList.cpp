#include "explorer/KeyframeList.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QIcon>
#include <QPixmap>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace streetgan::ui {

KeyframeList::KeyframeList(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    list_ = new QListWidget;
    list_->setObjectName("keyframeList");
    list_->setSelectionMode(QAbstractItemView::SingleSelection);
    list_->setMinimumHeight(120);
    list_->setIconSize(QSize(kThumbPx, kThumbPx));
    // Drag and drop reorders too. The list widget moves its row itself; the request goes to the
    // page queued (not from inside the drop), and the page's setKeyframes() rebuilds the rows
    // from the edited session, so the list never disagrees with the session or the undo stack.
    list_->setDragDropMode(QAbstractItemView::InternalMove);
    list_->setDefaultDropAction(Qt::MoveAction);
    connect(list_->model(), &QAbstractItemModel::rowsMoved, this, [this](const QModelIndex&, int start, int, const QModelIndex&, int dest) {
        const int to = dest > start ? dest - 1 : dest;
        if (to == start) return;
        QMetaObject::invokeMethod(this, [this, start, to] { emit moveRequested(start, to - start); }, Qt::QueuedConnection);
    });
    layout->addWidget(list_, 1);

    auto* addRow = new QHBoxLayout;
    seed_ = new QSpinBox;
    seed_->setObjectName("keyframeSeed");
    seed_->setRange(0, std::numeric_limits<int>::max());  // session seeds go to 2^63-1; a spin box to 2^31-1 is plenty to type
    seed_->setToolTip(tr("Seed of the keyframe to add: z is drawn from the standard normal generator with this seed"));
    auto* addSeed = new QPushButton(tr("Add seed"));
    addSeed->setObjectName("addSeedButton");
    addRow->addWidget(seed_, 1);
    addRow->addWidget(addSeed);
    layout->addLayout(addRow);

    auto* buttons = new QGridLayout;
    auto* random = new QPushButton(tr("Random"));
    random->setObjectName("addRandomButton");
    auto* grid = new QPushButton(tr("From grid…"));
    grid->setObjectName("addFromGridButton");
    up_ = new QPushButton(tr("Up"));
    down_ = new QPushButton(tr("Down"));
    duplicate_ = new QPushButton(tr("Duplicate"));
    remove_ = new QPushButton(tr("Delete"));
    up_->setObjectName("keyframeUp");
    down_->setObjectName("keyframeDown");
    duplicate_->setObjectName("keyframeDuplicate");
    remove_->setObjectName("keyframeDelete");
    buttons->addWidget(random, 0, 0);
    buttons->addWidget(grid, 0, 1);
    buttons->addWidget(up_, 1, 0);
    buttons->addWidget(down_, 1, 1);
    buttons->addWidget(duplicate_, 2, 0);
    buttons->addWidget(remove_, 2, 1);
    layout->addLayout(buttons);
    auto* easingRow = new QHBoxLayout;
    segmentEasing_ = new QComboBox;
    segmentEasing_->setObjectName("segmentEasing");
    segmentEasing_->setToolTip(tr("Easing of the segment from the selected keyframe to the next one"));
    segmentEasing_->addItem(tr("path's easing"), QString());
    for (const char* e : {"linear", "ease-in-out", "ease-in", "ease-out"}) segmentEasing_->addItem(e, QString(e));
    easingRow->addWidget(new QLabel(tr("Segment")));
    easingRow->addWidget(segmentEasing_, 1);
    layout->addLayout(easingRow);
    connect(segmentEasing_, &QComboBox::activated, this, [this] {
        if (selected() >= 0) emit segmentEasingRequested(selected(), segmentEasing_->currentData().toString());
    });

    connect(addSeed, &QPushButton::clicked, this, [this] { emit addSeedRequested(seed_->value()); });
    connect(random, &QPushButton::clicked, this, &KeyframeList::addRandomRequested);
    connect(grid, &QPushButton::clicked, this, &KeyframeList::addFromGridRequested);
    connect(up_, &QPushButton::clicked, this, [this] { emit moveRequested(selected(), -1); });
    connect(down_, &QPushButton::clicked, this, [this] { emit moveRequested(selected(), +1); });
    connect(duplicate_, &QPushButton::clicked, this, [this] { emit duplicateRequested(selected()); });
    connect(remove_, &QPushButton::clicked, this, [this] { emit removeRequested(selected()); });
    connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
        updateButtons();
        emit selectionChanged(row);
    });
    updateButtons();
}

void KeyframeList::setKeyframes(const QJsonArray& keyframes, int selected) {
    const QSignalBlocker block(list_);
    list_->clear();
    keyframes_ = keyframes;
    for (int i = 0; i < keyframes.size(); ++i) {
        const QJsonObject k = keyframes[i].toObject();
        const QIcon icon = icons_.value(QJsonDocument(k).toJson(QJsonDocument::Compact));
        QString text = k.contains("seed") ? tr("%1. seed %2").arg(i + 1).arg(k.value("seed").toInteger())
                                          : tr("%1. z (%2 values)").arg(i + 1).arg(k.value("z").toArray().size());
        if (k.contains("easing")) text += tr("  [%1]").arg(k.value("easing").toString());
        list_->addItem(new QListWidgetItem(icon, text));
    }
    if (!keyframes.isEmpty()) list_->setCurrentRow(std::clamp(selected, 0, static_cast<int>(keyframes.size()) - 1));
    updateButtons();
}

void KeyframeList::setThumbnails(const QList<QImage>& images) {
    if (icons_.size() > 1000) icons_.clear();
    for (int i = 0; i < list_->count() && i < keyframes_.size(); ++i) {
        const QIcon icon = i < images.size() ? QIcon(QPixmap::fromImage(images[i])) : QIcon();
        icons_.insert(QJsonDocument(keyframes_[i].toObject()).toJson(QJsonDocument::Compact), icon);
        list_->item(i)->setIcon(icon);
    }
}

int KeyframeList::selected() const { return list_->currentRow(); }
int KeyframeList::count() const { return list_->count(); }
void KeyframeList::select(int row) { list_->setCurrentRow(row); }
qint64 KeyframeList::seedToAdd() const { return seed_->value(); }
void KeyframeList::setSeedToAdd(qint64 seed) { seed_->setValue(static_cast<int>(seed)); }

void KeyframeList::updateButtons() {
    const int row = list_->currentRow(), n = list_->count();
    segmentEasing_->setEnabled(row >= 0);
    const QString easing = row >= 0 && row < keyframes_.size() ? keyframes_[row].toObject().value("easing").toString() : QString();
    segmentEasing_->setCurrentIndex(std::max(0, segmentEasing_->findData(easing)));
    up_->setEnabled(row > 0);
    down_->setEnabled(row >= 0 && row < n - 1);
    duplicate_->setEnabled(row >= 0);
    remove_->setEnabled(row >= 0 && n > 1);  // a session keeps at least one keyframe
}

}  // namespace streetgan::ui
