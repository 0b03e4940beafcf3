// TorchPickleReader against files written by Python's torch.save (tests/python/
// make_pickle_fixtures.py, which also writes the values they must read back as) and by LibTorch's
// torch::pickle_save, plus corrupt, truncated and hand-crafted archives that must fail with a
// CheckpointError naming the file, never crash.
// Rejected files: TorchPickleReaderErrorsTest.cpp; helpers: PickleTestSupport.h.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "base/util/Errors.h"
#include "ml/checkpoint/PickleTestSupport.h"
#include "ml/checkpoint/PickleValue.h"
#include "ml/checkpoint/TorchPickleReader.h"

using namespace streetgan;
using namespace streetgan::test::pickle;

// --- reference checkpoints ------------------------------------------------------------------------

TEST(TorchPickleReader, ReadsReferenceCheckpoint) {
    REQUIRE_FIXTURES();
    const PickleValue root = TorchPickleReader::load(fixture("reference.pt").string());
    MatchStats stats;
    expectMatches(root, fixtures().expected["reference"], "ckpt", stats);

    // The layout the checkpoint importer relies on, spelled out (so the comparison is not vacuous).
    ASSERT_TRUE(root.isDict());
    std::vector<std::string> keys;
    for (const auto& e : root.entries()) keys.push_back(e.first.asString());
    EXPECT_EQ(keys, (std::vector<std::string>{"epoch", "D_state_dict", "G_state_dict", "D_optim", "G_optim", "losses", "img_list", "noise"}));
    EXPECT_EQ(root.at("epoch").asInt(), 3);
    const PickleValue& g = root.at("G_state_dict");
    ASSERT_NE(g.find("main.0.weight"), nullptr);
    EXPECT_EQ(g.at("main.0.weight").asTensor().sizes().vec(), (std::vector<int64_t>{64, 128, 4, 4}));
    EXPECT_EQ(g.at("main.1.num_batches_tracked").asTensor().scalar_type(), at::kLong);
    EXPECT_GE(g.at("main.1.num_batches_tracked").asTensor().item<int64_t>(), 3);
    EXPECT_EQ(g.find("module.main.0.weight"), nullptr);
    EXPECT_EQ(root.at("noise").asTensor().sizes().vec(), (std::vector<int64_t>{64, 64, 1, 1}));
    const PickleValue& optim = root.at("G_optim");
    const PickleValue* state0 = optim.at("state").findInt(0);
    ASSERT_NE(state0, nullptr);
    EXPECT_EQ(state0->at("exp_avg").asTensor().sizes(), g.at("main.0.weight").asTensor().sizes());
    EXPECT_DOUBLE_EQ(state0->at("step").asTensor().item<double>(), 3.0);
    const PickleValue& group = optim.at("param_groups").items().at(0);
    EXPECT_DOUBLE_EQ(group.at("lr").asDouble(), 2e-4);
    EXPECT_DOUBLE_EQ(group.at("betas").items().at(1).asDouble(), 0.999);
    EXPECT_EQ(root.at("losses").items().size(), 2u);
    EXPECT_EQ(root.at("losses").items()[0].items().size(), 3u);
    const size_t stateTensors = g.entries().size() + root.at("D_state_dict").entries().size();
    EXPECT_GE(stats.tensors, static_cast<int>(stateTensors) + 4) << "too few tensors compared";
}

TEST(TorchPickleReader, ReadsPrefixedCopyWithViewsAndSharedStorage) {
    REQUIRE_FIXTURES();
    const PickleValue ref = TorchPickleReader::load(fixture("reference.pt").string());
    const PickleValue pre = TorchPickleReader::load(fixture("prefixed.pt").string());
    MatchStats stats;
    expectMatches(pre, fixtures().expected["prefixed"], "prefixed", stats);

    for (const char* sd : {"G_state_dict", "D_state_dict"}) {
        const auto& refEntries = ref.at(sd).entries();
        const auto& preEntries = pre.at(sd).entries();
        ASSERT_EQ(refEntries.size(), preEntries.size()) << sd;
        for (size_t i = 0; i < refEntries.size(); ++i) {
            const std::string& key = refEntries[i].first.asString();
            EXPECT_EQ(preEntries[i].first.asString(), "module." + key);
            EXPECT_TRUE(torch::equal(preEntries[i].second.asTensor(), refEntries[i].second.asTensor())) << sd << " " << key;
        }
    }
    const json& checks = fixtures().expected["prefixed_checks"];
    const auto tensorAt = [&](const json& where) -> const at::Tensor& {
        return pre.at(where[0].get<std::string>()).at(where[1].get<std::string>()).asTensor();
    };
    EXPECT_FALSE(tensorAt(checks["noncontiguous"]).is_contiguous());
    const at::Tensor& a = tensorAt(checks["shared"][0]);
    const at::Tensor& b = tensorAt(checks["shared"][1]);
    EXPECT_TRUE(a.storage().is_alias_of(b.storage())) << "a storage shared in the file was read twice";
    EXPECT_EQ(b.storage_offset(), a.numel());
    EXPECT_FALSE(ref.at("G_state_dict").at("main.1.weight").asTensor().storage().is_alias_of(ref.at("G_state_dict").at("main.1.bias").asTensor().storage()));
}

