#include <gtest/gtest.h>

#include <torch/torch.h>

#include "base/util/Errors.h"
#include "ml/dataset/BatchLoader.h"
#include "ml/dataset/SyntheticSource.h"

using namespace streetgan;

namespace {
LoaderOptions options(int threads) {
    LoaderOptions o;
    o.batch = 4;
    o.imgSize = 32;
    o.nz = 16;
    o.seed = 5;
    o.threads = threads;
    o.prefetch = 3;
    return o;
}
}  // namespace

TEST(BatchLoader, OrderedAndIndependentOfThreadCount) {
    auto src = std::make_shared<SyntheticSource>(5, 40);  // 10 steps per epoch
    BatchLoader one(src, options(1)), three(src, options(3));
    one.start(7);
    three.start(7);
    for (int64_t s = 7; s < 19; ++s) {
        Batch a = one.next(), b = three.next();
        EXPECT_EQ(a.step, s);
        EXPECT_EQ(b.step, s);
        EXPECT_EQ(a.epoch, s / 10);
        EXPECT_TRUE(torch::equal(a.real, b.real)) << s;
        EXPECT_TRUE(torch::equal(a.noise, b.noise)) << s;
        EXPECT_TRUE(torch::equal(a.real, one.make(s).real)) << s;
        EXPECT_LE(a.real.max().item<float>(), 1.0f);
        EXPECT_GE(a.real.min().item<float>(), -1.0f);
    }
}

TEST(BatchLoader, EveryImageOncePerEpochShuffledDifferently) {
    auto src = std::make_shared<SyntheticSource>(5, 40);
    BatchLoader loader(src, options(1));
    // Identify images by their exact pixels: scene i of the source.
    std::vector<torch::Tensor> scenes;
    for (int i = 0; i < 40; ++i) {
        auto img = torch::empty({32, 32, 3}, torch::kUInt8);
        src->load(i, 32, 0, img.data_ptr<uint8_t>());
        scenes.push_back(img.permute({2, 0, 1}).to(torch::kFloat32).mul(2.0f / 255.0f).sub(1.0f));
    }
    auto order = [&](int64_t epoch) {
        std::vector<int> seen;
        for (int64_t s = epoch * 10; s < epoch * 10 + 10; ++s) {
            Batch b = loader.make(s);
            for (int i = 0; i < 4; ++i)
                for (int k = 0; k < 40; ++k)
                    if (torch::allclose(b.real[i], scenes[k], 0, 1e-6)) seen.push_back(k);
        }
        return seen;
    };
    auto e0 = order(0), e1 = order(1);
    ASSERT_EQ(e0.size(), 40u);
    ASSERT_EQ(e1.size(), 40u);
    EXPECT_NE(e0, e1);
    std::sort(e0.begin(), e0.end());
    for (int k = 0; k < 40; ++k) EXPECT_EQ(e0[k], k);
}

TEST(BatchLoader, NoiseDiffersPerStep) {
    auto src = std::make_shared<SyntheticSource>(5, 40);
    BatchLoader loader(src, options(1));
    EXPECT_FALSE(torch::equal(loader.make(0).noise, loader.make(1).noise));
    EXPECT_NEAR(loader.make(0).noise.std().item<double>(), 1.0, 0.3);
}

TEST(BatchLoader, TooFewImagesForOneBatch) {
    auto src = std::make_shared<SyntheticSource>(5, 3);
    EXPECT_THROW(BatchLoader(src, options(1)), DataError);
}

TEST(BatchLoader, RanksShareAnEpochWithoutOverlap) {
    auto src = std::make_shared<SyntheticSource>(5, 40);
    std::vector<torch::Tensor> scenes;
    for (int i = 0; i < 40; ++i) {
        auto img = torch::empty({32, 32, 3}, torch::kUInt8);
        src->load(i, 32, 0, img.data_ptr<uint8_t>());
        scenes.push_back(img.permute({2, 0, 1}).to(torch::kFloat32).mul(2.0f / 255.0f).sub(1.0f));
    }
    std::vector<int> seen;
    for (int64_t rank = 0; rank < 2; ++rank) {
        LoaderOptions o = options(1);
        o.rank = rank;
        o.worldSize = 2;
        BatchLoader loader(src, o);
        ASSERT_EQ(loader.stepsPerEpoch(), 5);  // 40 images / 2 ranks / batch 4
        for (int64_t s = 0; s < 5; ++s) {
            Batch b = loader.make(s);
            for (int i = 0; i < 4; ++i)
                for (int k = 0; k < 40; ++k)
                    if (torch::allclose(b.real[i], scenes[k], 0, 1e-6)) seen.push_back(k);
        }
    }
    std::sort(seen.begin(), seen.end());
    ASSERT_EQ(seen.size(), 40u);
    for (int k = 0; k < 40; ++k) EXPECT_EQ(seen[k], k);  // every image once, across both ranks
}
