#include "explorer/LatentSliders.h"

#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QKeyEvent>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <vector>

namespace streetgan::ui {
namespace {

int ticks(double v) { return static_cast<int>(std::lround(v * LatentSliders::kSteps)); }
double units(int t) { return static_cast<double>(t) / LatentSliders::kSteps; }
QString shown(double v) { return QString::number(v, 'f', 2); }
/// Signed, so a glance tells the side of the mean: "+1.25", "−0.50" (a real minus sign: as wide as +).
QString signedShown(double v) {
    const QString digits = QString::number(std::abs(v), 'f', 2);
    return (v < 0 && digits != "0.00" ? QString(QChar(0x2212)) : QString("+")) + digits;
}

// The one table of the sliders' keys (LatentSliders::keyBindings lists it, handleKey matches it).
enum class Act { Down, Up, BigDown, BigUp, Reset, Previous, Next };
struct Binding {
    Act act;
    const char* description;
    std::vector<QKeyCombination> keys;
};
const std::vector<Binding>& bindings() {
    static const std::vector<Binding> table{
        {Act::Down, QT_TRANSLATE_NOOP("LatentSliders", "Nudge the selected slider down by 0.05"), {Qt::Key_Left, Qt::Key_Down}},
        {Act::Up, QT_TRANSLATE_NOOP("LatentSliders", "Nudge the selected slider up by 0.05"), {Qt::Key_Right, Qt::Key_Up}},
        {Act::BigDown, QT_TRANSLATE_NOOP("LatentSliders", "Nudge the selected slider down by 0.5"), {Qt::SHIFT | Qt::Key_Left, Qt::SHIFT | Qt::Key_Down}},
        {Act::BigUp, QT_TRANSLATE_NOOP("LatentSliders", "Nudge the selected slider up by 0.5"), {Qt::SHIFT | Qt::Key_Right, Qt::SHIFT | Qt::Key_Up}},
        {Act::Reset, QT_TRANSLATE_NOOP("LatentSliders", "Reset the selected slider (psi to 1, the others to 0)"), {Qt::Key_Home}},
        {Act::Previous, QT_TRANSLATE_NOOP("LatentSliders", "Select the previous slider"), {Qt::Key_PageUp}},
        {Act::Next, QT_TRANSLATE_NOOP("LatentSliders", "Select the next slider"), {Qt::Key_PageDown}},
    };
    return table;
}

}  // namespace

QList<LatentSliders::KeyBinding> LatentSliders::keyBindings() {
    QList<KeyBinding> out;
    for (const Binding& b : bindings()) {
        KeyBinding k;
        QStringList keys;
        for (const QKeyCombination& c : b.keys) {
            k.combinations.append(c);
            keys << QKeySequence(c).toString(QKeySequence::NativeText);
        }
        k.keys = keys.join(", ");
        k.description = tr(b.description);
        out.append(k);
    }
    return out;
}

LatentSliders::LatentSliders(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::ClickFocus);  // a click on the panel's background keeps the keys here
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* truncBox = new QGroupBox(tr("Truncation"));
    auto* truncLayout = new QVBoxLayout(truncBox);
    truncation_ = makeSlider(0, 2 * kSteps);
    truncation_->setObjectName("truncationSlider");
    truncLayout->addWidget(makeRow(truncation_, tr("psi"), tr("psi: scales every latent towards the mean (1 = unchanged, 0 = the mean image)")));
    layout->addWidget(truncBox);
    showValue(truncation_, 1.0);
    connect(truncation_, &QSlider::valueChanged, this, [this](int t) {
        showValue(truncation_, units(t));
        emit truncationEdited(units(t));
    });

    auto* dirGroup = new QGroupBox(tr("PCA directions (±3 σ)"));
    auto* dirLayout = new QVBoxLayout(dirGroup);
    auto* kRow = new QHBoxLayout;
    components_ = new QSpinBox;
    components_->setObjectName("pcaComponents");
    components_->setRange(1, 256);
    components_->setToolTip(tr("How many principal directions of the generator's first-block activations to show"));
    kRow->addWidget(new QLabel(tr("top-k")));
    kRow->addWidget(components_);
    kRow->addStretch();
    dirLayout->addLayout(kRow);
    directionBox_ = new QVBoxLayout;
    directionBox_->setSpacing(2);
    dirLayout->addLayout(directionBox_);
    layout->addWidget(dirGroup);
    connect(components_, &QSpinBox::valueChanged, this, [this](int k) { emit componentsEdited(k); });

