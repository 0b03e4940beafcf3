// FeatureExtractor on the two TorchScript interfaces (clean-fid's return_features keyword and a
// plain forward), against the same networks run by Python; RealFeatureCache round trips and its
// handling of bad files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <torch/torch.h>

#include "MetricsTestUtil.h"
#include "base/util/ContentHash.h"
#include "base/util/Errors.h"
#include "ml/eval/FeatureExtractor.h"
#include "ml/eval/FrechetDistance.h"
#include "ml/eval/RealFeatureCache.h"

using namespace streetgan;
using namespace streetgan::test;
namespace fs = std::filesystem;

TEST(FeatureExtractor, BothInterfacesMatchPython) {
    const std::string nets = featureNetDir();
    if (nets.empty()) GTEST_SKIP() << STREETGAN_PYTHON << " has no torch";
    TempDir dir;
    torch::manual_seed(2);
    auto images = (torch::rand({13, 3, 32, 32}) * 255).round();
    writeRaw(images, dir.file("images.bin"));
    std::ofstream(dir.file("manifest.txt")) << "features " << nets << "/feat_kw.pt " << dir.file("images.bin") << " 13 32 32 1 " << dir.file("kw.out")
                                            << "\nfeatures " << nets << "/feat_plain.pt " << dir.file("images.bin") << " 13 32 32 0 " << dir.file("plain.out")
                                            << "\n";
    ASSERT_TRUE(runPython("fid_ref.py '" + dir.file("manifest.txt") + "'"));

    FeatureExtractor kw(nets + "/feat_kw.pt", torch::kCPU);
    EXPECT_TRUE(kw.returnsFeaturesByKeyword());
    EXPECT_EQ(kw.dim(), 0);
    auto f = kw.features(images, 4);                       // batches of 4, 4, 4, 1
    EXPECT_EQ(f.sizes(), (std::vector<int64_t>{13, 16}));  // the features, not the 10 "logits"
    EXPECT_EQ(kw.dim(), 16);
    EXPECT_EQ(f.scalar_type(), torch::kFloat);
    EXPECT_TRUE(torch::allclose(f, readFloats(dir.file("kw.out"), 13), 1e-5, 1e-5));
    EXPECT_TRUE(torch::allclose(kw.features(images, 100), f, 1e-5, 1e-6));
    EXPECT_EQ(kw.sha256(), ContentHash::sha256File(nets + "/feat_kw.pt"));
    EXPECT_EQ(kw.path(), nets + "/feat_kw.pt");

    FeatureExtractor plain(nets + "/feat_plain.pt", torch::kCPU);
    EXPECT_FALSE(plain.returnsFeaturesByKeyword());
    auto p = plain.features(images.to(torch::kDouble), 5);  // any floating dtype in
    EXPECT_EQ(p.sizes(), (std::vector<int64_t>{13, 12}));   // (N, 12, 1, 1) flattened
    EXPECT_TRUE(torch::allclose(p, readFloats(dir.file("plain.out"), 13), 1e-5, 1e-5));
    EXPECT_NE(plain.sha256(), kw.sha256());
}

TEST(FeatureExtractor, RefusesWhatIsNotAFeatureModel) {
    TempDir dir;
    try {
        FeatureExtractor(dir.file("inception-2015-12-05.pt"), torch::kCPU);
        FAIL() << "no throw";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("inception-2015-12-05.pt' does not exist"), std::string::npos) << e.what();
    }
    std::ofstream(dir.file("junk.pt")) << "not a zip archive";
    try {
        FeatureExtractor(dir.file("junk.pt"), torch::kCPU);
        FAIL() << "no throw";
    } catch (const ConfigError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("is not a TorchScript module"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;  // one line
    }
    const std::string nets = featureNetDir();
    if (nets.empty()) return;
    FeatureExtractor kw(nets + "/feat_kw.pt", torch::kCPU);
    EXPECT_THROW(kw.features(torch::rand({2, 1, 8, 8})), DataError);  // not RGB
    EXPECT_THROW(kw.features(torch::rand({0, 3, 8, 8})), DataError);
    EXPECT_THROW(kw.features(torch::rand({2, 3, 8, 8}), 0), ConfigError);
}

