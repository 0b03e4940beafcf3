#include "ml/explore/ExploreOps.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <set>

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include "base/latent/LatentSession.h"
#include "base/util/Errors.h"
#include "ml/export/FrameRenderer.h"
#include "ml/export/GifWriter.h"
#include "ml/export/ImageGrid.h"
#include "ml/export/RenderPrecision.h"
#include "ml/export/SessionExporter.h"
#include "ml/latent/LatentSeed.h"
#include "ml/latent/PcaDirections.h"
#include "ml/latent/SessionLatents.h"
#include "ml/latent/Truncation.h"

namespace streetgan {
using nlohmann::json;

namespace {

[[noreturn]] void bad(const std::string& key, const std::string& what) { throw ConfigError("request field '" + key + "' " + what); }

const json& required(const json& r, const std::string& key) {
    const auto it = r.find(key);
    if (it == r.end() || it->is_null()) bad(key, "is missing; see docs/explore-worker.md for the op's fields");
    return *it;
}

std::string str(const json& r, const std::string& key) {
    const json& v = required(r, key);
    if (!v.is_string() || v.get<std::string>().empty()) bad(key, "must be a non-empty string");
    return v.get<std::string>();
}

int64_t integer(const json& r, const std::string& key, int64_t def, int64_t lo, int64_t hi) {
    const auto it = r.find(key);
    if (it == r.end() || it->is_null()) return def;
    if (!it->is_number_integer()) bad(key, "must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + " (got " + it->dump() + ")");
    const int64_t v = it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : it->get<int64_t>();
    if (v < lo || v > hi) bad(key, "must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + " (got " + it->dump() + ")");
    return v;
}

double number(const json& r, const std::string& key, double def, double lo, double hi) {
    const auto it = r.find(key);
    if (it == r.end() || it->is_null()) return def;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < lo || it->get<double>() > hi)
        bad(key, "must be a number in " + std::to_string(lo) + ".." + std::to_string(hi) + " (got " + it->dump() + ")");
    return it->get<double>();
}

bool boolean(const json& r, const std::string& key, bool def) {
    const auto it = r.find(key);
    if (it == r.end() || it->is_null()) return def;
    if (!it->is_boolean()) bad(key, "must be true or false (got " + it->dump() + ")");
    return it->get<bool>();
}

std::vector<uint64_t> seeds(const json& r, const std::string& key) {
    const json& v = required(r, key);
    if (!v.is_array() || v.empty() || v.size() > 4096) bad(key, "must be a list of 1..4096 seeds (integers 0..2^63-1)");
    std::vector<uint64_t> out;
    for (const json& s : v) {
        if (!s.is_number_integer() || (!s.is_number_unsigned() && s.get<int64_t>() < 0) ||
            (s.is_number_unsigned() && s.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)))
            bad(key, "must hold integers 0..2^63-1 (got " + s.dump() + ")");
        out.push_back(s.get<uint64_t>());
    }
    return out;
}

LatentSession sessionOf(const json& r) {
    const json& s = required(r, "session");
    if (!s.is_object()) bad("session", "must be a session JSON object (docs/cli.md, \"Session file\")");
    return LatentSession::fromJson(s);
}

// The checkpoint of a session op: the request's "checkpoint", else the session's own (which must
// then be absolute: a request has no session file to resolve it against).
std::string sessionCheckpoint(const json& r, const LatentSession& s) {
    if (r.contains("checkpoint")) return str(r, "checkpoint");
    return s.resolveCheckpoint("", "");
}

FrameRenderer::Upscale upscaleOf(const json& r) {
    const auto it = r.find("upscale");
    if (it == r.end() || it->is_null() || *it == "nearest") return FrameRenderer::Upscale::Nearest;
    if (*it == "smooth") return FrameRenderer::Upscale::Smooth;
    bad("upscale", "must be \"nearest\" or \"smooth\" (got " + it->dump() + ")");
}

// Generator input from "seeds" (LatentSeed::draw(seed, nz) each, the session keyframe draw),
// "z" (explicit vectors) or "fixed_noise" (the checkpoint's first K rows; 0 = all): (N, nz, 1, 1).
at::Tensor latentsOf(const json& r, const LoadedGenerator& lg) {
    const int given = static_cast<int>(r.contains("seeds")) + static_cast<int>(r.contains("z")) + static_cast<int>(r.contains("fixed_noise"));
    if (given != 1) bad("seeds", "(or 'z' or 'fixed_noise'): give exactly one of the three");
    const int64_t nz = lg.nz;
    if (r.contains("seeds")) {
        std::vector<at::Tensor> rows;
        for (uint64_t s : seeds(r, "seeds")) rows.push_back(LatentSeed::draw(s, nz));
        return at::stack(rows).reshape({static_cast<int64_t>(rows.size()), nz, 1, 1});
    }
    if (r.contains("z")) {
        const json& z = r.at("z");
        if (!z.is_array() || z.empty() || z.size() > 4096) bad("z", "must be a list of 1..4096 latent vectors");
        at::Tensor out = at::empty({static_cast<int64_t>(z.size()), nz}, at::kFloat);
        auto acc = out.accessor<float, 2>();
        for (size_t i = 0; i < z.size(); ++i) {
            if (!z[i].is_array() || static_cast<int64_t>(z[i].size()) != nz)
                bad("z", "row " + std::to_string(i) + " must hold nz=" + std::to_string(nz) + " numbers for checkpoint '" + lg.path + "'");
            for (int64_t k = 0; k < nz; ++k) {
                const json& v = z[i][static_cast<size_t>(k)];
                if (!v.is_number() || !std::isfinite(v.get<double>())) bad("z", "row " + std::to_string(i) + " holds a value that is not a finite number");
                acc[static_cast<int64_t>(i)][k] = v.get<float>();
            }
        }
        return out.reshape({out.size(0), nz, 1, 1});
    }
    if (!lg.fixedNoise.defined()) throw CheckpointError("checkpoint '" + lg.path + "' holds no fixed noise; request 'seeds' or 'z' instead");
    const int64_t rows = lg.fixedNoise.size(0);
    const int64_t k = integer(r, "fixed_noise", 0, 0, rows);
    return lg.fixedNoise.narrow(0, 0, k == 0 ? rows : k);
}

// A (C, H, W) image in [0, 1] as uint8 (1, H, W, 3) with save_image's conversion (the bytes
// ImageGrid::writePng would encode).
at::Tensor gridPixels(const at::Tensor& chw01) {
    return chw01.to(at::kCPU).mul(255).add_(0.5).clamp_(0, 255).to(at::kByte).permute({1, 2, 0}).unsqueeze(0).contiguous();
}

// Frames (N, H, W, 3) uint8 -> one grid image of them, without normalisation (render's PNG grid).
at::Tensor framesGrid(const at::Tensor& frames, int nrow, int padding) {
    const at::Tensor chw = frames.permute({0, 3, 1, 2}).to(at::kFloat).div(255.0);
    return gridPixels(ImageGrid::makeGrid(chw, nrow, padding, false));
}

void describeImages(ExploreReply& reply, const at::Tensor& images) {
    reply.payload = images.contiguous();
    reply.fields["frames"] = images.size(0);
    reply.fields["height"] = images.size(1);
    reply.fields["width"] = images.size(2);
}

double msSince(std::chrono::steady_clock::time_point t0) { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); }

}  // namespace

