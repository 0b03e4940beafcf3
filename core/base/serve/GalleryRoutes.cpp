#include "base/serve/GalleryRoutes.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <random>
#include <set>

#include <httplib.h>

#include "base/serve/GalleryPage.h"

namespace streetgan {
namespace {

constexpr const char* kAllow = "GET, HEAD, OPTIONS";
constexpr int kMaxSpan = 64;                          // /gan_gifs span: 1..kMaxSpan turns of t
constexpr int kMinDelayMs = 20, kMaxDelayMs = 10000;  // browsers show delays under 20 ms as 100 ms

// The pass of the answer() running on this thread: the handlers are std::functions called inside
// httplib's process_request, on the caller's thread, so this is how a handler learns it.
struct PassContext {
    GalleryRoutes::Pass pass;
    bool needsRender = false;
};
thread_local PassContext* tPass = nullptr;

// One complete request in, the response out: what httplib's connection code does with a socket.
class MemoryStream : public httplib::Stream {
public:
    MemoryStream(std::string_view in, const std::string& ip, int port) : in_(in), ip_(ip), port_(port) {}
    bool is_readable() const override { return pos_ < in_.size(); }
    bool is_writable() const override { return true; }
    ssize_t read(char* ptr, size_t size) override {
        const size_t n = std::min(size, in_.size() - pos_);
        std::memcpy(ptr, in_.data() + pos_, n);
        pos_ += n;
        return static_cast<ssize_t>(n);
    }
    ssize_t write(const char* ptr, size_t size) override {
        out.append(ptr, size);
        return static_cast<ssize_t>(size);
    }
    void get_remote_ip_and_port(std::string& ip, int& port) const override {
        ip = ip_;
        port = port_;
    }
    void get_local_ip_and_port(std::string& ip, int& port) const override {
        ip.clear();
        port = 0;
    }
    // Not a socket: httplib's FD_SETSIZE guard (a 500 for descriptors >= 1024 in builds without
    // CPPHTTPLIB_USE_POLL, Debian's among them) must never see our descriptor numbers.
    socket_t socket() const override { return INVALID_SOCKET; }

    std::string out;

private:
    std::string_view in_;
    size_t pos_ = 0;
    const std::string& ip_;
    int port_;
};

/// A 400 with its one-line message.
struct BadRequest {
    std::string message;
};

struct IntParam {
    const char* name;
    int64_t low, high, fallback;
};

// Parameters we do not know are ignored, as the reference (Flask) ignores every parameter: pages
// add cache-busters such as ?t=1699999999. One of ours given twice is ambiguous: a 400.
void checkNotRepeated(const httplib::Request& req, const std::set<std::string>& known) {
    for (const auto& key : known)
        if (req.get_param_value_count(key.c_str()) > 1) throw BadRequest{"parameter '" + key + "' is given more than once"};
}

// A browser navigating to / asks for text/html; probes and scripts ask for */* or JSON.
bool wantsHtml(const httplib::Request& req) { return req.get_header_value("Accept").find("text/html") != std::string::npos; }

// The request headers a CORS preflight asks for, echoed when they are a plain header-name list.
std::string preflightHeaders(const std::string& asked) {
    const bool plain = std::all_of(asked.begin(), asked.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == ',' || c == ' ';
    });
    return plain ? asked : std::string();
}

int64_t intParam(const httplib::Request& req, const IntParam& p) {
    if (!req.has_param(p.name)) return p.fallback;
    const std::string v = req.get_param_value(p.name);
    int64_t out = 0;
    const char* end = v.data() + v.size();
    const auto r = std::from_chars(v.data(), end, out);
    const bool digits = !v.empty() && std::all_of(v.begin() + (v[0] == '-' ? 1 : 0), v.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || r.ec != std::errc() || r.ptr != end || out < p.low || out > p.high)
        throw BadRequest{std::string(p.name) + " must be an integer within " + std::to_string(p.low) + ".." + std::to_string(p.high) + " (got '" +
                         v.substr(0, 40) + "')"};
    return out;
}

// The seed parameter, or a fresh random one (the response names it in X-Seed).
uint64_t seedParam(const httplib::Request& req) {
    if (!req.has_param("seed")) {
        thread_local std::mt19937_64 rng{std::random_device{}()};
        return rng();
    }
    const std::string v = req.get_param_value("seed");
    uint64_t out = 0;
    const char* end = v.data() + v.size();
    const auto r = std::from_chars(v.data(), end, out);
    const bool digits = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || r.ec != std::errc() || r.ptr != end)
        throw BadRequest{"seed must be an integer within 0..18446744073709551615 (got '" + v.substr(0, 40) + "')"};
    return out;
}

