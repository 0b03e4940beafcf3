#include "ml/serve/GalleryServer.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/model/Presets.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/GifWriter.h"
#include "ml/export/ImageGrid.h"
#include "ml/latent/LatentSeed.h"
#include "ml/latent/Slerp.h"
#include "ml/serve/FrozenGenerator.h"
#include "ml/serve/GalleryPage.h"

namespace streetgan {
namespace {

constexpr int kGridPadding = 4;  // the reference's make_grid(padding=4, nrow=4)
constexpr const char* kAllow = "GET, HEAD, OPTIONS";
constexpr int kMaxSpan = 64;                          // /gan_gifs span: 1..kMaxSpan turns of t
constexpr int kMinDelayMs = 20, kMaxDelayMs = 10000;  // browsers show delays under 20 ms as 100 ms

// httplib's task queue, bounded: `threads` workers; at most `maxQueued` connections wait. Beyond
// that the acceptor thread serves the connection itself, so it stops accepting meanwhile and the
// kernel's listen backlog holds (and eventually refuses) the rest: memory stays bounded.
class BoundedTaskQueue : public httplib::TaskQueue {
public:
    BoundedTaskQueue(size_t threads, size_t maxQueued) : maxQueued_(maxQueued) {
        for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
    }
    ~BoundedTaskQueue() override { shutdown(); }

    void enqueue(std::function<void()> fn) override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!stopping_ && jobs_.size() < maxQueued_) {
                jobs_.push_back(std::move(fn));
                cv_.notify_one();
                return;
            }
        }
        fn();
    }

    void shutdown() override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (stopping_ && workers_.empty()) return;
            stopping_ = true;
        }
        cv_.notify_all();
        for (auto& t : workers_)
            if (t.joinable()) t.join();
        workers_.clear();
    }

private:
    void work() {
        for (;;) {
            std::function<void()> fn;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
                if (jobs_.empty()) return;  // stopping, and every accepted connection was served
                fn = std::move(jobs_.front());
                jobs_.pop_front();
            }
            fn();
        }
    }

    size_t maxQueued_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> jobs_;
    std::vector<std::thread> workers_;
    bool stopping_ = false;
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

// ImageGrid::encodePng's pixels (save_image's x * 255 + 0.5, clamped, truncated) with zlib level 1:
// the same image, encoded about 4x faster than level 6 (generated pictures barely compress anyway).
std::string encodePngFast(const at::Tensor& chw01) {
    const at::Tensor hwc = chw01.mul(255).add_(0.5).clamp_(0, 255).permute({1, 2, 0}).to(at::kCPU, at::kByte).contiguous();
    cv::Mat rgb(static_cast<int>(hwc.size(0)), static_cast<int>(hwc.size(1)), CV_8UC3, hwc.data_ptr<uint8_t>());
    cv::Mat bgr;
    cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    std::vector<uchar> buf;
    if (!cv::imencode(".png", bgr, buf, {cv::IMWRITE_PNG_COMPRESSION, 1})) throw IoError("gallery server: OpenCV could not encode a PNG");
    return std::string(buf.begin(), buf.end());
}

std::string presetOf(const ModelConfig& m) {
    for (const auto& name : Presets::names())
        if (Presets::get(name).sameArchitecture(m)) return name;
    return "custom";
}

}  // namespace

class GalleryServer::Impl {
public:
    httplib::Server http;
    std::atomic<bool> stopRequested{false};
    std::atomic<bool> listening{false};
    bool bound = false;
    std::atomic<bool> listened{false};
};