ExploreOps::ExploreOps(c10::Device device, std::string pcaCacheDir, size_t cacheCapacity, GeneratorChoice generator, std::string precision)
    : cache_(device, cacheCapacity, generator, std::move(precision)), pcaCacheDir_(std::move(pcaCacheDir)) {}

bool ExploreOps::knows(const std::string& op) {
    static const std::set<std::string> ops{"open", "frames", "latents", "pca", "export", "evolution", "session", "seed-z"};
    return ops.count(op) > 0;
}

ExploreReply ExploreOps::run(const json& r, const std::atomic<bool>& cancel, const Progress& progress) {
    const std::string op = r.value("op", "");
    if (op == "open") return open(r);
    if (op == "frames") return frames(r, cancel, progress);
    if (op == "latents") return latents(r, cancel);
    if (op == "pca") return pca(r);
    if (op == "export") return exportSession(r, cancel, progress);
    if (op == "evolution") return evolution(r, cancel, progress);
    if (op == "session") return session(r);
    if (op == "seed-z") return seedZ(r);
    bad("op", "'" + op + "' is unknown; use open, frames, latents, pca, export, evolution, session, seed-z, cancel or quit");
}

ExploreReply ExploreOps::open(const json& r) {
    const auto lg = cache_.get(str(r, "checkpoint"));
    ExploreReply reply;
    reply.fields = {{"preset", lg->preset},
                    {"nz", lg->nz},
                    {"img_size", lg->imgSize},
                    {"sha256", lg->sha256},
                    {"step", lg->step < 0 ? json(nullptr) : json(lg->step)},
                    {"epoch", lg->epoch},
                    {"fixed_noise", lg->fixedNoise.defined() ? lg->fixedNoise.size(0) : 0},
                    {"g_params", lg->gParams},
                    {"device", cache_.device().str()},
                    {"reference", lg->reference},
                    {"precision", RenderPrecision::name(lg->precision)},
                    {"cpu_bf16", RenderPrecision::cpuBf16Name()},
                    {"frame_gflop", RenderPrecision::frameGflop(lg->g->config())}};
    return reply;
}