    layout->addWidget(buildNamedGroup());

    auto* rawGroup = new QGroupBox(tr("Raw z of the selected keyframe"));
    auto* rawLayout = new QVBoxLayout(rawGroup);
    auto* addRow = new QHBoxLayout;
    rawDim_ = new QSpinBox;
    rawDim_->setObjectName("rawDimension");
    rawDim_->setRange(0, 0);
    rawDim_->setPrefix(tr("z"));
    rawDim_->setToolTip(tr("The dimension of z to add a slider for"));
    auto* add = new QPushButton(tr("Add slider"));
    add->setObjectName("addRawSlider");
    addRow->addWidget(rawDim_);
    addRow->addWidget(add);
    addRow->addStretch();
    rawLayout->addLayout(addRow);
    rawBox_ = new QVBoxLayout;
    rawBox_->setSpacing(2);
    rawLayout->addLayout(rawBox_);
    layout->addWidget(rawGroup);
    auto* keysHint = new QLabel(tr("Keys: ←/→ nudge the marked slider (Shift: more), Home resets, PgUp/PgDn pick another."));
    keysHint->setObjectName("sliderKeysHint");
    keysHint->setWordWrap(true);
    keysHint->setEnabled(false);  // greyed: a hint, not a control
    layout->addWidget(keysHint);
    layout->addStretch();
    connect(add, &QPushButton::clicked, this, [this] {
        if (!rawDims_.contains(rawDim_->value())) emit rawDimensionAdded(rawDim_->value());
    });
    selected_ = truncation_;
    markSelection();
}

QSlider* LatentSliders::makeSlider(int lo, int hi) {
    auto* s = new QSlider(Qt::Horizontal);
    s->setRange(lo, hi);
    s->setSingleStep(kSmallStep);
    s->setPageStep(kBigStep);
    s->setMinimumWidth(80);
    s->installEventFilter(this);  // focus selects it; the keys of keyBindings() are handled here
    connect(s, &QSlider::sliderPressed, this, &LatentSliders::dragStarted);
    connect(s, &QSlider::sliderPressed, this, [this, s] { selectSlider(s); });
    return s;
}

QWidget* LatentSliders::makeRow(QSlider* slider, const QString& name, const QString& tip, QWidget* extra) {
    auto* row = new QWidget;
    row->setObjectName("sliderRow");
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(4, 1, 2, 1);
    Row r;
    r.row = row;
    r.name = new QLabel(name);
    QFont bold = r.name->font();
    bold.setBold(true);
    // As wide as the bold (selected) name, so marking a row does not move its slider.
    r.name->setMinimumWidth(QFontMetrics(bold).horizontalAdvance(name) + 2);
    r.name->setToolTip(tip);
    slider->setToolTip(tip);
    r.value = new QLabel;
    r.value->setObjectName(slider->objectName() + "Value");
    r.value->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    r.value->setMinimumWidth(QFontMetrics(bold).horizontalAdvance("+00.00") + 2);
    h->addWidget(r.name);
    h->addWidget(slider, 1);
    h->addWidget(r.value);
    if (extra) h->addWidget(extra);
    rows_.insert(slider, r);
    return row;
}

void LatentSliders::showValue(QSlider* slider, double value) {
    auto it = rows_.find(slider);
    if (it == rows_.end()) return;
    it->value->setText(slider == truncation_ ? shown(value) : signedShown(value));
}

QString LatentSliders::valueText(const QSlider* slider) const {
    const auto it = rows_.find(slider);
    return it == rows_.end() ? QString() : it->value->text();
}

int LatentSliders::neutralValue(const QSlider* slider) const { return slider == truncation_ ? kSteps : 0; }

void LatentSliders::forgetRow(QSlider* slider) {
    rows_.remove(slider);
    if (selected_ == slider) selected_ = nullptr;
}

