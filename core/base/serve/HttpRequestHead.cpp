#include "base/serve/HttpRequestHead.h"

#include <algorithm>
#include <cstdint>

namespace streetgan {
namespace {

bool isUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

// RFC 9110 token characters (header names).
bool isTchar(char c) {
    if ((c >= 'a' && c <= 'z') || isUpper(c) || isDigit(c)) return true;
    switch (c) {
        case '!':
        case '#':
        case '$':
        case '%':
        case '&':
        case '\'':
        case '*':
        case '+':
        case '-':
        case '.':
        case '^':
        case '_':
        case '`':
        case '|':
        case '~':
            return true;
        default:
            return false;
    }
}

// A request target is visible ASCII (browsers percent-encode everything else).
bool isTargetChar(char c) { return c > 0x20 && c < 0x7f; }

bool equalsNoCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return (x >= 'A' && x <= 'Z' ? x + 32 : x) == (y >= 'A' && y <= 'Z' ? y + 32 : y); });
}

std::string_view trim(std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    return v;
}

HttpRequestHead reject(HttpRequestHead h, int status, std::string reason) {
    h.state = HttpRequestHead::State::Rejected;
    h.status = status;
    h.reason = std::move(reason);
    return h;
}

constexpr size_t kMaxMethod = 16;

}  // namespace

HttpRequestHead HttpRequestHead::scan(std::string_view in, const HttpLimits& limits) {
    HttpRequestHead h;
    // --- request line: METHOD SP target SP HTTP/x.y CRLF, checked byte by byte as it arrives ---
    size_t i = 0;
    while (i < in.size() && isUpper(in[i]) && i < kMaxMethod) ++i;
    if (i < in.size() && (i == 0 || in[i] != ' ')) return reject(h, 400, "malformed request line: expected METHOD /path HTTP/1.1");
    if (i == in.size()) return h;
    h.method.assign(in.data(), i);
    const size_t targetStart = ++i;
    while (i < in.size() && isTargetChar(in[i])) ++i;
    if (i - targetStart > limits.maxRequestLine) return reject(h, 414, "request target too long (limit " + std::to_string(limits.maxRequestLine) + " bytes)");
    if (i == in.size()) return h;
    if (in[i] != ' ' || i == targetStart) return reject(h, 400, "malformed request line: expected METHOD /path HTTP/1.1");
    h.target.assign(in.data() + targetStart, i - targetStart);
    const size_t versionStart = ++i;
    static constexpr std::string_view kHttp = "HTTP/";
    while (i < in.size() && in[i] != '\r' && in[i] != '\n' && i - versionStart < 9) {
        const size_t k = i - versionStart;
        const bool ok = k < kHttp.size() ? in[i] == kHttp[k] : (k == 6 ? in[i] == '.' : isDigit(in[i]));
        if (!ok || k >= 8) return reject(h, 400, "malformed request line: expected METHOD /path HTTP/1.1");
        ++i;
    }
    if (i > limits.maxRequestLine) return reject(h, 414, "request line too long (limit " + std::to_string(limits.maxRequestLine) + " bytes)");
    if (i == in.size()) return h;
    if (in[i] == '\n') return reject(h, 400, "bare LF line end: lines end with CRLF");
    if (i - versionStart != 8) return reject(h, 400, "malformed request line: expected METHOD /path HTTP/1.1");
    const std::string_view version = in.substr(versionStart, 8);
    if (version != "HTTP/1.1" && version != "HTTP/1.0") return reject(h, 505, "HTTP version " + std::string(version) + " not supported; use HTTP/1.1");
    if (i + 1 == in.size()) return h;
    if (in[i + 1] != '\n') return reject(h, 400, "malformed request line: CR without LF");
    i += 2;

    // --- header fields: name ":" value CRLF ... CRLF ---
    size_t fields = 0;
    bool haveLength = false;
    uint64_t length = 0;
    for (;;) {
        if (i > limits.maxHeaderBytes) return reject(h, 431, "request header fields too large (limit " + std::to_string(limits.maxHeaderBytes) + " bytes)");
        if (i == in.size()) return h;
        if (in[i] == '\r') {  // the empty line
            if (i + 1 == in.size()) return h;
            if (in[i + 1] != '\n') return reject(h, 400, "malformed header section: CR without LF");
            i += 2;
            break;
        }
        if (in[i] == '\n') return reject(h, 400, "bare LF line end: lines end with CRLF");
        if (in[i] == ' ' || in[i] == '\t') return reject(h, 400, "folded header line (obsolete line folding is not accepted)");
        const size_t nameStart = i;
        while (i < in.size() && isTchar(in[i])) ++i;
        if (i == in.size()) {
            if (i > limits.maxHeaderBytes) continue;  // reported above on the next turn
            return h;
        }
        if (in[i] != ':' || i == nameStart) return reject(h, 400, "malformed header line: expected Name: value");
        const std::string_view name = in.substr(nameStart, i - nameStart);
        const size_t valueStart = ++i;
        while (i < in.size() && in[i] != '\r' && in[i] != '\n') {
            const auto c = static_cast<unsigned char>(in[i]);
            if ((c < 0x20 && c != '\t') || c == 0x7f) return reject(h, 400, "control byte in header '" + std::string(name.substr(0, 40)) + "'");
            if (i > limits.maxHeaderBytes) break;
            ++i;
        }
        if (i > limits.maxHeaderBytes) return reject(h, 431, "request header fields too large (limit " + std::to_string(limits.maxHeaderBytes) + " bytes)");
        if (i == in.size()) return h;
        if (in[i] == '\n') return reject(h, 400, "bare LF line end: lines end with CRLF");
        if (i + 1 == in.size()) return h;
        if (in[i + 1] != '\n') return reject(h, 400, "malformed header line: CR without LF");
        const std::string_view value = trim(in.substr(valueStart, i - valueStart));
        i += 2;
        if (++fields > limits.maxHeaders) return reject(h, 431, "too many header fields (limit " + std::to_string(limits.maxHeaders) + ")");
        if (equalsNoCase(name, "Content-Length")) {
            if (value.empty() || value.size() > 18 || !std::all_of(value.begin(), value.end(), isDigit))
                return reject(h, 400, "Content-Length must be a decimal byte count");
            uint64_t v = 0;
            for (char c : value) v = v * 10 + static_cast<uint64_t>(c - '0');
            if (haveLength && v != length) return reject(h, 400, "conflicting Content-Length fields");
            haveLength = true;
            length = v;
        } else if (equalsNoCase(name, "Transfer-Encoding")) {
            return reject(h, 411, "chunked or encoded request bodies are not accepted; send a Content-Length");
        } else if (equalsNoCase(name, "Expect")) {
            h.expectContinue = equalsNoCase(value, "100-continue");
        }
    }
    if (length > limits.maxBodyBytes)
        return reject(h, 413, "request body too large: " + std::to_string(length) + " bytes (limit " + std::to_string(limits.maxBodyBytes) + ")");
    h.headComplete = true;
    h.headBytes = i;
    h.bodyBytes = static_cast<size_t>(length);
    h.expectContinue = h.expectContinue && length > 0;
    if (in.size() - i >= length) h.state = State::Complete;
    return h;
}

}  // namespace streetgan
