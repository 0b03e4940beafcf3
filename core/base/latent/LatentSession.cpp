#include "base/latent/LatentSession.h"

#include <cmath>
#include <filesystem>
#include <set>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

using nlohmann::json;

constexpr int64_t kMaxSeed = INT64_MAX;
const std::set<std::string> kKnown = {"checkpoint",
                                      "checkpoint_sha256",
                                      "keyframes",
                                      "interpolation",
                                      "easing",
                                      "frames_per_segment",
                                      "loop",
                                      "size",
                                      "frame_delay_ms",
                                      "truncation",
                                      "directions",
                                      "pca_components",
                                      "pca_samples",
                                      "pca_seed",
                                      "upscale",
                                      "nrow",
                                      "padding",
                                      "gif_palette",
                                      "gif_dithering",
                                      "gif_speed",
                                      "gif_loop_count",
                                      "t_range",
                                      "named_directions"};

std::string num(double v) {
    json j = v;
    return j.dump();
}

[[noreturn]] void bad(const std::string& key, const std::string& what) { throw ConfigError("session key '" + key + "' " + what); }

int64_t integer(const json& v, const std::string& key, int64_t lo, int64_t hi) {
    if (!v.is_number_integer() && !(v.is_number_float() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>()))
        bad(key, "is " + v.dump() + "; use an integer within " + std::to_string(lo) + ".." + std::to_string(hi));
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi))
        bad(key, "is " + v.dump() + "; use an integer within " + std::to_string(lo) + ".." + std::to_string(hi));
    const int64_t x = v.is_number_float() ? static_cast<int64_t>(v.get<double>()) : v.get<int64_t>();
    if (x < lo || x > hi) bad(key, "is " + v.dump() + "; use an integer within " + std::to_string(lo) + ".." + std::to_string(hi));
    return x;
}

double number(const json& v, const std::string& key, double lo, double hi) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi)
        bad(key, "is " + v.dump() + "; use a number within " + num(lo) + ".." + num(hi));
    return v.get<double>();
}

std::string text(const json& v, const std::string& key) {
    if (!v.is_string()) bad(key, "is " + v.dump() + "; use a string");
    return v.get<std::string>();
}

// [t0, t1] (WalkRule::TRange); range checks are WalkRule::checkRange's.
WalkRule::TRange tRangeOf(const json& v, const std::string& key) {
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
        bad(key, "is " + v.dump() + "; use [start, end]: two numbers within -1e6..1e6 (e.g. [0, 8]; [0, 1] goes from keyframe to keyframe)");
    const WalkRule::TRange r{v[0].get<double>(), v[1].get<double>()};
    WalkRule::checkRange(r, key);
    return r;
}

json tRangeJson(const WalkRule::TRange& r) { return json::array({r.start, r.end}); }

void range(const std::string& key, double v, double lo, double hi) {
    if (!std::isfinite(v) || v < lo || v > hi) bad(key, "is " + num(v) + "; use a value within " + num(lo) + ".." + num(hi));
}

