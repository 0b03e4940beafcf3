#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/run/TrainConfig.h"
#include "trainer/Command.h"

namespace streetgan {

class PackedCacheSource;

/// data stats SPEC [--json] [--no-decode]: images, skipped (by reason, with the files named),
/// cities with counts and shares, sequences. SPEC s3://bucket/prefix [--s3-endpoint URL ...]: the
/// same of a photo folder or packed cache in a bucket (credentials and region from the AWS chain;
/// images fetched concurrently and cached, S3DataOptions); pack and verify take s3:// too. Every image is decoded (all cores, a progress bar on
/// stderr when it is a terminal) unless its verdict is cached (PhotoListing, ImageVerdictCache).
/// data synth --count N --out DIR [--width 640 --height 480]: the synthetic scenes as JPEG files
/// (an MSLS-like folder for trying folder training and for the loader benchmark).
/// data pack SPEC --size PX --out DIR: the packed shard cache (resumable); data verify DIR.
/// data labels --data DIR [--labels a,b] [--json]: the images' labels (MslsLabelReader, or the
/// synthetic scenes' parameters) with their classes and counts; exit 6 when a label asked for is
/// absent or has one class only (ImageLabels::requireLabels).
class DataCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    int stats();
    static nlohmann::json packedStats(const PackedCacheSource& cache);
    int synth();
    int pack();
    int verify();
    int labels();

    CLI::App* stats_ = nullptr;
    CLI::App* synth_ = nullptr;
    CLI::App* pack_ = nullptr;
    CLI::App* verify_ = nullptr;
    CLI::App* labels_ = nullptr;
    std::vector<std::string> wantedLabels_;
    int size_ = 64;
    std::string spec_, out_;
    int64_t count_ = 1000;
    int width_ = 640, height_ = 480, quality_ = 90;
    uint64_t seed_ = 0;
    bool json_ = false;
    bool noDecode_ = false;
    TrainConfig cfg_;  // selection flags (cities, cap, split) and the --s3-* options share the train command's meaning
};

}  // namespace streetgan
