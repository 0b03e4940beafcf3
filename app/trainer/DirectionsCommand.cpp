#include "trainer/DirectionsCommand.h"

#include <torch/torch.h>
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "base/dataset/ImageLabels.h"
#include "base/dataset/MslsLabelReader.h"
#include "base/run/TrainConfig.h"
#include "base/util/AtomicFile.h"
#include "base/util/BuildFeatures.h"
#include "base/util/ContentHash.h"
#include "base/util/Errors.h"
#include "ml/dataset/DataSources.h"
#include "ml/dataset/SyntheticSource.h"
#include "ml/export/FrameRenderer.h"
#include "trainer/FiniteNumber.h"

#if STREETGAN_WITH_PHOTOS
#include "ml/dataset/PhotoSource.h"
#endif

namespace streetgan {
namespace fs = std::filesystem;

namespace {

// Below this balanced held-out accuracy a classifier is reported as near chance.
constexpr double kTrustedClassifier = 0.65;

std::atomic<bool> gCancel{false};
void onSignal(int) { gCancel.store(true); }

std::string percent(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", v * 100);
    return buf;
}

// The labelled images to learn from: the source, which of its images, their keys.
struct Picked {
    std::shared_ptr<const ImageSource> source;
    std::vector<int64_t> indices;
    std::vector<std::string> keys;
};

// The synthetic scenes 0..count-1 (keys "0", "1", ...), or the MSLS folder's photos that carry a
// label (centre crop, no shift, flip or noise), at most `max` of them, picked by `seed`.
Picked pickImages(const std::string& data, const ImageLabels& labels, const TrainConfig& run, int64_t max, uint64_t seed, uint64_t dataSeed) {
    Picked p;
    if (data == "synthetic") {
        p.source = std::make_shared<SyntheticSource>(dataSeed, max);
        for (int64_t i = 0; i < max; ++i) {
            p.indices.push_back(i);
            p.keys.push_back(std::to_string(i));
        }
        return p;
    }
#if !STREETGAN_WITH_PHOTOS
    BuildFeatures::missing("`directions` on a folder of photos", BuildFeatures::Feature::Photos);
#else
    AugmentParams a = DataSources::augmentParams(run);  // the run's crop, as the model saw its photos
    a.maxShift = 0;
    a.noiseStd = 0;
    a.flip = false;
    // A folder, or an MSLS batch read in place (zip, tar), as `train --data` takes them.
    std::error_code ec;
    const auto photos =
        std::filesystem::is_regular_file(data, ec) ? PhotoSource::archive(data, IndexOptions{}, a) : PhotoSource::folder(data, IndexOptions{}, a);
    std::vector<int64_t> labelled;
    const auto& entries = photos->index().entries();
    const std::set<std::string> keys = labels.keys();
    for (size_t i = 0; i < entries.size(); ++i)
        if (keys.count(entries[i].key)) labelled.push_back(static_cast<int64_t>(i));
    for (const int64_t at : LabelledImages::pick(static_cast<int64_t>(labelled.size()), max, seed)) {
        const int64_t i = labelled[static_cast<size_t>(at)];
        p.indices.push_back(i);
        p.keys.push_back(entries[static_cast<size_t>(i)].key);
    }
    p.source = photos;
    return p;
#endif
}

}  // namespace

CLI::App* DirectionsCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("directions", "Named latent directions (night, sideways, winter, a city) learnt from a data set's labels");
    a->add_option("--checkpoint", checkpoint_, "StreetGAN or reference Python checkpoint")->required();
    a->add_option("--data", data_, "synthetic, an MSLS folder (train_val, a city, a database/query folder) or an MSLS batch (.zip, .tar, .tar.gz)")->required();
    a->add_option("--labels", labels_, "Labels to fit, comma-separated: night, view_direction, season, time_of_day, city=berlin, camera_height, ...")
        ->required()
        ->delimiter(',');
    a->add_option("--out", out_, "JSON file of the named directions (written at the end, atomically)")->required();
    a->add_option("--samples", options_.samples, "Generated samples scored (InterFaceGAN takes the extremes of them)")
        ->capture_default_str()
        ->check(CLI::Range(int64_t{100}, int64_t{1000000}));
    a->add_option("--extreme-percent", options_.extremePercent, "Share of the samples taken from each end")
        ->capture_default_str()
        ->check(FiniteNumber())
        ->check(CLI::Range(0.1, 50.0));
    a->add_option("--seed", options_.seed, "Seed of the samples and the splits (same seed, same directions)")->capture_default_str();
    a->add_option("--orthogonal-to", options_.orthogonalTo, "Make the other directions orthogonal to these (names or labels of --labels)")->delimiter(',');
    a->add_option("--images", images_, "Labelled images the classifier learns from (at most)")
        ->capture_default_str()
        ->check(CLI::Range(int64_t{10}, int64_t{1000000}));
    a->add_option("--data-seed", dataSeed_, "Seed of the synthetic scenes")->capture_default_str();
    a->add_flag("--json", json_, "One JSON document on stdout (the file's)");
    models_.addOptions(a);
    return a;
}