ExploreReply ExploreOps::frames(const json& r, const std::atomic<bool>& cancel, const Progress& progress) {
    const auto t0 = std::chrono::steady_clock::now();
    const LatentSession s = sessionOf(r);
    const auto lg = cache_.get(sessionCheckpoint(r, s));
    const int64_t total = s.frameCount();
    const int64_t from = integer(r, "from", 0, 0, total - 1);
    const int64_t count = integer(r, "count", total - from, 1, total - from);
    const bool grid = boolean(r, "grid", false);
    FrameRenderer::Options ro = SessionExporter::rendererOptions(s);
    ro.precision = lg->precision;
    const FrameRenderer renderer(lg->g, ro, lg->frozen);
    // On the CPU a frame's bytes do not depend on the batch it was rendered in (checked by the
    // tests), so only the requested frames are rendered. cuDNN may choose its algorithm by batch
    // size, so on CUDA the batches `render` uses (multiples of the renderer's batch from frame 0)
    // are rendered and the requested frames cut out of them: same bytes as render on that device.
    int64_t start = from, end = from + count;
    if (cache_.device().is_cuda()) {
        const int64_t b = renderer.options().batch;
        start = from / b * b;
        end = std::min(total, (end + b - 1) / b * b);
    }
    const at::Tensor z = SessionLatents::latents(s, lg->nz, pcaFor(s, *lg), start, end - start);
    at::Tensor f = renderer.render(z, progress, &cancel).narrow(0, from - start, count);
    ExploreReply reply;
    describeImages(reply, grid ? framesGrid(f, s.nrow, s.padding) : f);
    reply.fields["frame_count"] = total;
    reply.fields["precision"] = RenderPrecision::name(lg->precision);
    reply.fields["ms"] = msSince(t0);
    return reply;
}

