#include "ml/serve/GalleryServer.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <nlohmann/json.hpp>

#include "base/model/Presets.h"
#include "base/serve/ConnectionLoop.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/GifWriter.h"
#include "ml/export/ImageGrid.h"
#include "ml/latent/LatentSeed.h"
#include "ml/latent/Slerp.h"
#include "ml/model/FrozenGenerator.h"

namespace streetgan {
namespace {

constexpr int kGridPadding = 4;  // the reference's make_grid(padding=4, nrow=4)

std::string presetOf(const ModelConfig& m) {
    for (const auto& name : Presets::names())
        if (Presets::get(name).sameArchitecture(m)) return name;
    return "custom";
}

}  // namespace

class GalleryServer::Impl {
public:
    std::unique_ptr<GalleryRoutes> routes;
    std::unique_ptr<ConnectionLoop> loop;
};

void GalleryOptions::validate() const {
    auto bad = [](const std::string& what) { throw ConfigError("gallery server: " + what); };
    if (host.empty()) bad("the bind address is empty; use e.g. 127.0.0.1:8080");
    if (port < 0 || port > 65535) bad("port must be within 0..65535 (got " + std::to_string(port) + ")");
    if (maxRenders < 0 || maxRenders > 1024) bad("max renders must be within 1..1024, or 0 for the number of cores (got " + std::to_string(maxRenders) + ")");
    if (renderThreads < 1 || renderThreads > 256) bad("render threads must be within 1..256 (got " + std::to_string(renderThreads) + ")");
    if (maxQueuedRenders < -1 || maxQueuedRenders > 65536)
        bad("queued renders must be within 0..65536, or -1 for automatic (got " + std::to_string(maxQueuedRenders) + ")");
    if (maxUnsentBytes < (size_t(1) << 20)) bad("the answers waiting for slow clients need at least 1 MB (got " + std::to_string(maxUnsentBytes) + " bytes)");
    if (maxConnections < 1 || maxConnections > 1000000) bad("max connections must be within 1..1000000 (got " + std::to_string(maxConnections) + ")");
    if (queueTimeoutMs < 1 || headerTimeoutMs < 1 || writeTimeoutMs < 1 || idleTimeoutSeconds < 1)
        bad("the queue, header, write and idle timeouts must be positive");
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
    const CheckpointData ck = Checkpoint::load(checkpointPath);
    Generator g = ModelLoader::generator(ck, checkpointPath, preset, torch::kCPU, ModelLoader::parseChoice(options_.generator));
    model_ = g->config();
    if (options_.maxGifSize < model_.imgSize)
        throw ConfigError("gallery server: max GIF size " + std::to_string(options_.maxGifSize) + " is below the model's " + std::to_string(model_.imgSize) +
                          " px");
    preset_ = presetOf(model_);
    model_.preset = preset_;
    for (const auto& p : g->parameters()) generatorParams_ += p.numel();
    generator_ = std::make_unique<FrozenGenerator>(g, options_.precision);
    // Intra-op threads per render (set again on the render's own thread before each render).
    at::set_num_threads(options_.renderThreads);
    started_ = std::chrono::steady_clock::now();

    if (options_.maxQueuedRenders < 0) options_.maxQueuedRenders = std::max(16, 4 * options_.maxRenders);

    GalleryRouteConfig rc;
    rc.imgSize = static_cast<int>(model_.imgSize);
    rc.maxImages = options_.maxImages;
    rc.minFrames = options_.minFrames;
    rc.maxFrames = options_.maxFrames;
    rc.maxGifSize = options_.maxGifSize;
    rc.corsOrigin = options_.corsOrigin;
    if (isLoopback(options_.host)) {
        rc.allowedHosts = {"127.0.0.1", "localhost", "::1", options_.host};
        rc.allowedHosts.insert(rc.allowedHosts.end(), options_.allowedHosts.begin(), options_.allowedHosts.end());
    }
    rc.retryAfterSeconds = options_.retryAfterSeconds;
    rc.keepAliveSeconds = options_.idleTimeoutSeconds;
    ConnectionLimits limits;
    rc.keepAliveMax = limits.keepAliveMax;
    rc.maxBodyBytes = limits.http.maxBodyBytes;

    GalleryRouteHooks hooks;
    // The reference answers {"Health": "OK"} on both; our details sit beside that key.
    hooks.healthJson = [this] {
        const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        const ConnectionLoop& loop = *impl_->loop;
        nlohmann::json j = {{"Health", "OK"},
                            {"status", "ok"},
                            {"model", std::filesystem::path(checkpointPath_).filename().string()},
                            // The file's name only: any page the user visits may read /health
                            // (CORS), and the absolute path says where the user keeps files.
                            {"checkpoint", std::filesystem::path(checkpointPath_).filename().string()},
                            {"preset", preset_},
                            {"nz", model_.nz},
                            {"img_size", model_.imgSize},
                            {"g_params", generatorParams_},
                            {"uptime_s", uptime},
                            {"renders_in_flight", inFlight_.load()},
                            {"max_renders", options_.maxRenders},
                            {"renders_queued", loop.queuedRenders()},
                            {"max_queued_renders", options_.maxQueuedRenders},
                            {"connections", loop.connections()},
                            {"max_connections", loop.connectionCap()},
                            {"unsent_bytes", loop.unsentBytes()},
                            {"max_unsent_bytes", options_.maxUnsentBytes},
                            {"render_threads", options_.renderThreads},
                            {"precision", options_.precision == FrozenGenerator::Precision::BFloat16 ? "bf16" : "fp32"}};
        return j.dump() + "\n";
    };
    // A render holds its slot (the worker thread) from here; LibTorch's errors lose their backtrace
    // so that a 500 stays one line.
    auto rendering = [this](const std::function<std::string()>& render) {
        ++inFlight_;
        struct Release {
            std::atomic<int>& n;
            ~Release() { n.fetch_sub(1); }
        } release{inFlight_};
        if (options_.beforeRender) options_.beforeRender();
        // The same intra-op thread count for every render, whichever worker runs it and whether it
        // is that worker's first: OpenMP's count is per thread, and ATen hands its own to a thread
        // only when it first opens a parallel region there, so BLAS called before that ran with
        // OpenMP's default (the core count); a different count may split a reduction differently.
        at::set_num_threads(options_.renderThreads);
        try {
            return render();
        } catch (const c10::Error& e) {
            throw std::runtime_error(e.what_without_backtrace());
        }
    };
    hooks.grid = [this, rendering](int n, int nrow, uint64_t seed) { return rendering([&] { return renderGrid(n, nrow, seed); }); };
    hooks.gif = [this, rendering](const GifSpec& spec) { return rendering([&] { return renderGif(spec); }); };
    hooks.busyLine = [this] {
        const ConnectionLoop& loop = *impl_->loop;
        return "server busy: " + std::to_string(inFlight_.load()) + " renders in flight (limit " + std::to_string(options_.maxRenders) + "), " +
               std::to_string(loop.queuedRenders()) + " waiting (limit " + std::to_string(options_.maxQueuedRenders) + "); retry after " +
               std::to_string(options_.retryAfterSeconds) + " s";
    };
    impl_->routes = std::make_unique<GalleryRoutes>(rc, std::move(hooks));

    limits.maxConnections = options_.maxConnections;
    limits.headerTimeoutMs = options_.headerTimeoutMs;
    limits.idleTimeoutMs = options_.idleTimeoutSeconds * 1000;
    limits.writeTimeoutMs = options_.writeTimeoutMs;
    limits.maxUnsentBytes = options_.maxUnsentBytes;
    limits.renderWorkers = options_.maxRenders;
    limits.maxQueuedRenders = static_cast<size_t>(options_.maxQueuedRenders);
    limits.queueTimeoutMs = options_.queueTimeoutMs;
    impl_->loop = std::make_unique<ConnectionLoop>(*impl_->routes, limits);
}

GalleryServer::~GalleryServer() {
    stop();
    if (thread_.joinable()) thread_.join();
}

int GalleryServer::bind() {
    port_ = impl_->loop->bind(options_.host, options_.port);
    return port_;
}

void GalleryServer::listen() {
    if (port_ == 0) bind();
    impl_->loop->run();
}

int GalleryServer::start() {
    const int port = bind();
    thread_ = std::thread([this] { listen(); });
    // Accepting starts with the kernel's listen(); the loop thread picks the connections up.
    return port;
}

void GalleryServer::stop() { impl_->loop->stop(); }

std::string GalleryServer::renderGrid(int n, int nrow, uint64_t seed) const {
    c10::InferenceMode guard;
    const at::Tensor z = LatentSeed::draw(seed, model_.nz, n);
    const at::Tensor images = generator_->forward(z);
    // zlib level 1: the same image about 4x faster than level 6 (generated pictures barely compress).
    return ImageGrid::encodePng(ImageGrid::makeGrid(images, nrow, kGridPadding, true), 1);
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
