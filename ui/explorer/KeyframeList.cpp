#include "explorer/KeyframeList.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

#include "explorer/KeyframeDelegate.h"
#include "explorer/KeyframeModel.h"
#include "explorer/PathPanel.h"

namespace streetgan::ui {

KeyframeList::KeyframeList(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    list_ = new QListView;
    list_->setObjectName("keyframeList");
    list_->setSelectionMode(QAbstractItemView::SingleSelection);
    list_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    list_->setMinimumHeight(120);
    list_->setIconSize(QSize(kThumbPx, kThumbPx));
    list_->setItemDelegate(new KeyframeDelegate(list_));  // "1. seed 2": the row number before the model's text
    // Drag and drop reorders too: the view's InternalMove drop calls the model's moveRows(), which
    // asks the page for one undoable edit; the edited session then moves the row (KeyframeModel).
    list_->setDragDropMode(QAbstractItemView::InternalMove);
    list_->setDefaultDropAction(Qt::MoveAction);
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
    layout->addLayout(buildSegmentRows());

    connect(addSeed, &QPushButton::clicked, this, [this] { emit addSeedRequested(seed_->value()); });
    connect(random, &QPushButton::clicked, this, &KeyframeList::addRandomRequested);
    connect(grid, &QPushButton::clicked, this, &KeyframeList::addFromGridRequested);
    connect(up_, &QPushButton::clicked, this, [this] { emit moveRequested(selected(), -1); });
    connect(down_, &QPushButton::clicked, this, [this] { emit moveRequested(selected(), +1); });
    connect(duplicate_, &QPushButton::clicked, this, [this] { emit duplicateRequested(selected()); });
    connect(remove_, &QPushButton::clicked, this, [this] { emit removeRequested(selected()); });
    updateButtons();
}

// The selected segment's easing and t range, wired.
QVBoxLayout* KeyframeList::buildSegmentRows() {
    auto* rows = new QVBoxLayout;
    auto* easingRow = new QHBoxLayout;
    segmentEasing_ = new QComboBox;
    segmentEasing_->setObjectName("segmentEasing");
    segmentEasing_->setToolTip(tr("Easing of the segment from the selected keyframe to the next one"));
    segmentEasing_->addItem(tr("path's easing"), QString());
    for (const char* e : {"linear", "ease-in-out", "ease-in", "ease-out"}) segmentEasing_->addItem(e, QString(e));
    easingRow->addWidget(new QLabel(tr("Segment")));
    easingRow->addWidget(segmentEasing_, 1);
    connect(segmentEasing_, &QComboBox::activated, this, [this] {
        if (selected() >= 0) emit segmentEasingRequested(selected(), segmentEasing_->currentData().toString());
    });
    auto* rangeRow = new QHBoxLayout;
    const QString rangeTip =
        tr("t range of the segment from the selected keyframe: 0 to 1 goes to the next keyframe; values "
           "outside extrapolate past the keyframes (SLERP goes on round the great circle)");
    tStart_ = PathPanel::tBox("segmentTStart", rangeTip);
    tEnd_ = PathPanel::tBox("segmentTEnd", rangeTip);
    tReset_ = new QPushButton(tr("Path's"));
    tReset_->setObjectName("segmentTRangeReset");
    tReset_->setToolTip(tr("Use the path's t range for this segment"));
    rangeRow->addWidget(new QLabel(tr("t")));
    rangeRow->addWidget(tStart_, 1);
    rangeRow->addWidget(new QLabel(tr("to")));
    rangeRow->addWidget(tEnd_, 1);
    rangeRow->addWidget(tReset_);
    connect(tStart_, &QDoubleSpinBox::valueChanged, this, [this](double v) { editSegmentRange(true, v); });
    connect(tEnd_, &QDoubleSpinBox::valueChanged, this, [this](double v) { editSegmentRange(false, v); });
    connect(tReset_, &QPushButton::clicked, this, [this] {
        if (selected() >= 0) emit segmentTRangeCleared(selected());
    });

    rows->addLayout(easingRow);
    rows->addLayout(rangeRow);
    return rows;
}

void KeyframeList::setModel(KeyframeModel* model) {
    if (model_) model_->disconnect(this);
    model_ = model;
    list_->setModel(model);
    connect(list_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        updateButtons();
        if (syncing_ == 0) emit selectionChanged(current.isValid() ? current.row() : -1);
    });
    connect(model, &KeyframeModel::keyframesAboutToChange, this, &KeyframeList::beginSync);
    connect(model, &KeyframeModel::keyframesChanged, this, &KeyframeList::endSync);
    connect(model, &QAbstractItemModel::dataChanged, this, [this] { updateButtons(); });
    beginSync();
    endSync();
}

