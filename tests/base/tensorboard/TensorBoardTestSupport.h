// Helpers shared by the TensorBoard tests of test_tensorboard (TensorBoardWriterTest.cpp,
// TfRecordReaderTest.cpp): file bytes, TFRecord framing and a minimal protobuf encoder written
// independently of the code under test, the independent Python reader, a training-like event
// stream, event comparison, and the fixture giving each test its own folder.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "base/tensorboard/TensorBoardWriter.h"
#include "base/tensorboard/TfRecordReader.h"
#include "base/util/Crc32c.h"

namespace streetgan::test::tensorboard {

namespace fs = std::filesystem;
using Event = TfRecordReader::Event;

inline uint32_t floatBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

inline std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

inline std::string le(uint64_t v, int bytes) {
    std::string s;
    for (int i = 0; i < bytes; ++i) s.push_back(char((v >> (8 * i)) & 0xff));
    return s;
}

inline std::string frame(const std::string& data) {  // TFRecord framing, written independently here
    const std::string len = le(data.size(), 8);
    return len + le(Crc32c::masked(len.data(), 8), 4) + data + le(Crc32c::masked(data.data(), data.size()), 4);
}

// Minimal protobuf encoding for hand-crafted records (unknown-field tests).
inline std::string varint(uint64_t v) {
    std::string s;
    while (v >= 0x80) {
        s.push_back(char((v & 0x7f) | 0x80));
        v >>= 7;
    }
    s.push_back(char(v));
    return s;
}
inline std::string key(uint32_t field, uint32_t wire) { return varint((uint64_t(field) << 3) | wire); }
inline std::string lenField(uint32_t field, const std::string& b) { return key(field, 2) + varint(b.size()) + b; }

// Offsets at which each record starts, from the framing.
inline std::vector<std::size_t> recordStarts(const std::string& file) {
    std::vector<std::size_t> starts;
    std::size_t pos = 0;
    while (pos + 12 <= file.size()) {
        uint64_t len = 0;
        for (int i = 7; i >= 0; --i) len = (len << 8) | uint8_t(file[pos + std::size_t(i)]);
        starts.push_back(pos);
        pos += 12 + len + 4;
    }
    return starts;
}

struct PythonResult {
    int exitCode = -1;
    nlohmann::json json;
};

inline PythonResult runPythonReader(const std::string& eventFile, const fs::path& outDir) {
    const std::string out = (outDir / "python_out.json").string();
    const std::string cmd =
        std::string("\"") + STREETGAN_PYTHON + "\" \"" + STREETGAN_TEST_PYTHON_DIR + "/read_tfevents.py\" \"" + eventFile + "\" > \"" + out + "\"";
    const int status = std::system(cmd.c_str());
    PythonResult r;
    r.exitCode = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
    const std::string text = readFile(out);
    r.json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    return r;
}

inline std::string hex(const std::string& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (unsigned char c : bytes) {
        s.push_back(digits[c >> 4]);
        s.push_back(digits[c & 15]);
    }
    return s;
}

// Deterministic stand-in for PNG bytes: all byte values, zeros and 0xFF runs included.
inline std::string fakePng(std::size_t size, uint32_t seed) {
    std::string s = "\x89PNG\r\n\x1a\n";
    s.append(8, '\0');
    std::mt19937 rng(seed);
    while (s.size() < size) s.push_back(char(rng() & 0xff));
    s.resize(size);
    return s;
}

inline Event scalarEvent(const std::string& tag, float v, int64_t step, double t) {
    Event e;
    e.wallTime = t;
    e.step = step;
    TfRecordReader::Value val;
    val.tag = tag;
    val.simpleValue = v;
    e.values.push_back(val);
    return e;
}

inline Event imageEvent(const std::string& tag, const std::string& png, int h, int w, int c, int64_t step, double t) {
    Event e;
    e.wallTime = t;
    e.step = step;
    TfRecordReader::Value val;
    val.tag = tag;
    val.image = TfRecordReader::Image{h, w, c, png};
    e.values.push_back(val);
    return e;
}

// Writes what a short training run logs and returns the events expected after the header.
inline std::vector<Event> writeTrainingLike(TensorBoardWriter& w) {
    std::vector<Event> expected;
    const double t0 = 1700000000.123456;
    for (int64_t step = 0; step < 40; ++step) {
        const double t = t0 + 0.37 * double(step);
        const float lossD = 1.5f / float(step + 1) + 0.01f * float(step % 7);
        const float lossG = 0.8f + std::sin(float(step)) * 0.25f;
        const float dx = 0.5f + 0.01f * float(step);
        for (const auto& [tag, v] : {std::pair<std::string, float>{"loss_d", lossD}, {"loss_g", lossG}, {"d_x", dx}}) {
            w.addScalar(tag, v, step, t);
            expected.push_back(scalarEvent(tag, v, step, t));
        }
        if (step % 10 == 5) {
            const std::string png = fakePng(3000 + std::size_t(step), uint32_t(step));
            w.addImage("samples/fixed_noise", png, 530, 530, 3, step, t);
            expected.push_back(imageEvent("samples/fixed_noise", png, 530, 530, 3, step, t));
        }
    }
    // Edge values: special floats, negative and 64-bit steps, unicode tags, grey image.
    const std::vector<float> specials = {0.0f,
                                         -0.0f,
                                         std::numeric_limits<float>::infinity(),
                                         -std::numeric_limits<float>::infinity(),
                                         std::numeric_limits<float>::denorm_min(),
                                         std::numeric_limits<float>::max(),
                                         -1e-30f};
    int64_t step = int64_t(1) << 40;
    for (float v : specials) {
        w.addScalar("edge/special", v, step, 1.5);
        expected.push_back(scalarEvent("edge/special", v, step, 1.5));
        ++step;
    }
    w.addScalar("edge/negative_step", 3.25f, -7, 2.0);
    expected.push_back(scalarEvent("edge/negative_step", 3.25f, -7, 2.0));
    w.addScalar("edge/straße ü", 42.0f, 9, 2.5);
    expected.push_back(scalarEvent("edge/straße ü", 42.0f, 9, 2.5));
    const std::string grey = fakePng(200, 99);
    w.addImage("edge/grey", grey, 1, 2, 1, 10, 3.0);
    expected.push_back(imageEvent("edge/grey", grey, 1, 2, 1, 10, 3.0));
    w.addImage("edge/rgba_empty", std::string(), 0, 0, 4, 11, 3.5);
    expected.push_back(imageEvent("edge/rgba_empty", std::string(), 0, 0, 4, 11, 3.5));
    return expected;
}

inline void expectSameEvent(const Event& want, const Event& got, std::size_t i) {
    SCOPED_TRACE("event " + std::to_string(i));
    EXPECT_EQ(got.wallTime, want.wallTime);
    EXPECT_EQ(got.step, want.step);
    EXPECT_EQ(got.fileVersion, want.fileVersion);
    ASSERT_EQ(got.values.size(), want.values.size());
    for (std::size_t k = 0; k < want.values.size(); ++k) {
        const auto& a = want.values[k];
        const auto& b = got.values[k];
        EXPECT_EQ(b.tag, a.tag);
        ASSERT_EQ(b.simpleValue.has_value(), a.simpleValue.has_value());
        if (a.simpleValue) {
            EXPECT_EQ(floatBits(*b.simpleValue), floatBits(*a.simpleValue)) << a.tag;
        }
        ASSERT_EQ(b.image.has_value(), a.image.has_value());
        if (a.image) {
            EXPECT_EQ(b.image->height, a.image->height);
            EXPECT_EQ(b.image->width, a.image->width);
            EXPECT_EQ(b.image->colorspace, a.image->colorspace);
            EXPECT_TRUE(b.image->encoded == a.image->encoded) << "image bytes differ for " << a.tag;
        }
    }
}

class TensorBoardWriterTest : public ::testing::Test {
protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() / ("streetgan_tb_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + info->name());
        fs::remove_all(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    fs::path dir_;
};

}  // namespace streetgan::test::tensorboard
