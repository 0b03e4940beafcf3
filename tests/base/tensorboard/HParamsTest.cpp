// TfRecordReader::parseHParams on the hparams plugin data TensorBoard's own API writes
// (tests/python/make_tensorboard_hparams.py's session_start_info.bin), on every truncation of it
// and on garbage: a clear IoError or a result, never a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "base/tensorboard/TfRecordReader.h"
#include "base/util/Errors.h"

using namespace streetgan;

namespace {

std::string sessionStart() {
    std::ifstream in(std::string(STREETGAN_TEST_TB_HPARAMS) + "/session_start_info.bin", std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST(HParams, DecodesTensorBoardsSessionStartInfo) {
    const auto h = TfRecordReader::parseHParams(sessionStart());
    EXPECT_EQ(h.kind, TfRecordReader::HParams::Kind::SessionStart);
    EXPECT_EQ(h.values.at("lr"), 0.01);
    EXPECT_EQ(h.values.at("optimizer"), "sgd");
    EXPECT_EQ(h.values.at("use_bn"), false);
    EXPECT_EQ(h.values.at("layers"), 3.0);
    EXPECT_EQ(h.groupName.empty(), false);  // hparams_pb names the group by the trial id
    EXPECT_DOUBLE_EQ(h.startTimeSecs, 1700000000.0);
    EXPECT_TRUE(h.problems.empty());
}

TEST(HParams, TruncatedOrGarbageDataThrowsAClearIoError) {
    const std::string whole = sessionStart();
    ASSERT_GT(whole.size(), 20u);
    int thrown = 0;
    for (size_t n = 0; n < whole.size(); ++n) {
        try {
            (void)TfRecordReader::parseHParams(std::string_view(whole).substr(0, n));
        } catch (const IoError& e) {
            ++thrown;
            EXPECT_NE(std::string(e.what()).find("malformed hparams plugin data"), std::string::npos) << e.what();
        }
    }
    EXPECT_GT(thrown, 0);  // most cuts land inside a field
    std::mt19937 rng(43);
    for (int i = 0; i < 2000; ++i) {
        std::string garbage = whole;
        for (int k = 0; k < 4; ++k) garbage[rng() % garbage.size()] = char(rng());
        try {
            (void)TfRecordReader::parseHParams(garbage);
        } catch (const IoError&) {}
    }
    EXPECT_THROW(TfRecordReader::parseHParams(std::string("\x1a\xff\xff\xff\xff\x0f", 6)), IoError);  // a field longer than the data
    EXPECT_THROW(TfRecordReader::parseHParams(std::string("\x08", 1)), IoError);                      // a cut varint
    EXPECT_THROW(TfRecordReader::parseHParams(std::string("\x0f", 1)), IoError);                      // wire type 7
}
