#include "base/run/DataPathChoice.h"

#include <cmath>
#include <cstdio>

#include "base/util/Errors.h"

namespace streetgan {

namespace {

std::string gigabytes(int64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GB", static_cast<double>(bytes) / 1e9);
    return buf;
}

}  // namespace

DataPathChoice::Mode DataPathChoice::parseMode(const std::string& text) {
    if (text == "auto") return Mode::Auto;
    if (text == "photos") return Mode::Photos;
    if (text == "packed") return Mode::Packed;
    throw ConfigError("--data-path '" + text + "' is not one of auto, photos, packed");
}

int64_t DataPathChoice::estimatePackBytes(int64_t images, int size, double maxShift, double widthPerCrop) {
    // A record is size rows by size + 2 * margin RGB columns, margin = maxShift * W * size / C cache
    // pixels for a photo W source pixels wide cropped to C (PackedCacheWriter.h).
    const double cols = size + 2.0 * std::ceil(maxShift * widthPerCrop * size);
    return static_cast<int64_t>(static_cast<double>(images) * size * cols * 3);
}

DataPathChoice::Choice DataPathChoice::decide(const Inputs& in) {
    Choice c;
    if (in.mode == Mode::Photos) return c;
    const std::string photosInstead = " (--data-path photos decodes them instead)";
    if (!in.matchDir.empty()) {
        c.kind = Kind::UsePack;
        c.message = "data: training from the packed cache '" + in.matchDir + "', made of these photos at this run's size and augmentation" + photosInstead;
        return c;
    }
    const std::string& packCommand = in.packCommand;
    const bool roomy = in.freeBytes < 0 || in.packBytes * (in.mode == Mode::Packed ? 1 : kSpaceShare) <= static_cast<double>(in.freeBytes);
    if (in.mode == Mode::Packed) {
        if (in.worldSize > 1)
            throw ConfigError("--data-path packed: the " + std::to_string(in.worldSize) +
                              " ranks of a distributed run do not pack by themselves; pack once first (" + packCommand + ") and start the run again");
        if (!roomy)
            throw ConfigError("--data-path packed: the pack of '" + in.spec + "' needs about " + gigabytes(in.packBytes) + " and '" + in.packDir + "' has " +
                              gigabytes(in.freeBytes) + " free: free space there, pack elsewhere (" + packCommand +
                              " --out DIR) and train with --data DIR, or use --data-path photos");
        c.kind = Kind::PackFirst;
        c.message = "data: packing the photos once before training (--data-path packed), about " + gigabytes(in.packBytes) + " into '" + in.packDir + "'";
        return c;
    }
    const std::string stale = in.staleDir.empty() ? std::string()
                                                  : "; the packed cache '" + in.staleDir + "' was made of other photos or with other settings (" + packCommand +
                                                        " packs them for this run)";
    if (!in.cuda) {
        if (!stale.empty()) c.message = "data: decoding the photos" + stale;
        return c;
    }
    if (in.worldSize > 1) {
        c.message = "data: decoding the photos: the ranks of a distributed run do not pack by themselves; a GPU step can outrun decoding, so pack once (" +
                    packCommand + ") and later runs on these photos use the pack" + stale;
        return c;
    }
    if (in.epochs < kMinEpochsToPack) {
        if (!stale.empty()) c.message = "data: decoding the photos (this run reads them less than twice, packing would not pay)" + stale;
        return c;
    }
    if (!roomy) {
        c.message = "data: decoding the photos: a pack of them would need about " + gigabytes(in.packBytes) + " and '" + in.packDir + "' has " +
                    gigabytes(in.freeBytes) + " free (" + packCommand + " --out DIR packs them elsewhere, then --data DIR)" + stale;
        return c;
    }
    c.kind = Kind::PackFirst;
    char epochs[32];
    std::snprintf(epochs, sizeof epochs, "%.3g", in.epochs);
    c.message = "data: packing the photos once before training: a GPU step outruns JPEG decoding and this run reads them " + std::string(epochs) +
                " times; about " + gigabytes(in.packBytes) + " into '" + in.packDir + "'" + photosInstead;
    return c;
}

}  // namespace streetgan
