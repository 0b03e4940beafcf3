// A packed cache (see PackedCacheWriter.h for the format) as an ImageSource: every shard is
// memory-mapped read-only (MAP_SHARED, MADV_RANDOM) and load() cuts the size x size window out
// of the stored band: one memcpy per row (a reversed copy when flipped), no decoding, no resizing.
//
// Augmentation semantics match FolderSource with the same AugmentParams: load() draws with
// Augmentation::draw(params, sourceWidth, seed) and converts the source-pixel shift to cache
// pixels the way applyU8 does (round(dx / r) decoded pixels, times size / crop), so for the same
// (image, seed) both sources show the same shift and flip; the pixels agree exactly in the
// reference JPEG case (crop / r == size) and up to resampling order otherwise. noiseStd() is the
// params' noise (the loader adds it). Indices run over the usable images only (bad images were
// dropped at pack time and appear in skipped()).
//
// Opening checks the index version and that every shard exists with its recorded size (a
// truncated or missing shard throws DataError saying to re-pack); verify() also re-reads every
// byte against the shard CRCs.
//
// Thread contract: immutable after construction; load() and the accessors may be called from any
// number of threads at once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "base/s3/S3Fetcher.h"
#include "ml/dataset/Augmentation.h"
#include "ml/dataset/ImageSource.h"

namespace streetgan {

namespace s3 {
class S3Dataset;
}

class PackedCacheSource : public ImageSource {
public:
    /// One cached image (the index's record).
    struct Record {
        std::string key, city, sequence;
        int64_t shard = 0, offset = 0;
        int cols = 0;    ///< stored band width in cache pixels (size + 2 * margin)
        int margin = 0;  ///< cache pixels on each side of the centre crop
        int width = 0;   ///< source width (the shift draw depends on it)
        int height = 0;
        int reduction = 1;  ///< DCT reduction used at pack time
        int crop = 0;       ///< crop side in decoded pixels before scaling to size
    };

    /// A record of index.json's "records" array ([key, city, sequence, shard, offset, cols, margin,
    /// width, height, reduction, crop]); throws nlohmann::json errors on a malformed one.
    static Record recordFromJson(const nlohmann::json& r);

    /// Opens the cache in `dir`. Throws DataError (missing/incomplete/other-version index, missing
    /// or truncated shard, inconsistent records) with a one-line message naming what to re-pack.
    explicit PackedCacheSource(const std::string& dir);
    /// The packed cache uploaded under s3://bucket/prefix: index.json read (and cached) once,
    /// each image's band by a ranged GET through the dataset's fetcher (in flight ahead of the
    /// loader through prefetch(), kept in the object cache); the same checks and messages as a
    /// local cache (shard sizes from the listing).
    static std::shared_ptr<PackedCacheSource> s3(std::shared_ptr<const s3::S3Dataset> bucket);
    ~PackedCacheSource() override;
    PackedCacheSource(const PackedCacheSource&) = delete;
    PackedCacheSource& operator=(const PackedCacheSource&) = delete;

    int64_t size() const override { return static_cast<int64_t>(records_.size()); }
    /// `size` must equal the packed size (ConfigError otherwise).
    void load(int64_t index, int size, uint64_t augmentSeed, uint8_t* rgb) const override;
    std::string describe() const override;
    double noiseStd() const override { return params_.noiseStd; }
    std::map<std::string, int64_t> skipped() const override { return skipped_; }
    int64_t prefetchWindow() const override { return s3_ ? prefetchWindow_ : 0; }
    void prefetch(const int64_t* indices, size_t n) const override;

    const AugmentParams& params() const { return params_; }
    /// PackedCacheWriter's fingerprint of what was packed (index.json's).
    const std::string& fingerprint() const { return fingerprint_; }
    /// Marks the cache as the one chosen for the photos `spec` names (--data-path; describe()
    /// says so). Before the source is shared.
    void chosenFor(std::string spec) { chosenFor_ = std::move(spec); }
    const std::vector<Record>& records() const { return records_; }
    /// The draws load() makes for `index` and `seed` (same as Augmentation::draw on the source).
    Augmentation::Draw draw(int64_t index, uint64_t seed) const;

    /// Re-checks every shard's CRC-32C and the index's consistency; throws DataError naming the
    /// first bad shard (or record) and saying to re-pack.
    static void verify(const std::string& dir);
    /// verify() of a cache in a bucket: every shard read back by ranged GETs (not from the
    /// object cache) against its CRC.
    static void verifyS3(const s3::S3Dataset& bucket);

private:
    PackedCacheSource() = default;
    s3::S3Fetcher::Request bandRequest(const Record& r) const;
    struct Mapping {
        const uint8_t* data = nullptr;
        size_t bytes = 0;
    };
    std::string dir_;
    AugmentParams params_;
    std::vector<Record> records_;
    std::vector<Mapping> shards_;
    std::map<std::string, int64_t> skipped_;
    std::string root_, fingerprint_, chosenFor_;
    int64_t cityCount_ = 0;
    std::shared_ptr<const s3::S3Dataset> s3_;  ///< set: the cache is in a bucket (no mappings)
    std::vector<std::string> shardFiles_;      ///< the shards' names (S3)
    int64_t prefetchWindow_ = 0;
};

}  // namespace streetgan