void text(httplib::Response& res, int status, const std::string& line) {
    res.status = status;
    res.set_content(line + "\n", "text/plain; charset=utf-8");
}

const char* reasonPhrase(int status) {
    switch (status) {
        case 400:
            return "Bad Request";
        case 404:
            return "Not Found";
        case 408:
            return "Request Timeout";
        case 411:
            return "Length Required";
        case 413:
            return "Payload Too Large";
        case 414:
            return "URI Too Long";
        case 431:
            return "Request Header Fields Too Large";
        case 500:
            return "Internal Server Error";
        case 503:
            return "Service Unavailable";
        case 505:
            return "HTTP Version Not Supported";
        default:
            return "Error";
    }
}

// The name of a Host header, lowercase, without its port: "Example.org:8080" -> "example.org",
// "[::1]:8080" -> "::1".
std::string hostName(const std::string& header) {
    std::string h = header;
    if (!h.empty() && h.front() == '[') {
        const auto close = h.find(']');
        h = close == std::string::npos ? h.substr(1) : h.substr(1, close - 1);
    } else if (const auto colon = h.rfind(':'); colon != std::string::npos && h.find(':') == colon) {
        h = h.substr(0, colon);
    }
    std::transform(h.begin(), h.end(), h.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return h;
}

// At most 100 bytes of `s`, printable ASCII only (the 421's text quotes a header a client chose).
std::string printableAscii(const std::string& s) {
    std::string out;
    for (unsigned char ch : s.substr(0, 100)) out += (ch >= 0x20 && ch < 0x7f) ? static_cast<char>(ch) : '?';
    return out;
}

}  // namespace

// httplib's process_request is protected: a subclass reaches it. Its own listen/bind are unused.
class GalleryRoutes::Router : public httplib::Server {
public:
    using Setup = std::function<void(httplib::Request&)>;
    /// process_request in the form this httplib has: cpp-httplib 0.11 (Debian 12) takes the stream
    /// and the connection flags, 0.18 (Debian 13) the peer's and the local address before them
    /// (which it would otherwise read from the stream, as 0.11 does). The int overload is preferred.
    template <typename Stream>
    auto process(Stream& strm, bool close, bool& closed, const Setup& setup, int)
        -> decltype(this->process_request(strm, std::string(), 0, std::string(), 0, close, closed, setup)) {
        std::string remoteIp, localIp;
        int remotePort = 0, localPort = 0;
        strm.get_remote_ip_and_port(remoteIp, remotePort);
        strm.get_local_ip_and_port(localIp, localPort);
        return process_request(strm, remoteIp, remotePort, localIp, localPort, close, closed, setup);
    }
    template <typename Stream>
    auto process(Stream& strm, bool close, bool& closed, const Setup& setup, long) -> decltype(this->process_request(strm, close, closed, setup)) {
        return process_request(strm, close, closed, setup);
    }
};