void GalleryOptions::validate() const {
    auto bad = [](const std::string& what) { throw ConfigError("gallery server: " + what); };
    if (host.empty()) bad("the bind address is empty; use e.g. 127.0.0.1:8080");
    if (port < 0 || port > 65535) bad("port must be within 0..65535 (got " + std::to_string(port) + ")");
    if (maxRenders < 0 || maxRenders > 1024) bad("max renders must be within 1..1024, or 0 for the number of cores (got " + std::to_string(maxRenders) + ")");
    if (renderThreads < 1 || renderThreads > 256) bad("render threads must be within 1..256 (got " + std::to_string(renderThreads) + ")");
    if (httpThreads < 0 || httpThreads > 4096) bad("HTTP threads must be within 1..4096, or 0 for automatic (got " + std::to_string(httpThreads) + ")");
    if (maxQueuedConnections < 1) bad("the connection queue must hold at least 1 (got " + std::to_string(maxQueuedConnections) + ")");
    if (retryAfterSeconds < 1) bad("Retry-After must be at least 1 s");
    if (maxImages < 1 || maxImages > 1024) bad("max images must be within 1..1024 (got " + std::to_string(maxImages) + ")");
    if (minFrames < 1 || maxFrames < minFrames || maxFrames > 1024)
        bad("frames must satisfy 1 <= min <= max <= 1024 (got " + std::to_string(minFrames) + ".." + std::to_string(maxFrames) + ")");
    if (maxGifSize < 1 || maxGifSize > 4096) bad("max GIF size must be within 1..4096 (got " + std::to_string(maxGifSize) + ")");
    if (!corsOrigin.empty() && corsOrigin != "*") {
        // One serialised origin (RFC 6454): scheme "://" host [":" port], no path, nothing a header
        // value could not carry.
        const auto sep = corsOrigin.find("://");
        const bool schemeOk =
            sep != std::string::npos && sep > 0 && std::all_of(corsOrigin.begin(), corsOrigin.begin() + static_cast<std::ptrdiff_t>(sep), [](char c) {
                return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
            });
        const std::string rest = schemeOk ? corsOrigin.substr(sep + 3) : std::string();
        const bool hostOk = !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == ':' || c == '[' || c == ']';
        });
        if (!hostOk)
            bad("CORS origin '" + corsOrigin.substr(0, 80) + "' is not '*' or an origin such as https://blog.example.org (scheme://host[:port], no path)");
    }
}

bool GalleryServer::isLoopback(const std::string& host) {
    if (host == "localhost" || host == "::1" || host == "[::1]") return true;
    in_addr a{};
    if (inet_pton(AF_INET, host.c_str(), &a) == 1) return (ntohl(a.s_addr) >> 24) == 127;
    return false;
}