// "named_directions": [{"name", "z", "amount"}]; the lengths of z against the generator's nz are
// checked where the generator is known (SessionLatents).
std::vector<NamedDirectionEdit> namedDirectionsOf(const json& ds) {
    const char* shape = "; use a list of {\"name\": \"night\", \"z\": [...], \"amount\": A}";
    if (!ds.is_array()) bad("named_directions", "is " + ds.dump() + shape);
    if (ds.size() > 256) bad("named_directions", "has " + std::to_string(ds.size()) + " entries; use at most 256");
    std::vector<NamedDirectionEdit> out;
    for (size_t i = 0; i < ds.size(); ++i) {
        const std::string key = "named_directions[" + std::to_string(i) + "]";
        const json& d = ds[i];
        if (!d.is_object() || !d.contains("name") || !d.contains("z") || !d.contains("amount")) bad(key, "must be {\"name\": N, \"z\": [...], \"amount\": A}");
        for (auto it = d.begin(); it != d.end(); ++it)
            if (it.key() != "name" && it.key() != "z" && it.key() != "amount") bad(key, "has an unknown key '" + it.key() + "'; use name, z, amount");
        NamedDirectionEdit e;
        e.name = text(d.at("name"), key + ".name");
        const json& z = d.at("z");
        if (!z.is_array() || z.empty() || z.size() > 4096) bad(key + ".z", "must be an array of 1..4096 numbers");
        for (size_t k = 0; k < z.size(); ++k) {
            if (!z[k].is_number() || !std::isfinite(z[k].get<double>()))
                bad(key + ".z", "holds " + z[k].dump() + " at " + std::to_string(k) + "; use finite numbers");
            e.z.push_back(z[k].get<double>());
        }
        e.amount = number(d.at("amount"), key + ".amount", -100, 100);
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace

LatentSession LatentSession::fromJson(const json& j) {
    if (!j.is_object()) throw ConfigError("session: expected a JSON object with \"keyframes\"");
    LatentSession s;
    for (auto it = j.begin(); it != j.end(); ++it)
        if (!kKnown.count(it.key())) s.extra[it.key()] = it.value();
    auto has = [&](const char* k) { return j.contains(k) && !j.at(k).is_null(); };
    if (has("checkpoint")) s.checkpoint = text(j.at("checkpoint"), "checkpoint");
    if (has("checkpoint_sha256")) {
        s.checkpointSha256 = text(j.at("checkpoint_sha256"), "checkpoint_sha256");
        const bool hex = s.checkpointSha256.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
        if (!s.checkpointSha256.empty() && (s.checkpointSha256.size() != 64 || !hex))
            bad("checkpoint_sha256", "is not 64 hex digits; use the checkpoint's SHA-256 or \"\"");
    }
    if (!has("keyframes") || !j.at("keyframes").is_array() || j.at("keyframes").empty())
        bad("keyframes", "is missing or empty; give 1..1000 keyframes like {\"seed\": 1} or {\"z\": [...]}");
    const json& ks = j.at("keyframes");
    if (ks.size() > 1000) bad("keyframes", "has " + std::to_string(ks.size()) + " entries; use 1..1000");
    for (size_t i = 0; i < ks.size(); ++i) {
        const std::string key = "keyframes[" + std::to_string(i) + "]";
        const json& k = ks[i];
        if (!k.is_object()) bad(key, "is " + k.dump() + "; use {\"seed\": N} or {\"z\": [...]}");
        SessionKeyframe kf;
        const bool hasSeed = k.contains("seed"), hasZ = k.contains("z");
        if (hasSeed == hasZ) bad(key, "needs exactly one of \"seed\" and \"z\"");
        if (hasSeed) kf.seed = static_cast<uint64_t>(integer(k.at("seed"), key + ".seed", 0, kMaxSeed));
        if (hasZ) {
            const json& z = k.at("z");
            if (!z.is_array() || z.empty() || z.size() > 4096) bad(key + ".z", "must be an array of 1..4096 numbers");
            for (size_t e = 0; e < z.size(); ++e) {
                if (!z[e].is_number() || !std::isfinite(z[e].get<double>()))
                    bad(key + ".z", "holds " + z[e].dump() + " at " + std::to_string(e) + "; use finite numbers");
                kf.z.push_back(z[e].get<double>());
            }
        }
        if (k.contains("easing")) kf.easing = Easing::parse(text(k.at("easing"), key + ".easing"), key + ".easing");
        if (k.contains("t_range")) kf.tRange = tRangeOf(k.at("t_range"), key + ".t_range");
        for (auto it = k.begin(); it != k.end(); ++it)
            if (it.key() != "seed" && it.key() != "z" && it.key() != "easing" && it.key() != "t_range")
                bad(key, "has an unknown key '" + it.key() + "'; use seed, z, easing, t_range");
        s.keyframes.push_back(std::move(kf));
    }
    if (has("interpolation")) {
        const std::string v = text(j.at("interpolation"), "interpolation");
        if (v == "slerp")
            s.interpolation = WalkRule::Interpolation::Slerp;
        else if (v == "linear")
            s.interpolation = WalkRule::Interpolation::Linear;
        else
            bad("interpolation", "is '" + v + "'; use slerp or linear");
    }
    if (has("easing")) s.easing = Easing::parse(text(j.at("easing"), "easing"), "easing");
    if (has("t_range")) s.tRange = tRangeOf(j.at("t_range"), "t_range");
    if (has("frames_per_segment")) s.framesPerSegment = static_cast<int>(integer(j.at("frames_per_segment"), "frames_per_segment", 1, 1000));
    if (has("loop")) {
        if (!j.at("loop").is_boolean()) bad("loop", "is " + j.at("loop").dump() + "; use true or false");
        s.loop = j.at("loop").get<bool>();
    }
    if (has("size")) s.size = static_cast<int>(integer(j.at("size"), "size", 8, 2048));
    if (has("frame_delay_ms")) s.frameDelayMs = static_cast<int>(integer(j.at("frame_delay_ms"), "frame_delay_ms", 10, 60000));
    if (has("truncation")) s.truncation = number(j.at("truncation"), "truncation", WalkRule::kMinPsi, WalkRule::kMaxPsi);
    if (has("pca_components")) s.pcaComponents = static_cast<int>(integer(j.at("pca_components"), "pca_components", 1, 256));
    if (has("pca_samples")) s.pcaSamples = integer(j.at("pca_samples"), "pca_samples", 100, 100000);
    if (has("pca_seed")) s.pcaSeed = static_cast<uint64_t>(integer(j.at("pca_seed"), "pca_seed", 0, kMaxSeed));
    if (has("directions")) {
        const json& ds = j.at("directions");
        if (!ds.is_array()) bad("directions", "is " + ds.dump() + "; use a list of {\"index\": I, \"amount\": A}");
        for (size_t i = 0; i < ds.size(); ++i) {
            const std::string key = "directions[" + std::to_string(i) + "]";
            if (!ds[i].is_object() || !ds[i].contains("index") || !ds[i].contains("amount")) bad(key, "must be {\"index\": I, \"amount\": A}");
            DirectionEdit e;
            e.index = static_cast<int>(integer(ds[i].at("index"), key + ".index", 0, 255));
            e.amount = number(ds[i].at("amount"), key + ".amount", -100, 100);
            s.directions.push_back(e);
        }
    }
    if (has("named_directions")) s.namedDirections = namedDirectionsOf(j.at("named_directions"));
    if (has("upscale")) {
        const std::string v = text(j.at("upscale"), "upscale");
        if (v == "nearest")
            s.upscale = Upscale::Nearest;
        else if (v == "smooth")
            s.upscale = Upscale::Smooth;
        else
            bad("upscale", "is '" + v + "'; use nearest or smooth");
    }
    if (has("nrow")) s.nrow = static_cast<int>(integer(j.at("nrow"), "nrow", 1, 1024));
    if (has("padding")) s.padding = static_cast<int>(integer(j.at("padding"), "padding", 0, 256));
    if (has("gif_palette")) {
        const std::string v = text(j.at("gif_palette"), "gif_palette");
        if (v != "global" && v != "per-frame") bad("gif_palette", "is '" + v + "'; use global or per-frame");
        s.gifPerFramePalette = v == "per-frame";
    }
    if (has("gif_dithering")) s.gifDithering = number(j.at("gif_dithering"), "gif_dithering", 0, 1);
    if (has("gif_speed")) s.gifSpeed = static_cast<int>(integer(j.at("gif_speed"), "gif_speed", 1, 10));
    if (has("gif_loop_count")) s.gifLoopCount = static_cast<int>(integer(j.at("gif_loop_count"), "gif_loop_count", 0, 65535));
    s.validate();
    return s;
}

void LatentSession::validate() const {
    if (keyframes.empty() || keyframes.size() > 1000) bad("keyframes", "must hold 1..1000 keyframes");
    for (size_t i = 0; i < keyframes.size(); ++i) {
        if (keyframes[i].seed.has_value() == !keyframes[i].z.empty()) bad("keyframes[" + std::to_string(i) + "]", "needs exactly one of \"seed\" and \"z\"");
        if (keyframes[i].tRange) WalkRule::checkRange(*keyframes[i].tRange, "keyframes[" + std::to_string(i) + "].t_range");
    }
    WalkRule::checkRange(tRange, "t_range");
    range("frames_per_segment", framesPerSegment, 1, 1000);
    range("size", size, 8, 2048);
    range("frame_delay_ms", frameDelayMs, 10, 60000);
    range("truncation", truncation, WalkRule::kMinPsi, WalkRule::kMaxPsi);
    range("pca_components", pcaComponents, 1, 256);
    range("pca_samples", static_cast<double>(pcaSamples), 100, 100000);
    range("nrow", nrow, 1, 1024);
    range("padding", padding, 0, 256);
    range("gif_dithering", gifDithering, 0, 1);
    range("gif_speed", gifSpeed, 1, 10);
    range("gif_loop_count", gifLoopCount, 0, 65535);
    for (size_t i = 0; i < directions.size(); ++i) {
        range("directions[" + std::to_string(i) + "].index", directions[i].index, 0, 255);
        range("directions[" + std::to_string(i) + "].amount", directions[i].amount, -100, 100);
        if (directions[i].index >= pcaComponents)
            bad("directions[" + std::to_string(i) + "].index", "is " + std::to_string(directions[i].index) + " but only " + std::to_string(pcaComponents) +
                                                                   " directions are computed; use 0.." + std::to_string(pcaComponents - 1) +
                                                                   " or raise pca_components");
    }
    for (size_t i = 0; i < namedDirections.size(); ++i) {
        const std::string key = "named_directions[" + std::to_string(i) + "]";
        const auto& z = namedDirections[i].z;
        range(key + ".amount", namedDirections[i].amount, -100, 100);
        if (z.empty() || z.size() > 4096) bad(key + ".z", "must hold 1..4096 numbers");
        double norm2 = 0;
        for (const double v : z) {
            if (!std::isfinite(v)) bad(key + ".z", "holds " + num(v) + "; use finite numbers");
            norm2 += v * v;
        }
        if (!(norm2 > 0) || !std::isfinite(norm2)) bad(key + ".z", "is all zeros (or too large); a direction needs a length");
    }
    const double bytes = static_cast<double>(frameCount()) * size * size * 3;
    if (bytes > 4.0 * 1024 * 1024 * 1024)
        bad("size", "is " + std::to_string(size) + " for " + std::to_string(frameCount()) + " frames: " + num(std::round(bytes / 1073741824.0)) +
                        " GiB of frames; lower size or frames_per_segment (at most 4 GiB)");
}

json LatentSession::toJson() const {
    json j = extra;
    j["checkpoint"] = checkpoint;
    j["checkpoint_sha256"] = checkpointSha256;
    json ks = json::array();
    for (const auto& k : keyframes) {
        json o = json::object();
        if (k.seed)
            o["seed"] = *k.seed;
        else
            o["z"] = k.z;
        if (k.easing) o["easing"] = Easing::name(*k.easing);
        if (k.tRange) o["t_range"] = tRangeJson(*k.tRange);
        ks.push_back(o);
    }
    j["keyframes"] = ks;
    j["interpolation"] = interpolation == WalkRule::Interpolation::Slerp ? "slerp" : "linear";
    j["easing"] = Easing::name(easing);
    if (!tRange.isDefault()) j["t_range"] = tRangeJson(tRange);  // absent = [0, 1]: older files stay byte-identical
    j["frames_per_segment"] = framesPerSegment;
    j["loop"] = loop;
    j["size"] = size;
    j["frame_delay_ms"] = frameDelayMs;
    j["truncation"] = truncation;
    json ds = json::array();
    for (const auto& d : directions) ds.push_back({{"index", d.index}, {"amount", d.amount}});
    j["directions"] = ds;
    j["pca_components"] = pcaComponents;
    j["pca_samples"] = pcaSamples;
    j["pca_seed"] = pcaSeed;
    if (!namedDirections.empty()) {  // absent when empty: older files stay byte-identical
        json nd = json::array();
        for (const auto& d : namedDirections) nd.push_back({{"name", d.name}, {"z", d.z}, {"amount", d.amount}});
        j["named_directions"] = nd;
    }
    j["upscale"] = upscale == Upscale::Nearest ? "nearest" : "smooth";
    j["nrow"] = nrow;
    j["padding"] = padding;
    j["gif_palette"] = gifPerFramePalette ? "per-frame" : "global";
    j["gif_dithering"] = gifDithering;
    j["gif_speed"] = gifSpeed;
    j["gif_loop_count"] = gifLoopCount;
    return j;
}

LatentSession LatentSession::read(const std::string& path) {
    const std::string bytes = AtomicFile::read(path);
    json j;
    try {
        j = json::parse(bytes);
    } catch (const json::exception& e) {
        throw ConfigError("session '" + path + "' is not valid JSON: " + e.what());
    }
    try {
        return fromJson(j);
    } catch (const ConfigError& e) {
        throw ConfigError("session '" + path + "': " + e.what());
    }
}

void LatentSession::write(const std::string& path) const { AtomicFile::write(path, toJson().dump(2) + "\n"); }

int64_t LatentSession::frameCount() const { return WalkRule::frameCount(static_cast<int64_t>(keyframes.size()), framesPerSegment, loop); }

Easing::Kind LatentSession::segmentEasing(size_t s) const { return s < keyframes.size() && keyframes[s].easing ? *keyframes[s].easing : easing; }

WalkRule::TRange LatentSession::segmentRange(size_t s) const { return s < keyframes.size() && keyframes[s].tRange ? *keyframes[s].tRange : tRange; }

WalkRule::Place LatentSession::framePlace(int64_t i) const { return WalkRule::place(i, static_cast<int64_t>(keyframes.size()), framesPerSegment, loop); }

double LatentSession::frameT(int64_t i) const {
    const WalkRule::Place p = framePlace(i);
    const auto s = static_cast<size_t>(p.segment);
    return WalkRule::t(p.u, segmentEasing(s), segmentRange(s));
}

void LatentSession::makeReferenceWalk(uint64_t seedFrom, uint64_t seedTo) {
    SessionKeyframe a, b;
    a.seed = seedFrom;
    b.seed = seedTo;
    keyframes = {a, b};
    interpolation = WalkRule::Interpolation::Slerp;
    easing = Easing::Kind::Linear;
    tRange = {0.0, kReferenceTEnd};
    framesPerSegment = kReferenceFrames - 1;  // no loop: (2 - 1) * F + 1 frames
    loop = false;
    truncation = 1.0;
    directions.clear();
    namedDirections.clear();
}

std::string LatentSession::resolveCheckpoint(const std::string& sessionPath, const std::string& override) const {
    if (!override.empty()) return override;
    if (checkpoint.empty()) throw ConfigError("session '" + sessionPath + "' names no checkpoint; pass --checkpoint CK");
    std::filesystem::path p(checkpoint);
    if (p.is_relative() && !sessionPath.empty()) p = std::filesystem::path(sessionPath).parent_path() / p;
    return p.lexically_normal().string();
}

std::string LatentSession::hashWarning(const std::string& checkpointPath, const std::string& actualSha256) const {
    if (checkpointSha256.empty()) return "";
    std::string expected = checkpointSha256;
    for (auto& c : expected) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (expected == actualSha256) return "";
    return "checkpoint '" + checkpointPath + "' (sha256 " + actualSha256.substr(0, 12) + "...) is not the one this session was made with (sha256 " +
           expected.substr(0, 12) + "...): the frames will differ";
}

}  // namespace streetgan