TEST(TorchPickleReader, LoadBytesMatchesLoad) {
    REQUIRE_FIXTURES();
    const std::vector<char> bytes = readFile(fixture("reference.pt"));
    const PickleValue root = TorchPickleReader::loadBytes(bytes, "reference-in-memory");
    MatchStats stats;
    expectMatches(root, fixtures().expected["reference"], "bytes", stats);
    EXPECT_GT(stats.tensors, 20);
}

TEST(TorchPickleReader, ReadsEdgeValues) {
    REQUIRE_FIXTURES();
    for (const char* name : {"edge_p2.pt", "edge_p4.pt"}) {
        SCOPED_TRACE(name);
        const PickleValue root = TorchPickleReader::load(fixture(name).string());
        MatchStats stats;
        expectMatches(root, fixtures().expected["edge"], name, stats);
        EXPECT_GE(stats.tensors, 13);
        EXPECT_GE(stats.values, 100);
        // A few spelled out.
        const auto& ints = root.at("ints").items();
        EXPECT_EQ(ints.back().asInt(), std::numeric_limits<int64_t>::min());
        EXPECT_EQ(ints[ints.size() - 2].asInt(), std::numeric_limits<int64_t>::max());
        EXPECT_TRUE(root.at("huge_int").isOpaque());
        EXPECT_EQ(root.at("int_keys").findInt(-5)->asString(), "minus five");
        EXPECT_EQ(root.at("tensors").at("bf16").asTensor().scalar_type(), at::kBFloat16);
        EXPECT_EQ(root.at("tensors").at("strided").asTensor().select(0, 0).select(0, 1).item<float>(), 8.0f);
        EXPECT_EQ(root.at("numpy").opaqueName(), "numpy.core.multiarray._reconstruct");
        EXPECT_EQ(root.at("bytes").asBytes(), std::string("\x00\x01\x7f\x80\xff", 5));
    }
}

TEST(TorchPickleReader, MapsAnyStorageLocationToCpu) {
    REQUIRE_FIXTURES();
    const PickleValue root = TorchPickleReader::load(fixture("cuda_location.pt").string());
    MatchStats stats;
    expectMatches(root, fixtures().expected["cuda_location"], "cuda", stats);
    EXPECT_EQ(stats.tensors, 1);
    EXPECT_FLOAT_EQ(root.at("w").asTensor()[1][2].item<float>(), 2.5f);
}

// --- LibTorch's own writer --------------------------------------------------------------------------