GalleryServer::GalleryServer(const std::string& checkpointPath, const std::string& preset, GalleryOptions options)
    : options_(std::move(options)), checkpointPath_(checkpointPath), impl_(std::make_unique<Impl>()) {
    options_.validate();
    if (options_.maxRenders == 0) options_.maxRenders = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (options_.httpThreads == 0) options_.httpThreads = 2 * options_.maxRenders + 8;
    const CheckpointData ck = Checkpoint::load(checkpointPath);
    Generator g = ModelLoader::generator(ck, checkpointPath, preset, torch::kCPU);
    model_ = g->config();
    if (options_.maxGifSize < model_.imgSize)
        throw ConfigError("gallery server: max GIF size " + std::to_string(options_.maxGifSize) + " is below the model's " + std::to_string(model_.imgSize) +
                          " px");
    preset_ = presetOf(model_);
    model_.preset = preset_;
    for (const auto& p : g->parameters()) generatorParams_ += p.numel();
    generator_ = std::make_unique<FrozenGenerator>(g, options_.precision);
    // Intra-op threads per render: a process-wide LibTorch setting that every new thread inherits.
    at::set_num_threads(options_.renderThreads);
    started_ = std::chrono::steady_clock::now();

    httplib::Server& http = impl_->http;
    const size_t threads = static_cast<size_t>(options_.httpThreads), queued = static_cast<size_t>(options_.maxQueuedConnections);
    http.new_task_queue = [threads, queued] { return new BoundedTaskQueue(threads, queued); };
    httplib::Headers defaults = {{"Cache-Control", "no-store"}};
    if (!options_.corsOrigin.empty()) {
        defaults.emplace("Access-Control-Allow-Origin", options_.corsOrigin);
        defaults.emplace("Access-Control-Expose-Headers", "X-Seed");  // scripts may read the seed
    }
    http.set_default_headers(defaults);
    http.set_tcp_nodelay(true);
    // httplib's default also sets SO_REUSEPORT, which lets a second server share the port silently;
    // SO_REUSEADDR alone restarts quickly and still reports a port in use.
    http.set_socket_options([](socket_t sock) {
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    http.set_payload_max_length(size_t{64} * 1024);
    http.set_read_timeout(10, 0);
    http.set_keep_alive_timeout(5);
    http.set_keep_alive_max_count(1000);

    const std::set<std::string> knownPaths = {"/", "/health", "/gallery", "/gan_imgs", "/gan_gifs"};

    // Runs `body` with a render slot, or answers 503 at once when all slots are taken.
    auto withSlot = [this](httplib::Response& res, const std::function<void()>& body) {
        int current = inFlight_.load();
        do {
            if (current >= options_.maxRenders) {
                res.set_header("Retry-After", std::to_string(options_.retryAfterSeconds));
                text(res, 503,
                     "server busy: " + std::to_string(current) + " renders in flight (limit " + std::to_string(options_.maxRenders) + "); retry after " +
                         std::to_string(options_.retryAfterSeconds) + " s");
                return;
            }
        } while (!inFlight_.compare_exchange_weak(current, current + 1));
        struct Release {
            std::atomic<int>& n;
            ~Release() { n.fetch_sub(1); }
        } release{inFlight_};
        if (options_.beforeRender) options_.beforeRender();
        body();
    };

    // Wraps a handler: 400 for BadRequest, 500 (one line) for anything else.
    auto guarded = [](const std::function<void(const httplib::Request&, httplib::Response&)>& handler) {
        return [handler](const httplib::Request& req, httplib::Response& res) {
            try {
                handler(req, res);
            } catch (const BadRequest& e) {
                text(res, 400, e.message);
            } catch (const c10::Error& e) {
                text(res, 500, std::string("render failed: ") + e.what_without_backtrace());
            } catch (const std::exception& e) {
                text(res, 500, std::string("render failed: ") + e.what());
            }
        };
    };

    // The reference answers {"Health": "OK"} on both; our details sit beside that key.
    auto health = [this](httplib::Response& res) {
        const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        nlohmann::json j = {{"Health", "OK"},
                            {"status", "ok"},
                            {"model", std::filesystem::path(checkpointPath_).filename().string()},
                            {"checkpoint", checkpointPath_},
                            {"preset", preset_},
                            {"nz", model_.nz},
                            {"img_size", model_.imgSize},
                            {"g_params", generatorParams_},
                            {"uptime_s", uptime},
                            {"renders_in_flight", inFlight_.load()},
                            {"max_renders", options_.maxRenders},
                            {"render_threads", options_.renderThreads},
                            {"precision", options_.precision == FrozenGenerator::Precision::BFloat16 ? "bf16" : "fp32"}};
        res.set_content(j.dump() + "\n", "application/json");
    };
    http.Get("/", guarded([health](const httplib::Request& req, httplib::Response& res) {
                 res.set_header("Vary", "Accept");
                 if (wantsHtml(req))
                     res.set_content(GalleryPage::html(), "text/html; charset=utf-8");
                 else
                     health(res);
             }));
    http.Get("/health", guarded([health](const httplib::Request&, httplib::Response& res) { health(res); }));
    http.Get("/gallery",
             guarded([](const httplib::Request& req, httplib::Response& res) { res.set_content(GalleryPage::html(), "text/html; charset=utf-8"); }));
    http.Get("/gan_imgs", guarded([this, withSlot](const httplib::Request& req, httplib::Response& res) {
                 checkNotRepeated(req, {"n", "nrow", "seed"});
                 const int n = static_cast<int>(intParam(req, {"n", 1, options_.maxImages, std::min(16, options_.maxImages)}));
                 const int nrow = static_cast<int>(intParam(req, {"nrow", 1, options_.maxImages, 4}));
                 const uint64_t seed = seedParam(req);
                 withSlot(res, [&] {
                     res.set_content(renderGrid(n, nrow, seed), "image/png");
                     res.set_header("X-Seed", std::to_string(seed));
                 });
             }));
    http.Get("/gan_gifs", guarded([this, withSlot](const httplib::Request& req, httplib::Response& res) {
                 checkNotRepeated(req, {"frames", "seed", "size", "span", "delay"});
                 GifSpec spec;
                 spec.frames = static_cast<int>(
                     intParam(req, {"frames", options_.minFrames, options_.maxFrames, std::clamp(spec.frames, options_.minFrames, options_.maxFrames)}));
                 spec.size = static_cast<int>(intParam(req, {"size", model_.imgSize, options_.maxGifSize, model_.imgSize}));
                 spec.span = static_cast<int>(intParam(req, {"span", 1, kMaxSpan, spec.span}));
                 spec.delayMs = static_cast<int>(intParam(req, {"delay", kMinDelayMs, kMaxDelayMs, spec.delayMs}));
                 spec.seed = seedParam(req);
                 withSlot(res, [&] {
                     res.set_content(renderGif(spec), "image/gif");
                     res.set_header("X-Seed", std::to_string(spec.seed));
                 });
             }));
    // OPTIONS: what a path allows; for a CORS preflight also what a script may send (our answers do
    // not depend on request headers, so any asked for is allowed). Without CORS the preflight gets
    // no Allow-Origin and the browser refuses the script, as intended.
    http.Options(".*", [this, knownPaths](const httplib::Request& req, httplib::Response& res) {
        if (!knownPaths.count(req.path)) {
            res.status = 404;
            return;
        }
        res.status = 204;
        res.set_header("Allow", kAllow);
        if (!options_.corsOrigin.empty() && req.has_header("Access-Control-Request-Method")) {
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

GalleryServer::~GalleryServer() {
    stop();
    if (thread_.joinable()) thread_.join();
    if (impl_->bound && !impl_->listened) {
        // httplib closes a bound socket only in stop() while listening: listen briefly to release it.
        std::thread closer([this] { impl_->http.listen_after_bind(); });
        while (!impl_->http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        impl_->http.stop();
        closer.join();
    }
}

int GalleryServer::bind() {
    httplib::Server& http = impl_->http;
    int port = options_.port;
    bool ok = false;
    if (port == 0) {
        port = http.bind_to_any_port(options_.host);
        ok = port > 0;
    } else {
        ok = http.bind_to_port(options_.host, port);
    }
    if (!ok)
        throw IoError("gallery server: cannot bind " + options_.host + ":" + std::to_string(options_.port) +
                      " (address in use or not available); choose another --bind");
    impl_->bound = true;
    port_ = port;
    return port_;
}

void GalleryServer::listen() {
    if (!impl_->bound) bind();
    impl_->listening = true;
    if (!impl_->stopRequested) {
        impl_->listened = true;
        impl_->http.listen_after_bind();
    }
    impl_->listening = false;
}

int GalleryServer::start() {
    const int port = bind();
    impl_->listening = true;  // before the thread starts, so that stop() waits for the accept loop
    thread_ = std::thread([this] { listen(); });
    while (impl_->listening && !impl_->http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return port;
}

void GalleryServer::stop() {
    impl_->stopRequested = true;
    // listen() may be between its stop check and httplib's start of the accept loop: wait for it.
    while (impl_->listening && !impl_->http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    impl_->http.stop();
}

std::string GalleryServer::renderGrid(int n, int nrow, uint64_t seed) const {
    c10::InferenceMode guard;
    const at::Tensor z = LatentSeed::draw(seed, model_.nz, n);
    const at::Tensor images = generator_->forward(z);
    return encodePngFast(ImageGrid::makeGrid(images, nrow, kGridPadding, true));
}

std::string GalleryServer::renderGif(const GifSpec& spec) const {
    if (spec.frames < 1 || spec.span < 0 || spec.size < 0)
        throw ConfigError("gallery server: a GIF needs frames >= 1, span >= 0 and size >= 0 (got " + std::to_string(spec.frames) + ", " +
                          std::to_string(spec.span) + ", " + std::to_string(spec.size) + ")");
    c10::InferenceMode guard;
    const at::Tensor z0 = LatentSeed::draw(spec.seed, model_.nz);
    const at::Tensor z1 = LatentSeed::draw(spec.seed + 1, model_.nz);  // wraps at 2^64 - 1
    // The reference's t = torch.linspace(0, 8, n_frames): past t = 1 the walk goes on round the
    // great circle through z0 and z1 (Slerp extrapolates for any t).
    std::vector<double> ts(static_cast<size_t>(spec.frames), 0.0);
    for (int i = 1; i < spec.frames; ++i) ts[static_cast<size_t>(i)] = static_cast<double>(spec.span) * i / (spec.frames - 1);
    const at::Tensor zs = Slerp::interpolate(z0, z1, ts);  // (frames, nz): one generator batch
    const at::Tensor images = generator_->forward(zs);
    // Each frame min-max normalised on its own, as the reference's make_grid(normalize=True) on one
    // frame, then ToPILImage's mul(255) truncated to uint8.
    std::vector<at::Tensor> frames;
    frames.reserve(static_cast<size_t>(spec.frames));
    for (int64_t i = 0; i < images.size(0); ++i) frames.push_back(ImageGrid::makeGrid(images[i], 1, kGridPadding, true));
    const at::Tensor hwc = at::stack(frames).mul_(255).clamp_(0, 255).to(at::kByte).permute({0, 2, 3, 1}).contiguous();
    GifOptions o;
    o.palette = GifOptions::Palette::Global;
    o.frameDelayMs = spec.delayMs;
    o.loopCount = 0;
    o.width = o.height = spec.size > 0 ? spec.size : static_cast<int>(model_.imgSize);
    o.resample = GifOptions::Resample::Nearest;  // crisp pixels, like the page's grid; quantised at model size
    o.speed = 8;
    return GifWriter(o).encode(hwc);
}

}  // namespace streetgan
