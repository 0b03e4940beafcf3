#include "events/EventLineParser.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace streetgan::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Value {
    enum Type { Number, String, Object, Other } type = Other;
    double number = kNaN;
    std::string_view raw;  // String: between the quotes (escapes kept); Object: with braces
    bool escaped = false;
};

inline const char* skipWs(const char* p, const char* e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) ++p;
    return p;
}

// p at the opening quote; returns past the closing quote or nullptr.
inline const char* scanString(const char* p, const char* e, std::string_view& body, bool& escaped) {
    const char* s = ++p;
    escaped = false;
    while (p < e) {
        const char* q = static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(e - p)));
        if (!q) return nullptr;
        // count preceding backslashes
        const char* b = q;
        while (b > s && b[-1] == '\\') --b;
        if (((q - b) & 1) == 0) {
            escaped = std::memchr(s, '\\', static_cast<size_t>(q - s)) != nullptr;
            body = std::string_view(s, static_cast<size_t>(q - s));
            return q + 1;
        }
        p = q + 1;
    }
    return nullptr;
}

// p at '{' or '['; returns past the matching close or nullptr.
const char* skipNested(const char* p, const char* e) {
    int depth = 0;
    while (p < e) {
        const char c = *p;
        if (c == '"') {
            std::string_view sv;
            bool esc;
            p = scanString(p, e, sv, esc);
            if (!p) return nullptr;
            continue;
        }
        if (c == '{' || c == '[') ++depth;
        else if (c == '}' || c == ']') {
            if (--depth == 0) return p + 1;
        }
        ++p;
    }
    return nullptr;
}

std::string unescape(std::string_view s, bool escaped) {
    if (!escaped) return std::string(s);
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 >= s.size()) {
            out += s[i];
            continue;
        }
        const char c = s[++i];
        switch (c) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case 'r': out += '\r'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'u': {
                if (i + 4 < s.size()) {
                    unsigned cp = 0;
                    std::from_chars(s.data() + i + 1, s.data() + i + 5, cp, 16);
                    i += 4;
                    if (cp < 0x80) out += static_cast<char>(cp);
                    else if (cp < 0x800) {
                        out += static_cast<char>(0xC0 | (cp >> 6));
                        out += static_cast<char>(0x80 | (cp & 0x3F));
                    } else {
                        out += static_cast<char>(0xE0 | (cp >> 12));
                        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
                        out += static_cast<char>(0x80 | (cp & 0x3F));
                    }
                }
                break;
            }
            default: out += c;
        }
    }
    return out;
}

// Calls fn(key, value) for each member of the top-level object. Returns false when malformed.
template <class Fn>
bool forEachMember(std::string_view text, Fn&& fn) {
    const char* p = text.data();
    const char* e = p + text.size();
    p = skipWs(p, e);
    if (p >= e || *p != '{') return false;
    p = skipWs(p + 1, e);
    if (p < e && *p == '}') return true;
    while (p < e) {
        if (*p != '"') return false;
        std::string_view key;
        bool esc;
        p = scanString(p, e, key, esc);
        if (!p) return false;
        p = skipWs(p, e);
        if (p >= e || *p != ':') return false;
        p = skipWs(p + 1, e);
        if (p >= e) return false;
        Value v;
        const char c = *p;
        if (c == '"') {
            v.type = Value::String;
            p = scanString(p, e, v.raw, v.escaped);
            if (!p) return false;
        } else if (c == '{' || c == '[') {
            const char* s = p;
            p = skipNested(p, e);
            if (!p) return false;
            v.type = c == '{' ? Value::Object : Value::Other;
            v.raw = std::string_view(s, static_cast<size_t>(p - s));
        } else if (c == 't' || c == 'f' || c == 'n') {
            const size_t len = c == 'f' ? 5 : 4;
            if (static_cast<size_t>(e - p) < len) return false;
            v.type = Value::Other;
            v.raw = std::string_view(p, len);
            p += len;
        } else {
            const char* s = p;
            while (p < e && *p != ',' && *p != '}' && *p != ' ') ++p;
            double d = kNaN;
            const auto r = std::from_chars(s, p, d);
            if (r.ec != std::errc() || r.ptr != p) return false;
            v.type = Value::Number;
            v.number = d;
        }
        fn(key, v);
        p = skipWs(p, e);
        if (p >= e) return false;
        if (*p == '}') return true;
        if (*p != ',') return false;
        p = skipWs(p + 1, e);
    }
    return false;
}

int metricIndex(std::string_view key) {
    for (int i = 0; i < kMetricCount; ++i)
        if (key == metricKey(static_cast<Metric>(i))) return i;
    return -1;
}

}  // namespace