TEST(TorchPickleReader, RoundTripsTorchPickleSave) {
    torch::manual_seed(7);
    c10::impl::GenericDict inner(c10::StringType::get(), c10::AnyType::get());
    inner.insert("x", 1.25);
    inner.insert("y", torch::tensor({1, 2, 3}, torch::kLong));
    c10::impl::GenericDict d(c10::StringType::get(), c10::AnyType::get());
    const auto weight = torch::randn({4, 5});
    const auto base = torch::arange(20, torch::kFloat);
    d.insert("weight", weight);
    d.insert("view", base.view({4, 5}).t());     // non-contiguous
    d.insert("slice", base.slice(0, 3, 15, 4));  // offset and stride
    d.insert("half", torch::tensor({0.5, -1.5}).to(torch::kHalf));
    d.insert("bf16", torch::tensor({3.0, -0.25}).to(torch::kBFloat16));
    d.insert("mask", torch::tensor({true, false}));
    d.insert("epoch", int64_t(12));
    d.insert("big", int64_t(1) << 45);
    d.insert("neg", int64_t(-70000));
    d.insert("lr", 2e-4);
    d.insert("flag", true);
    d.insert("none", c10::IValue());
    d.insert("name", std::string("gänse"));
    d.insert("ints", c10::List<int64_t>({1, -2, 300000}));
    d.insert("floats", c10::List<double>({0.5, 1e-9}));
    d.insert("tensors", c10::List<at::Tensor>({weight, base}));
    d.insert("pair", c10::ivalue::Tuple::create({c10::IValue(int64_t(1)), c10::IValue(std::string("b"))}));
    d.insert("inner", inner);
    // The archive buffer is gone before the values are used: tensors must own their data.
    const PickleValue v = [&] {
        const std::vector<char> bytes = torch::pickle_save(d);
        return TorchPickleReader::loadBytes(bytes, "pickle_save");
    }();
    ASSERT_TRUE(v.isDict());
    EXPECT_EQ(v.entries().size(), d.size());
    EXPECT_EQ(v.entries().front().first.asString(), "weight");  // insertion order kept
    EXPECT_TRUE(torch::equal(v.at("weight").asTensor(), weight));
    EXPECT_TRUE(torch::equal(v.at("view").asTensor(), base.view({4, 5}).t()));
    EXPECT_FALSE(v.at("view").asTensor().is_contiguous());
    EXPECT_TRUE(torch::equal(v.at("slice").asTensor(), base.slice(0, 3, 15, 4)));
    EXPECT_EQ(v.at("slice").asTensor().storage_offset(), 3);
    EXPECT_TRUE(torch::equal(v.at("half").asTensor(), torch::tensor({0.5, -1.5}).to(torch::kHalf)));
    EXPECT_TRUE(torch::equal(v.at("bf16").asTensor(), torch::tensor({3.0, -0.25}).to(torch::kBFloat16)));
    EXPECT_TRUE(torch::equal(v.at("mask").asTensor(), torch::tensor({true, false})));
    EXPECT_EQ(v.at("epoch").asInt(), 12);
    EXPECT_EQ(v.at("big").asInt(), int64_t(1) << 45);
    EXPECT_EQ(v.at("neg").asInt(), -70000);
    EXPECT_EQ(v.at("lr").asDouble(), 2e-4);
    EXPECT_TRUE(v.at("flag").asBool());
    EXPECT_TRUE(v.at("none").isNone());
    EXPECT_EQ(v.at("name").asString(), "gänse");
    ASSERT_EQ(v.at("ints").items().size(), 3u);
    EXPECT_EQ(v.at("ints").items()[2].asInt(), 300000);
    EXPECT_EQ(v.at("floats").items()[1].asDouble(), 1e-9);
    ASSERT_EQ(v.at("tensors").items().size(), 2u);
    EXPECT_TRUE(torch::equal(v.at("tensors").items()[1].asTensor(), base));
    EXPECT_TRUE(v.at("pair").isTuple());
    EXPECT_EQ(v.at("pair").items()[1].asString(), "b");
    EXPECT_EQ(v.at("inner").at("x").asDouble(), 1.25);
    EXPECT_TRUE(torch::equal(v.at("inner").at("y").asTensor(), torch::tensor({1, 2, 3}, torch::kLong)));
    EXPECT_TRUE(v.at("view").asTensor().storage().is_alias_of(v.at("slice").asTensor().storage()));
}

TEST(TorchPickleReader, AccessorsThrowOnKindMismatch) {
    const PickleValue d = PickleValue::dict({{PickleValue::string("a"), PickleValue::integer(1)}});
    EXPECT_THROW(d.asInt(), CheckpointError);
    EXPECT_THROW(d.items(), CheckpointError);
    EXPECT_THROW(d.at("missing"), CheckpointError);
    EXPECT_EQ(d.find("missing"), nullptr);
    EXPECT_EQ(d.at("a").asInt(), 1);
    EXPECT_EQ(d.at("a").asDouble(), 1.0);
    EXPECT_THROW(PickleValue::integer(1).find("a"), CheckpointError);
    EXPECT_THROW(PickleValue::string("s").asTensor(), CheckpointError);
    EXPECT_THROW(PickleValue().asString(), CheckpointError);
    EXPECT_TRUE(PickleValue().isNone());
}
