// Packs a data set ONCE into a pre-cropped, pre-scaled cache that PackedCacheSource reads through
// memory mapping (no decoding, no resizing at training time: one memcpy per output row).
//
// What is stored per image (a "band"): the part of the photo any augmentation with these
// AugmentParams can show. That is the centre crop (cropFactor*size source pixels square)
// widened on each side by the largest shift (maxShift * source width); columns outside the photo
// are black, exactly as the shift's black fill. Geometry follows Augmentation::applyU8 step by
// step: the image is decoded with the same DecodeRequest (DCT reduction r), the crop cd = round(C/r)
// decoded pixels, the margin md = round(round(maxShift*W)/r) decoded pixels; the band
// (cd + 2*md) x cd decoded pixels is resized with INTER_AREA (a plain copy when cd == size, the
// reference JPEG case, so the cache then reproduces FolderSource exactly) to `size` rows by
// `size + 2*margin` columns, margin = round(md * size / cd) (~ maxShift*W*size/C).
//
// Format (version 1) in outDir:
//   shard_00000.bin, shard_00001.bin, ...  records back to back, each size rows x cols x 3 bytes
//       (HWC, RGB, no padding). Margins vary with the source width, so records are variable
//       length: the index gives each record's shard, byte offset, cols and margin (chosen over a
//       fixed cache-wide margin so that wide photos lose nothing and narrow ones waste nothing).
//       A shard is closed before a record would take it past shardBytes (one record at least).
//   index.json  {"format":"streetgan-packed-cache","version":1,"size","params":{..},
//       "fingerprint","root","images","shards":[{"file","bytes","records","crc32c"}],
//       "records":[[key,city,sequence,shard,offset,cols,margin,width,height,reduction,crop],..],
//       "skipped":{reason:count} (bad images met while packing), "skipped_images":[[path,reason]],
//       "index_skipped":{reason:count} (the DatasetIndex's own skips)}.
//       Written last, atomically: its presence means "complete". No timestamps or output paths,
//       so packing the same input twice gives byte-identical files.
//   progress.json (only while incomplete) the same content for the shards finished so far plus
//       "next_entry"; shard_N.bin.tmp is the shard being written (never trusted).
//
// Resumability: every shard is written as .tmp, fsynced, renamed, and only then recorded in
// progress.json (AtomicFile). An interrupted pack (cancel flag, crash, power loss) leaves complete
// shards plus progress.json; packing again with the same input and parameters continues at the
// first incomplete shard and ends with byte-identical output. Different input or parameters (the
// fingerprint: format version, size, params, shardBytes, every entry's path and size) start over:
// old shards, progress and index in outDir are deleted (outDir is a cache).
//
// Thread contract: pack() is reentrant for different outDirs; readBytes and progress are called
// from the calling thread only; decoding runs on `threads` worker threads (results are written
// in entry order, so the output does not depend on the thread count).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/dataset/DatasetIndex.h"
#include "ml/dataset/Augmentation.h"

namespace streetgan {

class PackedCacheWriter {
public:
    static constexpr int kVersion = 1;
    static constexpr int64_t kDefaultShardBytes = int64_t{1} << 30;  // 1 GiB

    /// Returns an entry's file bytes (throws IoError when it cannot: counted as "unreadable").
    using ByteReader = std::function<std::vector<uint8_t>(const ImageEntry&)>;
    /// done / total entries of the index (done includes skipped ones); may be called often.
    using Progress = std::function<void(int64_t done, int64_t total)>;

    struct Summary {
        bool complete = false;                   ///< false: cancelled (progress.json left for a resume)
        bool alreadyComplete = false;            ///< index.json with the same fingerprint was already there
        int64_t resumedFromEntry = 0;            ///< first entry this call packed (0: fresh start)
        int64_t images = 0;                      ///< records in the cache so far
        int64_t shards = 0;                      ///< complete shards so far
        std::map<std::string, int64_t> skipped;  ///< bad images by reason so far
        std::string fingerprint;                 ///< fingerprint() of this input
    };

    /// What a cache of `index` packed with `params` and `shardBytes` is identified by: the format
    /// version, the parameters and every entry's path, size, key, city and sequence (not the file
    /// contents: a photo replaced by another of the same size is not noticed).
    static std::string fingerprint(const DatasetIndex& index, const AugmentParams& params, int64_t shardBytes = kDefaultShardBytes);

    /// Packs `index` (its entries, in order) into outDir (created if needed). `cancel` (may be
    /// null) is polled between small batches; on cancel the shard being written is dropped and
    /// Summary::complete is false. Throws ConfigError (bad params, shardBytes < 1), IoError
    /// (cannot write), DataError (no usable image at all).
    static Summary pack(const DatasetIndex& index, const ByteReader& readBytes, const std::string& outDir, const AugmentParams& params,
                        const Progress& progress = {}, const std::atomic<bool>* cancel = nullptr, int64_t shardBytes = kDefaultShardBytes, int threads = 0);

    /// A ByteReader for a folder index: reads root + "/" + entry.path.
    static ByteReader folderReader(const std::string& root);

    /// "shard_00042.bin". Inline: PackedCacheSource reads caches in builds without photos, where
    /// this writer's .cpp is not compiled.
    static std::string shardName(int64_t shard) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "shard_%05lld.bin", static_cast<long long>(shard));
        return buf;
    }
};

}  // namespace streetgan
