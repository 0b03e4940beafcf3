// Evidence that a named direction does what its name says (issue 44 item 3), for
// bench/bench_directions.sh: on the synthetic streets, whose renderer knows each scene's
// parameters, how much moving along each direction of a `streetgan-trainer directions` file
// changes what can be measured in the generated scenes.
//
// Measures of a generated image (none of them the classifier a direction was fitted with):
//   brightness       mean luminance (0.299 R + 0.587 G + 0.114 B on [0, 1]) of the pixels
//   P(<label>)       the probability given by a measuring classifier: a LabelClassifier trained on
//                    `measureScenes` rendered scenes of another data seed (1, the directions are
//                    fitted on seed 0's), for night, snow, layout=urban, weather=fog and the
//                    number labels camera_height, horizon_y, vanishing_x (above their median)
// For each direction d and measure m, over `latents` random z (seed 4242): the effect
//   (mean m(G(z + a d)) - mean m(G(z - a d))) / std m(G(z)),
// the change from -a to +a in standard deviations of that measure across random scenes.
// Prints a markdown table (one row per direction, the largest |effect| in bold) and writes a PNG
// strip per direction (rows: seeds; columns: amounts -3..3).
//
// Usage: bench_directions CHECKPOINT DIRECTIONS.json STRIP_PREFIX [amount=2] [latents=256]
//                         [measureScenes=3000]
// Thread contract: single-threaded program (LibTorch's intra-op threads as set by the caller).
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "base/dataset/ImageLabels.h"
#include "base/latent/NamedDirection.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/dataset/SyntheticSource.h"
#include "ml/directions/LabelClassifier.h"
#include "ml/directions/LabelTarget.h"
#include "ml/directions/LabelledImages.h"
#include "ml/export/ImageGrid.h"
#include "ml/latent/LatentSeed.h"

using namespace streetgan;