GalleryRoutes::GalleryRoutes(GalleryRouteConfig config, const GalleryRouteHooks& hooks) : router_(std::make_unique<Router>()), config_(std::move(config)) {
    httplib::Server& http = *router_;
    httplib::Headers defaults = {{"Cache-Control", "no-store"}};
    if (!config_.corsOrigin.empty()) {
        defaults.emplace("Access-Control-Allow-Origin", config_.corsOrigin);
        defaults.emplace("Access-Control-Expose-Headers", "X-Seed");  // scripts may read the seed
    }
    http.set_default_headers(defaults);
    http.set_payload_max_length(config_.maxBodyBytes);
    http.set_keep_alive_timeout(config_.keepAliveSeconds);
    http.set_keep_alive_max_count(static_cast<size_t>(config_.keepAliveMax));

    const std::set<std::string> knownPaths = {"/", "/health", "/gallery", "/gan_imgs", "/gan_gifs"};
    GalleryRouteConfig c = config_;
    // The names as a Host header's are compared: lowercase, IPv6 without brackets.
    std::vector<std::string> names;
    for (const auto& h : c.allowedHosts)
        if (std::find(names.begin(), names.end(), hostName(h)) == names.end()) names.push_back(hostName(h));
    c.allowedHosts = names;
    if (!c.allowedHosts.empty())
        http.set_pre_routing_handler([c](const httplib::Request& req, httplib::Response& res) {
            if (!req.has_header("Host")) return httplib::Server::HandlerResponse::Unhandled;
            const std::string host = hostName(req.get_header_value("Host"));
            if (std::find(c.allowedHosts.begin(), c.allowedHosts.end(), host) != c.allowedHosts.end()) return httplib::Server::HandlerResponse::Unhandled;
            std::string names;
            for (const auto& h : c.allowedHosts) names += (names.empty() ? "" : ", ") + h;
            text(res, 421, "Host '" + printableAscii(host) + "' is not a name of this server (" + names + "): open it by one of those");
            return httplib::Server::HandlerResponse::Handled;
        });
    auto busyLine = hooks.busyLine;

    // Classify: note that a render is wanted; Busy: 503; Render: run `body`.
    auto render = [c, busyLine](httplib::Response& res, const std::function<void()>& body) {
        PassContext* ctx = tPass;
        if (!ctx || ctx->pass == Pass::Classify) {
            if (ctx) ctx->needsRender = true;
            return;
        }
        if (ctx->pass == Pass::Busy) {
            res.set_header("Retry-After", std::to_string(c.retryAfterSeconds));
            text(res, 503, busyLine ? busyLine() : "server busy; retry after " + std::to_string(c.retryAfterSeconds) + " s");
            return;
        }
        body();
    };

    // Wraps a handler: 400 for BadRequest, 500 (one line) for anything else.
    auto guarded = [](const std::function<void(const httplib::Request&, httplib::Response&)>& handler) {
        return [handler](const httplib::Request& req, httplib::Response& res) {
            try {
                handler(req, res);
            } catch (const BadRequest& e) {
                text(res, 400, e.message);
            } catch (const std::exception& e) {
                text(res, 500, std::string("render failed: ") + e.what());
            }
        };
    };

    // The reference answers {"Health": "OK"} on both; our details sit beside that key.
    auto healthJson = hooks.healthJson;
    auto health = [healthJson](httplib::Response& res) { res.set_content(healthJson ? healthJson() : "{\"Health\": \"OK\"}\n", "application/json"); };
    http.Get("/", guarded([health](const httplib::Request& req, httplib::Response& res) {
                 res.set_header("Vary", "Accept");
                 if (wantsHtml(req))
                     res.set_content(GalleryPage::html(), "text/html; charset=utf-8");
                 else
                     health(res);
             }));
    http.Get("/health", guarded([health](const httplib::Request&, httplib::Response& res) { health(res); }));
    http.Get("/gallery", guarded([](const httplib::Request&, httplib::Response& res) { res.set_content(GalleryPage::html(), "text/html; charset=utf-8"); }));
    auto grid = hooks.grid;
    http.Get("/gan_imgs", guarded([c, grid, render](const httplib::Request& req, httplib::Response& res) {
                 checkNotRepeated(req, {"n", "nrow", "seed"});
                 const int n = static_cast<int>(intParam(req, {"n", 1, c.maxImages, std::min(16, c.maxImages)}));
                 const int nrow = static_cast<int>(intParam(req, {"nrow", 1, c.maxImages, 4}));
                 const uint64_t seed = seedParam(req);
                 render(res, [&] {
                     res.set_content(grid(n, nrow, seed), "image/png");
                     res.set_header("X-Seed", std::to_string(seed));
                 });
             }));
    auto gif = hooks.gif;
    http.Get("/gan_gifs", guarded([c, gif, render](const httplib::Request& req, httplib::Response& res) {
                 checkNotRepeated(req, {"frames", "seed", "size", "span", "delay"});
                 GifSpec spec;
                 spec.frames = static_cast<int>(intParam(req, {"frames", c.minFrames, c.maxFrames, std::clamp(spec.frames, c.minFrames, c.maxFrames)}));
                 spec.size = static_cast<int>(intParam(req, {"size", c.imgSize, c.maxGifSize, c.imgSize}));
                 spec.span = static_cast<int>(intParam(req, {"span", 1, kMaxSpan, spec.span}));
                 spec.delayMs = static_cast<int>(intParam(req, {"delay", kMinDelayMs, kMaxDelayMs, spec.delayMs}));
                 spec.seed = seedParam(req);
                 render(res, [&] {
                     res.set_content(gif(spec), "image/gif");
                     res.set_header("X-Seed", std::to_string(spec.seed));
                 });
             }));
    // OPTIONS: what a path allows; for a CORS preflight also what a script may send (our answers do
    // not depend on request headers, so any asked for is allowed). Without CORS the preflight gets
    // no Allow-Origin and the browser refuses the script, as intended.
    http.Options(".*", [c, knownPaths](const httplib::Request& req, httplib::Response& res) {
        if (!knownPaths.count(req.path)) {
            res.status = 404;
            return;
        }
        res.status = 204;
        res.set_header("Allow", kAllow);
        if (!c.corsOrigin.empty() && req.has_header("Access-Control-Request-Method")) {
            res.set_header("Access-Control-Allow-Methods", kAllow);
            const std::string headers = preflightHeaders(req.get_header_value("Access-Control-Request-Headers"));
            if (!headers.empty()) res.set_header("Access-Control-Allow-Headers", headers);
            res.set_header("Access-Control-Max-Age", "600");
        }
    });
    // Other methods: 405 on our paths, 404 elsewhere.
    auto notAllowed = [knownPaths](const httplib::Request& req, httplib::Response& res) {
        if (knownPaths.count(req.path)) {
            res.set_header("Allow", kAllow);
            text(res, 405, "method " + req.method + " not allowed on " + req.path + "; use GET");
        } else {
            res.status = 404;
        }
    };
    http.Post(".*", notAllowed);
    http.Put(".*", notAllowed);
    http.Patch(".*", notAllowed);
    http.Delete(".*", notAllowed);
    http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return;
        if (res.status == 404)
            text(res, 404, "not found: " + req.path + " (try /gallery, /gan_imgs, /gan_gifs or /health)");
        else
            text(res, res.status, "HTTP " + std::to_string(res.status) + " for " + req.method + " " + req.path);
    });
}