TEST(FeatureExtractor, InputConversions) {
    auto x = torch::tensor({-1.0f, -0.999f, 0.0f, 1.0f, 1.5f, -3.0f}).reshape({1, 1, 2, 3});
    auto y = FeatureExtractor::toNetworkInput(x);
    EXPECT_EQ(y.scalar_type(), torch::kFloat);
    const std::vector<float> want = {0, 0, 128, 255, 255, 0};  // 127.5 rounds half to even: 128
    for (int64_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(y.reshape({-1})[i].item<float>(), want[static_cast<size_t>(i)]) << i;
    // A decoded 8-bit pixel v and a generator pixel v / 127.5 - 1 reach the network as the same value.
    auto bytes = torch::arange(0, 256, torch::kInt).to(torch::kByte).reshape({1, 16, 16, 1}).repeat({1, 1, 1, 3});
    auto fromReal = FeatureExtractor::fromBytes(bytes);
    EXPECT_EQ(fromReal.sizes(), (std::vector<int64_t>{1, 3, 16, 16}));
    auto fromGen = FeatureExtractor::toNetworkInput(fromReal / 127.5 - 1.0);
    EXPECT_TRUE(torch::equal(fromReal, fromGen));
}

namespace {

RealFeatures sampleEntry(int64_t n, int64_t d) {
    RealFeatures e;
    e.features = torch::randn({n, d});
    e.stats = FrechetDistance::statistics(e.features);
    return e;
}

}  // namespace

TEST(RealFeatureCache, RoundTripAndKeys) {
    TempDir dir;
    RealFeatureCache cache(dir.file("sub/fid"));
    const auto key = RealFeatureCache::key("synthetic streets (64 images per epoch), seed 3", 32, 64, std::string(64, 'a'));
    std::vector<std::string> warnings;
    auto warn = [&](const std::string& w) { warnings.push_back(w); };
    EXPECT_FALSE(cache.load(key, warn).has_value());
    EXPECT_TRUE(warnings.empty());  // a plain miss is not worth a warning

    torch::manual_seed(1);
    const RealFeatures e = sampleEntry(20, 7);
    cache.store(key, e);  // creates the folder
    EXPECT_TRUE(fs::exists(cache.pathFor(key)));
    const auto back = cache.load(key, warn);
    ASSERT_TRUE(back.has_value());
    EXPECT_TRUE(torch::equal(back->features, e.features));
    EXPECT_TRUE(torch::equal(back->stats.mu, e.stats.mu));
    EXPECT_TRUE(torch::equal(back->stats.sigma, e.stats.sigma));
    EXPECT_EQ(back->stats.count, 20);
    EXPECT_TRUE(warnings.empty());

    // Every part of the key selects a different file.
    for (const auto& other : {RealFeatureCache::key("synthetic streets (64 images per epoch), seed 4", 32, 64, std::string(64, 'a')),
                              RealFeatureCache::key("synthetic streets (64 images per epoch), seed 3", 64, 64, std::string(64, 'a')),
                              RealFeatureCache::key("synthetic streets (64 images per epoch), seed 3", 32, 65, std::string(64, 'a')),
                              RealFeatureCache::key("synthetic streets (64 images per epoch), seed 3", 32, 64, std::string(64, 'b'))}) {
        EXPECT_NE(cache.pathFor(other), cache.pathFor(key));
        EXPECT_FALSE(cache.load(other, warn).has_value());
    }
    EXPECT_TRUE(warnings.empty());
    // A file of this name holding another key (a copied file): refused with a warning.
    fs::copy_file(cache.pathFor(key), cache.pathFor(RealFeatureCache::key("x", 32, 64, "y")));
    EXPECT_FALSE(cache.load(RealFeatureCache::key("x", 32, 64, "y"), warn).has_value());
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("another data set"), std::string::npos) << warnings[0];
}

TEST(RealFeatureCache, CorruptFilesAreMissesWithAWarning) {
    TempDir dir;
    RealFeatureCache cache(dir.path().string());
    const auto key = RealFeatureCache::key("folder 'x' (10 images)", 64, 10, std::string(64, 'c'));
    torch::manual_seed(5);
    cache.store(key, sampleEntry(10, 5));
    const std::string path = cache.pathFor(key);
    const std::string good = slurpFile(path);

    auto attempt = [&](const std::string& bytes, const std::string& expect) {
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
        std::vector<std::string> warnings;
        EXPECT_FALSE(cache.load(key, [&](const std::string& w) { warnings.push_back(w); }).has_value()) << expect;
        ASSERT_EQ(warnings.size(), 1u) << expect;
        EXPECT_NE(warnings[0].find(path), std::string::npos) << warnings[0];
        EXPECT_NE(warnings[0].find(expect), std::string::npos) << warnings[0];
    };
    std::string flipped = good;
    flipped[flipped.size() - 9] ^= 0x40;  // inside sigma
    attempt(flipped, "checksum mismatch");
    attempt(good.substr(0, good.size() - 100), "payload is");
    attempt(good.substr(0, 12), "not a StreetGAN feature cache");
    attempt("", "not a StreetGAN feature cache");
    attempt("garbage garbage garbage", "not a StreetGAN feature cache");
    std::string badHeader = good;
    badHeader[17] = '#';  // inside the JSON header
    attempt(badHeader, "bad header");
    // Storing again repairs it.
    cache.store(key, sampleEntry(10, 5));
    EXPECT_TRUE(cache.load(key).has_value());
}

TEST(RealFeatureCache, DefaultDirFollowsTheEnvironment) {
    const char* old = std::getenv("STREETGAN_FID_CACHE");
    const std::string saved = old ? old : "";
    ::setenv("STREETGAN_FID_CACHE", "/tmp/somewhere/fid", 1);
    EXPECT_EQ(RealFeatureCache::defaultDir(), "/tmp/somewhere/fid");
    EXPECT_EQ(RealFeatureCache().dir(), "/tmp/somewhere/fid");
    ::unsetenv("STREETGAN_FID_CACHE");
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg && *xdg) {
        EXPECT_EQ(RealFeatureCache::defaultDir(), std::string(xdg) + "/streetgan/fid");
    } else if (const char* home = std::getenv("HOME")) {
        EXPECT_EQ(RealFeatureCache::defaultDir(), std::string(home) + "/.cache/streetgan/fid");
    }
    if (old) ::setenv("STREETGAN_FID_CACHE", saved.c_str(), 1);
}