namespace {

struct Measure {
    std::string name;
    LabelClassifier::Trained classifier;  // unused for brightness
    bool brightness = false;
};

at::Tensor brightnessOf(const at::Tensor& x) {
    const at::Tensor u = x.add(1).div(2);
    return (u.select(1, 0) * 0.299 + u.select(1, 1) * 0.587 + u.select(1, 2) * 0.114).mean({1, 2});
}

at::Tensor measure(const Measure& m, const LabelClassifier& features, const at::Tensor& images) {
    if (m.brightness) return brightnessOf(images);
    return torch::sigmoid(m.classifier.fit.logits(features.features(images)));
}

std::string fixed(double v, int digits) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::cerr << "usage: bench_directions CHECKPOINT DIRECTIONS.json STRIP_PREFIX [amount=2] [latents=256] [measureScenes=3000]\n";
        return 2;
    }
    const std::string ckPath = argv[1], dirPath = argv[2], stripPrefix = argv[3];
    const double amount = argc > 4 ? std::stod(argv[4]) : 2.0;
    const int64_t latents = argc > 5 ? std::stoll(argv[5]) : 256;
    const int64_t scenes = argc > 6 ? std::stoll(argv[6]) : 3000;
    torch::NoGradGuard noGrad;
    const CheckpointData ck = Checkpoint::load(ckPath);
    Generator g = ModelLoader::generator(ck, ckPath, "", torch::kCPU);
    g->eval();
    const int side = static_cast<int>(ck.model.imgSize);
    const int64_t nz = ck.model.nz;
    const std::vector<NamedDirection> directions = NamedDirection::readFile(dirPath);

    // The measuring classifiers: scenes of data seed 1 (the directions were fitted on seed 0's).
    const ImageLabels labels = ImageLabels::synthetic(1, scenes);
    const SyntheticSource source(1, scenes);
    std::vector<int64_t> idx;
    std::vector<std::string> keys;
    for (int64_t i = 0; i < scenes; ++i) {
        idx.push_back(i);
        keys.push_back(std::to_string(i));
    }
    const LabelledImages images = LabelledImages::load(source, idx, keys, side);
    const LabelClassifier features(Discriminator{nullptr});
    const at::Tensor imageFeatures = features.features(images.images);
    std::vector<Measure> measures{{"brightness", {}, true}};
    std::vector<std::string> accuracies;
    for (const std::string spec : {"night", "snow", "layout=urban", "weather=fog", "camera_height", "horizon_y", "vanishing_x"}) {
        const LabelTarget t = LabelTarget::parse(spec, labels, "synthetic");
        std::vector<float> y;
        for (const auto& k : keys) y.push_back(*t.of(labels, k) ? 1.0F : 0.0F);
        Measure m;
        m.name = "P(" + spec + ")";
        m.classifier = LabelClassifier::train(imageFeatures, torch::tensor(y), 11);
        accuracies.push_back(spec + " " + fixed(m.classifier.heldOutAccuracy * 100, 1) + "%");
        measures.push_back(std::move(m));
    }

    // Effects.
    const at::Tensor z = LatentSeed::draw(4242, nz, latents);
    auto measureAll = [&](const at::Tensor& zs) {
        const at::Tensor x = g->forward(zs);
        std::vector<at::Tensor> out;
        for (const auto& m : measures) out.push_back(measure(m, features, x));
        return out;
    };
    const std::vector<at::Tensor> base = measureAll(z);
    std::cout << "Measuring classifiers (balanced held-out accuracy on rendered scenes of seed 1): ";
    for (size_t i = 0; i < accuracies.size(); ++i) std::cout << (i ? ", " : "") << accuracies[i];
    std::cout << "\n\nEffect of moving from -" << fixed(amount, 1) << " to +" << fixed(amount, 1) << " along each direction, in standard deviations of "
              << "the measure across " << latents << " random scenes:\n\n| direction |";
    for (const auto& m : measures) std::cout << " " << m.name << " |";
    std::cout << "\n|---|";
    for (size_t i = 0; i < measures.size(); ++i) std::cout << "---|";
    std::cout << "\n";
    for (const auto& d : directions) {
        if (static_cast<int64_t>(d.z.size()) != nz) {
            std::cerr << "bench_directions: direction '" << d.name << "' has " << d.z.size() << " values, the checkpoint nz=" << nz << "\n";
            return 1;
        }
        const at::Tensor v = torch::tensor(d.z, torch::kDouble).to(torch::kFloat).view({1, nz, 1, 1});
        const std::vector<at::Tensor> plus = measureAll(z + amount * v), minus = measureAll(z - amount * v);
        std::vector<double> effect;
        for (size_t i = 0; i < measures.size(); ++i)
            effect.push_back((plus[i].mean().item<double>() - minus[i].mean().item<double>()) / std::max(1e-9, base[i].std().item<double>()));
        size_t best = 0;
        for (size_t i = 1; i < effect.size(); ++i)
            if (std::abs(effect[i]) > std::abs(effect[best])) best = i;
        std::cout << "| " << d.name << (d.orthogonalTo.empty() ? "" : " (orthogonal)") << " |";
        for (size_t i = 0; i < effect.size(); ++i) std::cout << " " << (i == best ? "**" : "") << fixed(effect[i], 2) << (i == best ? "**" : "") << " |";
        std::cout << "\n";

        // The strip: four seeds, amounts -3..3.
        std::vector<at::Tensor> tiles;
        for (const uint64_t seed : {20, 32, 5, 40}) {
            const at::Tensor zs = LatentSeed::draw(seed, nz).view({1, nz, 1, 1});
            for (int a = -3; a <= 3; ++a) tiles.push_back(g->forward(zs + static_cast<double>(a) * v)[0]);
        }
        const at::Tensor grid = ImageGrid::makeGrid(torch::stack(tiles).add(1).div(2).clamp(0, 1), 7, 2, false);
        ImageGrid::writePng(grid, stripPrefix + d.name + ".png");
    }
    return 0;
}