void LatentSliders::rebuildDirections(int components) {
    if (directions_.size() == components) return;
    for (QWidget* row : directionRows_) {
        row->hide();
        row->deleteLater();  // not delete: the page may be inside a signal of one of these rows
    }
    for (QSlider* s : std::as_const(directions_)) forgetRow(s);
    directionRows_.clear();
    directions_.clear();
    for (int i = 0; i < components; ++i) {
        auto* s = makeSlider(-3 * kSteps, 3 * kSteps);
        s->setObjectName(QString("direction%1").arg(i));
        QWidget* row = makeRow(s, QString("d%1").arg(i), tr("Direction %1 in units of its sigma (%1 = most activation variance explained)").arg(i));
        row->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(row, &QWidget::customContextMenuRequested, this, [this, row, i](const QPoint& at) { directionMenu(row, i, at); });
        if (directionNames_.contains(i)) setRowName(s, directionNames_.value(i));
        showValue(s, 0);
        directionBox_->addWidget(row);
        directionRows_.append(row);
        directions_.insert(i, s);
        connect(s, &QSlider::valueChanged, this, [this, i, s](int t) {
            showValue(s, units(t));
            emit directionEdited(i, units(t));
        });
    }
    markSelection();
}

void LatentSliders::rebuildRaw(const QList<int>& dims) {
    if (dims == rawDims_) return;
    for (QWidget* row : rawRows_) {
        row->hide();
        row->deleteLater();  // not delete: this runs inside the clicked() of a row's remove button
    }
    for (QSlider* s : std::as_const(raw_)) forgetRow(s);
    rawRows_.clear();
    raw_.clear();
    rawDims_ = dims;
    for (int d : dims) {
        auto* s = makeSlider(-3 * kSteps, 3 * kSteps);
        s->setObjectName(QString("rawZ%1").arg(d));
        auto* remove = new QToolButton;
        remove->setText("×");
        remove->setToolTip(tr("Remove this slider (the keyframe keeps its value)"));
        QWidget* row = makeRow(s, QString("z%1").arg(d), tr("Dimension %1 of the selected keyframe's z (-3..+3)").arg(d), remove);
        showValue(s, 0);
        rawBox_->addWidget(row);
        rawRows_.append(row);
        raw_.insert(d, s);
        connect(s, &QSlider::valueChanged, this, [this, d, s](int t) {
            showValue(s, units(t));
            emit rawEdited(d, units(t));
        });
        connect(remove, &QToolButton::clicked, this, [this, d] { emit rawDimensionRemoved(d); });
    }
    markSelection();
}

void LatentSliders::setState(double truncation, int components, int nz, const QHash<int, double>& directions, const QList<int>& rawDims,
                             const QList<double>& rawValues) {
    {
        const QSignalBlocker b1(truncation_), b2(components_), b3(rawDim_);
        truncation_->setValue(ticks(truncation));
        showValue(truncation_, truncation);
        components_->setMaximum(std::max(1, std::min(256, nz)));
        components_->setValue(components);
        rawDim_->setMaximum(std::max(0, nz - 1));
    }
    rebuildDirections(components);
    for (auto it = directions_.begin(); it != directions_.end(); ++it) {
        const double amount = directions.value(it.key(), 0.0);
        const QSignalBlocker b(it.value());
        // Amounts beyond ±3 sigma (typed into a session file) are kept; the slider shows its end.
        it.value()->setValue(ticks(amount));
        showValue(it.value(), amount);
    }
    rebuildRaw(rawDims);
    for (int i = 0; i < rawDims_.size(); ++i) {
        QSlider* s = raw_.value(rawDims_[i]);
        const bool known = i < rawValues.size();  // a seed keyframe's vector may still be on its way
        const QSignalBlocker b(s);
        s->setValue(known ? ticks(rawValues[i]) : 0);
        if (known)
            showValue(s, rawValues[i]);
        else
            rows_[s].value->setText("…");
    }
}

// ---------------------------------------------------------------------------------------------
// Named directions and names

QWidget* LatentSliders::buildNamedGroup() {
    auto* group = new QGroupBox(tr("Named directions"));
    group->setObjectName("namedDirections");
    auto* v = new QVBoxLayout(group);
    auto* buttons = new QHBoxLayout;
    auto* learn = new QPushButton(tr("Learn…"));
    learn->setObjectName("learnDirections");
    learn->setToolTip(tr("Learn directions such as night, winter or a city from a labelled data set (MSLS or the synthetic streets)"));
    auto* load = new QPushButton(tr("Load…"));
    load->setObjectName("loadDirections");
    load->setToolTip(tr("Add the directions of a file written by `streetgan-trainer directions --out FILE`"));
    buttons->addWidget(learn);
    buttons->addWidget(load);
    buttons->addStretch();
    v->addLayout(buttons);
    namedBox_ = new QVBoxLayout;
    namedBox_->setSpacing(2);
    v->addLayout(namedBox_);
    connect(learn, &QPushButton::clicked, this, &LatentSliders::learnDirectionsRequested);
    connect(load, &QPushButton::clicked, this, &LatentSliders::loadDirectionsRequested);
    return group;
}

