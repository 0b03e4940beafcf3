#include "base/slurm/SlurmHostList.h"

#include <cstdint>
#include <variant>

#include "base/util/Errors.h"

namespace streetgan {
namespace {

struct Range {
    uint64_t lo = 0, hi = 0;
    size_t width = 0;  ///< digits of the first bound: the numbers are zero-padded to it
};
using Segment = std::variant<std::string, std::vector<Range>>;  // literal text or a bracket's ranges
using Name = std::vector<Segment>;

class Parser {
public:
    Parser(const std::string& list, const std::string& what) : list_(list), what_(what) {}

    [[noreturn]] void fail(const std::string& why) const {
        throw ConfigError(what_ + " '" + list_ + "' is not a Slurm host list (" + why + "): expected names like gpu[01-03,07],login");
    }

    std::vector<Name> names() {
        if (list_.empty()) fail("it is empty");
        std::vector<Name> out;
        size_t at = 0;
        for (;;) {
            out.push_back(name(at));
            if (at == list_.size()) return out;
            ++at;  // the comma between names
        }
    }

private:
    // One name from `at` to the next comma outside brackets (or the end).
    Name name(size_t& at) {
        Name n;
        const size_t start = at;
        std::string text;
        while (at < list_.size() && list_[at] != ',') {
            const char c = list_[at];
            if (c == ']') fail("']' without '['");
            if (c == '[') {
                if (!text.empty()) n.emplace_back(std::move(text));
                text.clear();
                const size_t close = list_.find(']', at);
                if (close == std::string::npos) fail("'[' without ']'");
                const std::string inside = list_.substr(at + 1, close - at - 1);
                if (inside.find('[') != std::string::npos) fail("brackets inside brackets");
                n.emplace_back(ranges(inside));
                at = close + 1;
                continue;
            }
            if (c == ' ' || c == '\t' || c == '\n') fail("white space in a name");
            text += c;
            ++at;
        }
        if (!text.empty()) n.emplace_back(std::move(text));
        if (at == start) fail(at == list_.size() ? "it ends with a comma" : "an empty name");
        return n;
    }

    std::vector<Range> ranges(const std::string& inside) {
        if (inside.empty()) fail("empty brackets");
        std::vector<Range> out;
        size_t at = 0;
        for (;;) {
            const size_t comma = inside.find(',', at);
            const std::string item = inside.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
            const size_t dash = item.find('-');
            Range r;
            r.lo = number(item.substr(0, dash), item);
            r.hi = dash == std::string::npos ? r.lo : number(item.substr(dash + 1), item);
            r.width = dash == std::string::npos ? item.size() : dash;
            if (r.hi < r.lo) fail("the range " + item + " runs backwards");
            out.push_back(r);
            if (comma == std::string::npos) return out;
            at = comma + 1;
        }
    }

    uint64_t number(const std::string& digits, const std::string& item) {
        if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
            fail("'" + item + "' is not a number or range");
        return std::stoull(digits);
    }

    const std::string& list_;
    const std::string& what_;
};

std::string padded(uint64_t value, size_t width) {
    std::string s = std::to_string(value);
    return s.size() < width ? std::string(width - s.size(), '0') + s : s;
}

}  // namespace

std::vector<std::string> SlurmHostList::expand(const std::string& list, const std::string& what) {
    Parser parser(list, what);
    std::vector<std::string> hosts;
    for (const Name& name : parser.names()) {
        std::vector<std::string> expanded{""};  // the name's expansions so far, segment by segment
        for (const Segment& segment : name) {
            if (const auto* text = std::get_if<std::string>(&segment)) {
                for (std::string& e : expanded) e += *text;
                continue;
            }
            uint64_t count = 0;
            for (const Range& r : std::get<std::vector<Range>>(segment)) count += r.hi - r.lo + 1;
            if (count > kMaxHosts || expanded.size() * count + hosts.size() > kMaxHosts) parser.fail("more than " + std::to_string(kMaxHosts) + " hosts");
            std::vector<std::string> next;
            next.reserve(expanded.size() * count);
            for (const std::string& prefix : expanded)
                for (const Range& r : std::get<std::vector<Range>>(segment))
                    for (uint64_t v = r.lo; v <= r.hi; ++v) next.push_back(prefix + padded(v, r.width));
            expanded = std::move(next);
        }
        hosts.insert(hosts.end(), expanded.begin(), expanded.end());
    }
    return hosts;
}

std::string SlurmHostList::first(const std::string& list, const std::string& what) {
    Parser parser(list, what);
    const std::vector<Name> names = parser.names();  // the whole list's syntax is checked
    std::string host;
    for (const Segment& segment : names.front()) {
        if (const auto* text = std::get_if<std::string>(&segment)) {
            host += *text;
        } else {
            const Range& r = std::get<std::vector<Range>>(segment).front();
            host += padded(r.lo, r.width);
        }
    }
    return host;
}

}  // namespace streetgan