GalleryRoutes::~GalleryRoutes() = default;

GalleryRoutes::Answer GalleryRoutes::answer(std::string_view request, Pass pass, bool closeAfter, const std::string& peerIp, int peerPort) const {
    MemoryStream stream(request, peerIp, peerPort);
    PassContext ctx{pass};
    PassContext* const outer = tPass;
    tPass = &ctx;
    struct Restore {
        PassContext* outer;
        ~Restore() { tPass = outer; }
    } restore{outer};
    bool closed = false;
    // The connection loop has the whole body already (and answered any 100-continue itself), so
    // httplib must not write a second "100 Continue". Range is ignored (RFC 9110 lets a server
    // ignore it; we never send Accept-Ranges): every answer is made afresh for its request (a new
    // seed, no-store), so a byte range of one says nothing about another, and httplib would apply
    // it to any answer, turning a 503 or a 400 into a 416 or a slice of its text (found by fuzzing).
    router_->process(
        stream, closeAfter, closed,
        [](httplib::Request& req) {
            req.headers.erase("Expect");
            req.headers.erase("Range");
            req.ranges.clear();
        },
        0);
    Answer a;
    a.bytes = std::move(stream.out);
    a.needsRender = ctx.needsRender;
    a.close = closeAfter || closed;
    if (a.bytes.size() >= 12 && a.bytes.compare(0, 5, "HTTP/") == 0) {
        int status = 0;
        std::from_chars(a.bytes.data() + 9, a.bytes.data() + 12, status);
        a.status = status;
    }
    return a;
}

std::string GalleryRoutes::refusal(int status, const std::string& line) const {
    const std::string body = line + "\n";
    std::string r = "HTTP/1.1 " + std::to_string(status) + " " + reasonPhrase(status) + "\r\n";
    r += "Cache-Control: no-store\r\n";
    if (!config_.corsOrigin.empty()) {
        r += "Access-Control-Allow-Origin: " + config_.corsOrigin + "\r\n";
        r += "Access-Control-Expose-Headers: X-Seed\r\n";
    }
    if (status == 503) r += "Retry-After: " + std::to_string(config_.retryAfterSeconds) + "\r\n";
    r += "Connection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    return r + body;
}

}  // namespace streetgan