void LatentSliders::rebuildNamed(const QStringList& names) {
    if (names == namedNames_) return;
    for (QWidget* row : namedRows_) {
        row->hide();
        row->deleteLater();  // not delete: this may run inside a signal of one of these rows
    }
    for (QSlider* s : std::as_const(named_)) forgetRow(s);
    namedRows_.clear();
    named_.clear();
    namedNames_ = names;
    for (int i = 0; i < names.size(); ++i) {
        auto* s = makeSlider(-3 * kSteps, 3 * kSteps);
        s->setObjectName(QString("named%1").arg(i));
        auto* remove = new QToolButton;
        remove->setText("×");
        remove->setToolTip(tr("Remove this direction from the session"));
        QWidget* row = makeRow(s, names[i], tr("“%1”: moves every frame along this direction learnt from labels (-3..+3 in z)").arg(names[i]), remove);
        row->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(row, &QWidget::customContextMenuRequested, this, [this, row, i](const QPoint& at) { namedMenu(row, i, at); });
        showValue(s, 0);
        namedBox_->addWidget(row);
        namedRows_.append(row);
        named_.append(s);
        connect(s, &QSlider::valueChanged, this, [this, i, s](int t) {
            showValue(s, units(t));
            emit namedEdited(i, units(t));
        });
        connect(remove, &QToolButton::clicked, this, [this, i] { emit namedRemoved(i); });
    }
    markSelection();
}

void LatentSliders::setNamed(const QStringList& names, const QList<double>& amounts) {
    rebuildNamed(names);
    for (int i = 0; i < named_.size(); ++i) {
        const double amount = amounts.value(i, 0.0);
        const QSignalBlocker b(named_[i]);
        named_[i]->setValue(ticks(amount));  // beyond ±3 (typed into a file): kept, the slider at its end
        showValue(named_[i], amount);
    }
}

void LatentSliders::setDirectionNames(const QHash<int, QString>& names) {
    directionNames_ = names;
    for (auto it = directions_.begin(); it != directions_.end(); ++it) setRowName(it.value(), names.value(it.key(), QString("d%1").arg(it.key())));
}

void LatentSliders::setRowName(QSlider* slider, const QString& name) {
    auto it = rows_.find(slider);
    if (it == rows_.end() || it->name->text() == name) return;
    it->name->setText(name);
    QFont bold = it->name->font();
    bold.setBold(true);
    it->name->setMinimumWidth(QFontMetrics(bold).horizontalAdvance(name) + 2);
}

QString LatentSliders::sliderName(const QSlider* slider) const {
    const auto it = rows_.find(slider);
    return it == rows_.end() ? QString() : it->name->text();
}

void LatentSliders::directionMenu(QWidget* row, int index, const QPoint& at) {
    QMenu menu;
    menu.addAction(tr("Name this direction…"), this, [this, index] {
        bool ok = false;
        const QString name =
            QInputDialog::getText(this, tr("Name direction %1").arg(index), tr("What moving along d%1 changes (sky, trees, lighting…):").arg(index),
                                  QLineEdit::Normal, directionNames_.value(index), &ok);
        if (ok) emit directionRenamed(index, name.trimmed());
    });
    if (directionNames_.contains(index)) menu.addAction(tr("Clear the name"), this, [this, index] { emit directionRenamed(index, {}); });
    menu.exec(row->mapToGlobal(at));
}

void LatentSliders::namedMenu(QWidget* row, int index, const QPoint& at) {
    QMenu menu;
    menu.addAction(tr("Rename…"), this, [this, index] {
        bool ok = false;
        const QString name = QInputDialog::getText(this, tr("Rename direction"), tr("New name:"), QLineEdit::Normal, namedNames_.value(index), &ok).trimmed();
        if (ok && !name.isEmpty()) emit namedRenamed(index, name);
    });
    menu.addAction(tr("Remove"), this, [this, index] { emit namedRemoved(index); });
    menu.exec(row->mapToGlobal(at));
}