void KeyframeList::beginSync() {
    if (syncing_++ == 0) keepRow_ = selected();
}

void KeyframeList::endSync() {
    if (syncing_ == 1) {
        // The row number stays selected (clamped), as the user left it; no selectionChanged().
        const int n = count();
        if (n > 0) {
            const QModelIndex keep = model_->index(std::clamp(keepRow_, 0, n - 1));
            if (list_->currentIndex() != keep || !list_->selectionModel()->isSelected(keep)) list_->setCurrentIndex(keep);
        }
    }
    --syncing_;
    updateButtons();
}

int KeyframeList::selected() const {
    const QModelIndex i = list_->currentIndex();
    return i.isValid() ? i.row() : -1;
}

QString KeyframeList::rowText(int row) const { return model_ ? KeyframeDelegate::text(model_->index(row)) : QString(); }

int KeyframeList::count() const { return model_ ? model_->rowCount() : 0; }

void KeyframeList::select(int row) {
    if (!model_) return;
    list_->setCurrentIndex(row >= 0 && row < count() ? model_->index(row) : QModelIndex());
}

qint64 KeyframeList::seedToAdd() const { return seed_->value(); }
void KeyframeList::setSeedToAdd(qint64 seed) { seed_->setValue(static_cast<int>(seed)); }

void KeyframeList::setPathTRange(double start, double end) {
    pathRange_ = QPointF(start, end);
    updateButtons();
}

QPointF KeyframeList::segmentRange(bool* own) const {
    const int row = selected();
    const QVariant v = row >= 0 && model_ ? model_->index(row).data(KeyframeModel::TRangeRole) : QVariant();
    if (own) *own = v.isValid();
    return v.isValid() ? v.toPointF() : pathRange_;
}

void KeyframeList::editSegmentRange(bool startEdited, double value) {
    if (selected() < 0) return;
    // The other end comes from the session, not from its box: a box shows 3 decimals only.
    const QPointF r = segmentRange();
    emit segmentTRangeRequested(selected(), startEdited ? value : r.x(), startEdited ? r.y() : value);
}

void KeyframeList::updateButtons() {
    const int row = selected(), n = count();
    segmentEasing_->setEnabled(row >= 0);
    const QString easing = row >= 0 ? model_->index(row).data(KeyframeModel::EasingRole).toString() : QString();
    segmentEasing_->setCurrentIndex(std::max(0, segmentEasing_->findData(easing)));
    bool own = false;
    const QPointF range = segmentRange(&own);
    {
        const QSignalBlocker b1(tStart_), b2(tEnd_);
        tStart_->setValue(range.x());
        tEnd_->setValue(range.y());
    }
    tStart_->setEnabled(row >= 0);
    tEnd_->setEnabled(row >= 0);
    tReset_->setEnabled(row >= 0 && own);
    up_->setEnabled(row > 0);
    down_->setEnabled(row >= 0 && row < n - 1);
    duplicate_->setEnabled(row >= 0);
    remove_->setEnabled(row >= 0 && n > 1);  // a session keeps at least one keyframe
}

}  // namespace streetgan::ui