ExploreReply ExploreOps::latents(const json& r, const std::atomic<bool>& cancel) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto lg = cache_.get(str(r, "checkpoint"));
    at::Tensor z = latentsOf(r, *lg);
    const double psi = number(r, "truncation", 1.0, Truncation::kMinPsi, Truncation::kMaxPsi);
    if (psi != 1.0) z = Truncation::apply(z, psi);
    ExploreReply reply;
    const auto g = r.find("grid");
    if (g != r.end() && !g->is_null()) {
        // One make_grid image of the generator's output at its own resolution: the pixels of
        // `streetgan-trainer sample` for the same latents.
        if (!g->is_object()) bad("grid", "must be an object {\"nrow\":8,\"padding\":2,\"normalize\":true}");
        const int nrow = static_cast<int>(integer(*g, "nrow", 8, 1, 1024));
        const int padding = static_cast<int>(integer(*g, "padding", 2, 0, 256));
        const bool normalize = boolean(*g, "normalize", true);
        if (cancel.load()) throw RenderCancelled("rendering was cancelled");
        at::Tensor images;
        if (lg->frozen) {
            images = lg->frozen->forward(z.to(at::kCPU, at::kFloat));
        } else {
            c10::InferenceMode guard;
            Generator gen = lg->g;
            images = gen->forward(z.to(cache_.device(), at::kFloat)).to(at::kCPU);
        }
        // Without normalisation, [-1, 1] is mapped to [0, 1] first, as FrameRenderer does.
        if (!normalize) images = images.add(1).div(2);
        describeImages(reply, gridPixels(ImageGrid::makeGrid(images, nrow, padding, normalize)));
    } else {
        FrameRenderer::Options ro;
        ro.size = static_cast<int>(integer(r, "size", lg->imgSize, 8, 2048));
        ro.upscale = upscaleOf(r);
        ro.precision = lg->precision;
        describeImages(reply, FrameRenderer(lg->g, ro, lg->frozen).render(z, {}, &cancel));
    }
    reply.fields["precision"] = RenderPrecision::name(lg->precision);
    reply.fields["ms"] = msSince(t0);
    return reply;
}

const PcaDirections* ExploreOps::pcaFor(const LatentSession& s, const LoadedGenerator& lg) {
    if (s.directions.empty()) return nullptr;
    const PcaDirections::Options po = SessionLatents::pcaOptions(s, lg.nz);
    std::string key = lg.sha256 + "/" + std::to_string(po.samples) + "/" + std::to_string(po.components) + "/" + std::to_string(po.seed);
    if (key != pcaKey_ || !pca_) {
        pcaKey_.clear();  // stays empty if cached() throws
        pca_ = std::make_unique<PcaDirections>(PcaDirections::cached(lg.g, lg.sha256, po, pcaCacheDir_));
        pcaKey_ = std::move(key);
    }
    return pca_.get();
}

ExploreReply ExploreOps::pca(const json& r) {
    const auto lg = cache_.get(str(r, "checkpoint"));
    PcaDirections::Options po;
    po.components = static_cast<int>(integer(r, "components", 10, 1, std::min<int64_t>(256, lg->nz)));
    po.samples = integer(r, "samples", 2000, po.components + 1, 100000);
    po.seed = static_cast<uint64_t>(integer(r, "seed", 0, 0, INT64_MAX));
    const PcaDirections d = PcaDirections::cached(lg->g, lg->sha256, po, pcaCacheDir_);
    const at::Tensor sigma = d.sigma().to(at::kCPU, at::kDouble).contiguous();
    ExploreReply reply;
    reply.fields["components"] = d.components();
    reply.fields["sigma"] = std::vector<double>(sigma.data_ptr<double>(), sigma.data_ptr<double>() + sigma.numel());
    return reply;
}

ExploreReply ExploreOps::exportSession(const json& r, const std::atomic<bool>& cancel, const Progress& progress) {
    const LatentSession s = sessionOf(r);
    const std::string out = str(r, "out");
    SessionExporter::checkOutput(s, out);  // before loading a checkpoint
    const auto lg = cache_.get(sessionCheckpoint(r, s));
    const SessionExporter::Result res = SessionExporter::exportSession(s, lg->g, lg->sha256, out, progress, &cancel, pcaCacheDir_);
    ExploreReply reply;
    reply.fields = {{"out", res.out}, {"what", res.what}, {"frames", res.frames}, {"file_bytes", res.bytes}, {"seconds", res.seconds}};
    if (const std::string w = s.hashWarning(lg->path, lg->sha256); !w.empty()) reply.fields["warning"] = w;
    return reply;
}