bool EventLineParser::parseEvent(std::string_view line, EventBatch& out) {
    std::string_view kind;
    double t = kNaN, step = kNaN, epoch = kNaN;
    double m[kMetricCount];
    bool anyMetric = false;
    for (double& x : m) x = kNaN;
    SystemSample sys;
    std::string_view state, path, message, device;
    bool messageEsc = false, pathEsc = false;
    double totalSteps = kNaN, stepsPerEpoch = kNaN;
    const bool ok = forEachMember(line, [&](std::string_view key, const Value& v) {
        if (v.type == Value::Number) {
            if (key == "t") t = v.number;
            else if (key == "step") step = v.number;
            else if (key == "epoch") epoch = v.number;
            else if (key == "total_steps") totalSteps = v.number;
            else if (key == "steps_per_epoch") stepsPerEpoch = v.number;
            else if (key == "cpu_percent") sys.cpuPercent = v.number;
            else if (key == "rss_mb") sys.rssMb = v.number;
            else if (key == "gpu_util") sys.gpuUtil = v.number;
            else if (key == "gpu_mem_mb") sys.gpuMemMb = v.number;
            else if (key == "read_mb_s") sys.readMbS = v.number;
            else if (const int i = metricIndex(key); i >= 0) {
                m[i] = v.number;
                anyMetric = true;
            }
        } else if (v.type == Value::String) {
            if (key == "kind") kind = v.raw;
            else if (key == "state") state = v.raw;
            else if (key == "path") {
                path = v.raw;
                pathEsc = v.escaped;
            } else if (key == "message") {
                message = v.raw;
                messageEsc = v.escaped;
            } else if (key == "device") device = v.raw;
        }
    });
    if (!ok) {
        ++badLines_;
        return false;
    }
    ++out.lines;
    if (out.firstT == 0 && std::isfinite(t)) out.firstT = t;
    if (std::isfinite(step)) out.lastStep = static_cast<int64_t>(step);
    if (std::isfinite(totalSteps)) out.totalSteps = static_cast<int64_t>(totalSteps);
    if (kind == "metrics" || (kind.empty() && anyMetric)) {
        auto& c = out.metrics;
        c.t.push_back(t);
        c.step.push_back(step);
        c.epoch.push_back(epoch);
        for (int i = 0; i < kMetricCount; ++i) c.values[static_cast<size_t>(i)].push_back(m[i]);
    } else if (kind == "system") {
        sys.t = t;
        sys.step = step;
        out.system.push_back(sys);
    } else if (kind == "sample" || kind == "checkpoint") {
        RunFileRef ref{std::isfinite(step) ? static_cast<int64_t>(step) : 0, unescape(path, pathEsc)};
        (kind == "sample" ? out.samples : out.checkpoints).push_back(std::move(ref));
    } else if (kind == "status") {
        out.state = std::string(state);
        if (!device.empty()) out.device = std::string(device);
    } else if (kind == "data") {
        if (std::isfinite(stepsPerEpoch)) out.stepsPerEpoch = static_cast<int64_t>(stepsPerEpoch);
    } else if (kind == "error") {
        out.errors.push_back(unescape(message, messageEsc));
    }
    return true;
}

bool EventLineParser::parseProtocol(std::string_view line, EventBatch& out) {
    double offset = kNaN, end = kNaN;
    bool live = false, ended = false, isEvent = false;
    std::string_view state, event, reply;
    const bool ok = forEachMember(line, [&](std::string_view key, const Value& v) {
        if (key == "offset" && v.type == Value::Number) offset = v.number;
        else if (key == "end") {
            if (v.type == Value::Number) end = v.number;
            else if (v.raw == "true") ended = true;
        } else if (key == "live" && v.raw == "true") live = true;
        else if (key == "state" && v.type == Value::String) state = v.raw;
        else if (key == "event" && v.type == Value::Object) {
            event = v.raw;
            isEvent = true;
        } else if (key == "reply" && v.type == Value::Object) reply = v.raw;
    });
    if (!ok) {
        ++badLines_;
        return false;
    }
    if (isEvent) {
        parseEvent(event, out);
        if (std::isfinite(end)) out.endOffset = static_cast<int64_t>(end);
    } else if (!reply.empty()) {
        out.replies.emplace_back(reply);
    } else if (live) {
        out.live = true;
        if (std::isfinite(offset)) out.endOffset = static_cast<int64_t>(offset);
        out.liveState = std::string(state);
    } else if (ended) {
        out.ended = true;
        out.endState = std::string(state);
        if (std::isfinite(offset)) out.endOffset = static_cast<int64_t>(offset);
    } else {
        ++badLines_;
        return false;
    }
    return true;
}

size_t EventLineParser::parseEventChunk(std::string_view data, int64_t baseOffset, EventBatch& out) {
    size_t pos = 0;
    while (pos < data.size()) {
        const void* nl = std::memchr(data.data() + pos, '\n', data.size() - pos);
        if (!nl) break;
        const size_t lineEnd = static_cast<size_t>(static_cast<const char*>(nl) - data.data());
        if (lineEnd > pos) parseEvent(data.substr(pos, lineEnd - pos), out);
        pos = lineEnd + 1;
        out.endOffset = baseOffset + static_cast<int64_t>(pos);
    }
    return pos;
}

}  // namespace streetgan::ui