int DirectionsCommand::execute() {
    const auto t0 = std::chrono::steady_clock::now();
    models_.applyThreads();
    options_.validate();
    {
        const fs::path p(out_);
        const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) throw IoError("--out '" + out_ + "': the folder '" + dir.string() + "' does not exist; create it first");
        if (fs::is_directory(p, ec)) throw IoError("--out '" + out_ + "' is a folder; give a file name");
    }
    // Labels and targets first: the cheap refusals before the checkpoint and the images.
    const ImageLabels labels = data_ == "synthetic" ? ImageLabels::synthetic(dataSeed_, images_) : MslsLabelReader::read(data_);
    std::vector<LabelTarget> targets;
    for (const auto& spec : labels_) targets.push_back(LabelTarget::parse(spec, labels, data_));
    // The metadata's problems (a missing column, malformed rows) once the labels asked for are
    // known to be usable: a refusal stays one line.
    for (const auto& line : labels.problems()) std::cerr << "streetgan-trainer: warning: " << line << "\n";

    models_.load(checkpoint_);
    const CheckpointData& ck = models_.data;
    const Generator& g = models_.g;
    const Discriminator& d = models_.d;
    const int side = static_cast<int>(ck.model.imgSize);

    gCancel = false;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    try {
        TrainConfig run;
        if (!ck.configJson.empty()) run.merge(nlohmann::json::parse(ck.configJson));
        run.model = ck.model;
        const Picked picked = pickImages(data_, labels, run, images_, options_.seed, dataSeed_);
        if (picked.indices.empty())
            throw DataError(data_ + ": none of its labelled images was found among its photos; check that the images/ folders are there");
        DirectionFitter::checkInputs(picked.keys, labels, targets, options_);
        std::cerr << "loading " << picked.indices.size() << " labelled images at " << side << " px\n";
        const LabelledImages images = LabelledImages::load(*picked.source, picked.indices, picked.keys, side, {}, &gCancel);
        // PhotoSource replaces an unreadable photo by the next usable one (training's rule), so
        // such an image would carry its neighbour's labels: say how many there were.
        int64_t replaced = 0;
        for (const auto& [reason, n] : picked.source->skipped()) replaced += n;
        if (replaced > 0)
            std::cerr << "streetgan-trainer: warning: " << replaced << " labelled photos could not be read and were replaced by the next usable one "
                      << "(their labels may not fit them); run `data stats " << data_ << "` to see which\n";
        const DirectionFitter fitter(g, d, options_);
        std::string lastStage;
        const std::vector<NamedDirection> found = fitter.fit(
            images, labels, targets,
            [&](const DirectionFitter::Progress& p) {
                const int64_t every = std::max<int64_t>(1, p.total / 5);
                if (p.stage != lastStage || p.done % every == 0 || p.done == p.total) std::cerr << p.stage << " " << p.done << "/" << p.total << "\n";
                lastStage = p.stage;
            },
            &gCancel);

        nlohmann::json j = {{"format", "streetgan-directions/1"},
                            {"checkpoint", checkpoint_},
                            {"checkpoint_sha256", ContentHash::sha256File(checkpoint_)},
                            {"data", data_},
                            {"labelled_images", images.keys.size()},
                            {"samples", options_.samples},
                            {"extreme_percent", options_.extremePercent},
                            {"seed", options_.seed},
                            {"nz", ck.model.nz},
                            {"directions", nlohmann::json::array()}};
        for (const auto& nd : found) j["directions"].push_back(nd.toJson());
        j["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        AtomicFile::write(out_, j.dump(2) + "\n");
        // A boundary fitted to a classifier that guesses separates that classifier's whims: say so.
        for (const auto& nd : found)
            if (nd.classifierAccuracy < kTrustedClassifier)
                std::cerr << "streetgan-trainer: warning: the classifier of '" << nd.name << "' is " << percent(nd.classifierAccuracy)
                          << " right on held-out photos (50% is chance): the direction follows what it scores, not necessarily " << nd.label << "\n";
        if (json_) {
            std::cout << j.dump() << "\n";
        } else {
            for (const auto& nd : found) {
                std::cout << nd.name << " (" << nd.label << " " << nd.positive << "): classifier " << percent(nd.classifierAccuracy) << " held out ("
                          << nd.classifierHeldOut << " of " << nd.classifierTrain + nd.classifierHeldOut << " photos), boundary "
                          << percent(nd.boundaryAccuracy) << " held out (" << nd.boundaryHeldOut << " of " << 2 * nd.extremesPerSide << " samples)";
                if (!nd.orthogonalTo.empty()) std::cout << ", orthogonalised: " << percent(nd.orthogonalAccuracy);
                std::cout << "\n";
            }
            std::cout << "wrote " << out_ << "\n";
        }
    } catch (const RenderCancelled&) {
        std::cerr << "streetgan-trainer: directions interrupted; nothing written\n";
        return static_cast<int>(ExitCode::Interrupted);
    }
    return 0;
}

}  // namespace streetgan