ExploreReply ExploreOps::evolution(const json& r, const std::atomic<bool>& cancel, const Progress& progress) {
    const json& list = required(r, "checkpoints");
    if (!list.is_array() || list.empty() || list.size() > 1000) bad("checkpoints", "must be a list of 1..1000 checkpoint paths");
    std::vector<std::string> paths;
    for (const json& p : list) {
        if (!p.is_string() || p.get<std::string>().empty()) bad("checkpoints", "must hold checkpoint paths (strings)");
        paths.push_back(p.get<std::string>());
    }
    const int nrow = static_cast<int>(integer(r, "nrow", 8, 1, 1024));
    const int padding = static_cast<int>(integer(r, "padding", 2, 0, 256));
    const int size = static_cast<int>(integer(r, "size", 0, 0, 2048));
    std::string out;
    if (r.contains("out")) {
        out = str(r, "out");
        if (SessionExporter::kindOf(out) != SessionExporter::Kind::Gif) bad("out", "must name a .gif file (got '" + out + "')");
        LatentSession probe;  // only for the writability check of the output path
        SessionExporter::checkOutput(probe, out);
    }
    const int delay = static_cast<int>(integer(r, "frame_delay_ms", 500, 10, 60000));

    // The same z for every checkpoint: seeds are drawn per nz; fixed noise is the first checkpoint's.
    at::Tensor fixedZ;
    if (!r.contains("seeds")) fixedZ = latentsOf(r, *cache_.get(paths.front()));
    std::vector<at::Tensor> grids;
    const auto total = static_cast<int64_t>(paths.size());
    for (int64_t i = 0; i < total; ++i) {
        if (cancel.load()) throw RenderCancelled("rendering was cancelled");
        const auto lg = cache_.get(paths[static_cast<size_t>(i)]);
        at::Tensor z = fixedZ.defined() ? fixedZ : latentsOf(r, *lg);
        if (z.size(1) != lg->nz)
            throw ConfigError("checkpoint '" + lg->path + "' has nz=" + std::to_string(lg->nz) + " but the fixed noise of '" + paths.front() + "' has " +
                              std::to_string(z.size(1)) + "; use 'seeds' for checkpoints of different nz");
        FrameRenderer::Options ro;
        ro.size = size > 0 ? size : static_cast<int>(lg->imgSize);
        grids.push_back(framesGrid(FrameRenderer(lg->g, ro).render(z, {}, &cancel), nrow, padding));
        if (!grids.empty() && !grids.back().sizes().equals(grids.front().sizes()))
            throw ConfigError("checkpoint '" + lg->path + "' renders at another size than '" + paths.front() + "'; set 'size' to compare them in one grid");
        if (progress) progress(i + 1, total);
    }
    at::Tensor all = at::cat(grids);
    ExploreReply reply;
    if (out.empty()) {
        describeImages(reply, all);
        return reply;
    }
    GifOptions go;
    go.frameDelayMs = delay;
    try {
        GifWriter(go).write(all, out, {}, &cancel);
    } catch (const GifCancelled& e) {
        throw RenderCancelled(e.what());
    }
    reply.fields = {{"out", out}, {"frames", all.size(0)}, {"file_bytes", std::filesystem::file_size(out)}};
    return reply;
}

ExploreReply ExploreOps::session(const json& r) {
    const LatentSession s = sessionOf(r);
    ExploreReply reply;
    reply.fields = {{"session", s.toJson()}, {"frame_count", s.frameCount()}};
    return reply;
}

ExploreReply ExploreOps::seedZ(const json& r) {
    const int64_t nz = integer(r, "nz", 0, 1, 4096);
    if (!r.contains("nz")) bad("nz", "is missing; give the generator's latent length");
    json rows = json::array();
    for (uint64_t s : seeds(r, "seeds")) {
        const at::Tensor z = LatentSeed::draw(s, nz).contiguous();
        rows.push_back(std::vector<float>(z.data_ptr<float>(), z.data_ptr<float>() + nz));
    }
    ExploreReply reply;
    reply.fields["z"] = std::move(rows);
    return reply;
}

}  // namespace streetgan