// ---------------------------------------------------------------------------------------------
// Selection and keys

QList<QSlider*> LatentSliders::orderedSliders() const {
    QList<QSlider*> out{truncation_};
    for (int i = 0; i < directions_.size(); ++i)
        if (QSlider* s = directions_.value(i)) out.append(s);
    out.append(named_);
    for (int d : rawDims_)
        if (QSlider* s = raw_.value(d)) out.append(s);
    return out;
}

QSlider* LatentSliders::selectedSlider() const { return selected_ && rows_.contains(selected_.data()) ? selected_.data() : truncation_; }

void LatentSliders::selectSlider(QSlider* slider) {
    if (!slider || !rows_.contains(slider) || selected_ == slider) return;
    selected_ = slider;
    markSelection();
    emit selectionChanged(slider);
}

void LatentSliders::markSelection() {
    const QSlider* selected = selectedSlider();
    // A tint of the highlight colour behind the row and a bold name (a palette, not a style sheet,
    // so the sliders keep the platform style).
    QColor tint = palette().color(QPalette::Highlight);
    const QColor base = palette().color(QPalette::Window);
    tint =
        QColor::fromRgbF(base.redF() * 0.75f + tint.redF() * 0.25f, base.greenF() * 0.75f + tint.greenF() * 0.25f, base.blueF() * 0.75f + tint.blueF() * 0.25f);
    for (auto it = rows_.begin(); it != rows_.end(); ++it) {
        const bool on = it.key() == selected;
        QPalette p = it->row->palette();
        p.setColor(QPalette::Window, on ? tint : base);
        it->row->setPalette(p);
        it->row->setAutoFillBackground(on);
        QFont f = it->name->font();
        f.setBold(on);
        it->name->setFont(f);
        it->row->setProperty("selectedSlider", on);
    }
}

bool LatentSliders::handleKey(const QKeyEvent* event) {
    const Qt::KeyboardModifiers mods = event->modifiers() & (Qt::ShiftModifier | Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier);
    const QKeyCombination pressed(mods, static_cast<Qt::Key>(event->key()));
    for (const Binding& b : bindings()) {
        if (std::find(b.keys.begin(), b.keys.end(), pressed) == b.keys.end()) continue;
        QSlider* s = selectedSlider();
        const QList<QSlider*> all = orderedSliders();
        const int at = std::max(0, static_cast<int>(all.indexOf(s)));
        switch (b.act) {
            case Act::Down:
                s->setValue(s->value() - kSmallStep);
                break;
            case Act::Up:
                s->setValue(s->value() + kSmallStep);
                break;
            case Act::BigDown:
                s->setValue(s->value() - kBigStep);
                break;
            case Act::BigUp:
                s->setValue(s->value() + kBigStep);
                break;
            case Act::Reset:
                s->setValue(neutralValue(s));
                break;
            case Act::Previous:
            case Act::Next: {
                QSlider* next = all.value(std::clamp(at + (b.act == Act::Next ? 1 : -1), 0, static_cast<int>(all.size()) - 1));
                selectSlider(next);
                if (hasFocus() || (QWidget::focusWidget() && isAncestorOf(QWidget::focusWidget()))) next->setFocus(Qt::OtherFocusReason);
                for (QWidget* p = parentWidget(); p; p = p->parentWidget())
                    if (auto* area = qobject_cast<QScrollArea*>(p)) {
                        area->ensureWidgetVisible(rows_.value(next).row);
                        break;
                    }
                break;
            }
        }
        return true;
    }
    return false;
}

bool LatentSliders::eventFilter(QObject* watched, QEvent* event) {
    auto* slider = qobject_cast<QSlider*>(watched);
    if (slider && rows_.contains(slider)) {
        if (event->type() == QEvent::FocusIn) selectSlider(slider);
        if (event->type() == QEvent::KeyPress) {
            selectSlider(slider);  // the keys act on the slider that has the focus
            if (handleKey(static_cast<QKeyEvent*>(event))) return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void LatentSliders::keyPressEvent(QKeyEvent* event) {
    if (!handleKey(event)) QWidget::keyPressEvent(event);
}

}  // namespace streetgan::ui
