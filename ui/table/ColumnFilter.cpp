#include "table/ColumnFilter.h"

#include <QCoreApplication>

namespace streetgan::ui {

namespace {

QString tr(const char* s) { return QCoreApplication::translate("ColumnFilter", s); }

bool toNumber(const QString& s, double* out) {
    bool ok = false;
    const double v = s.trimmed().toDouble(&ok);
    if (ok && std::isfinite(v)) *out = v;
    return ok && std::isfinite(v);
}

// Equal up to the last digits a printed setting keeps ("0.0002" against 2e-4 computed).
bool sameNumber(double a, double b) { return a == b || std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }

}  // namespace

ColumnFilter ColumnFilter::parse(const QString& typed, QString* error) {
    ColumnFilter f;
    const QString t = typed.trimmed();
    if (error) error->clear();
    if (t.isEmpty()) return f;
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return ColumnFilter();
    };
    f.text_ = t;
    if (t.size() >= 2 && t.startsWith('/') && t.endsWith('/')) {
        f.re_ = QRegularExpression(t.mid(1, t.size() - 2), QRegularExpression::CaseInsensitiveOption);
        if (!f.re_.isValid()) return fail(tr("“%1” is not a valid regular expression (%2).").arg(t, f.re_.errorString()));
        f.kind_ = Kind::Pattern;
        return f;
    }
    if (const int dots = t.indexOf(".."); dots >= 0) {
        const QString lo = t.left(dots).trimmed(), hi = t.mid(dots + 2).trimmed();
        if ((!lo.isEmpty() && !toNumber(lo, &f.lo_)) || (!hi.isEmpty() && !toNumber(hi, &f.hi_)) || (lo.isEmpty() && hi.isEmpty()))
            return fail(tr("“%1” is not a range: write LOW..HIGH with numbers (either may be left out), e.g. 0.0001..0.001.").arg(t));
        f.kind_ = Kind::Range;
        return f;
    }
    if (t.contains(',')) {
        for (const QString& item : t.split(',')) f.items_ << item.trimmed();
        f.kind_ = Kind::List;
        return f;
    }
    if (toNumber(t, &f.value_)) {
        f.kind_ = Kind::Number;
        return f;
    }
    f.re_ = QRegularExpression(t, QRegularExpression::CaseInsensitiveOption);
    if (!f.re_.isValid())
        return fail(tr("“%1” is not a valid regular expression (%2); put a list as a,b,c or a range as LOW..HIGH.").arg(t, f.re_.errorString()));
    f.kind_ = Kind::Pattern;
    return f;
}

bool ColumnFilter::matches(const QString& display, double number) const {
    switch (kind_) {
        case Kind::None:
            return true;
        case Kind::Range:
            return std::isfinite(number) && number >= lo_ && number <= hi_;
        case Kind::Number:
            return std::isfinite(number) && sameNumber(number, value_);
        case Kind::Pattern:
            return re_.match(display).hasMatch();
        case Kind::List:
            break;
    }
    for (const QString& item : items_) {
        double v = 0;
        if (item.compare(display, Qt::CaseInsensitive) == 0) return true;
        if (std::isfinite(number) && toNumber(item, &v) && sameNumber(v, number)) return true;
    }
    return false;
}

}  // namespace streetgan::ui
