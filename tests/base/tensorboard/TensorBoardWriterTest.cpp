// TensorBoard event files: CRC-32C, the writer, the reader, and an independent Python reader
// (tests/python/read_tfevents.py: its own CRC-32C and protobuf decoding) that must agree.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util/Crc32c.h"
#include "base/tensorboard/TensorBoardWriter.h"
#include "base/tensorboard/TfRecordReader.h"
#include "base/util/Errors.h"

using namespace streetgan;
namespace fs = std::filesystem;
using Event = TfRecordReader::Event;

namespace {

// ---------------------------------------------------------------------------------------------
// helpers

uint32_t bitwiseCrc32c(const std::string& s) {  // the definition, one bit at a time
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned char b : s) {
        c ^= b;
        for (int k = 0; k < 8; ++k)
            c = (c & 1u) ? (c >> 1) ^ 0x82F63B78u : (c >> 1);
    }
    return ~c;
}

uint32_t floatBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string le(uint64_t v, int bytes) {
    std::string s;
    for (int i = 0; i < bytes; ++i)
        s.push_back(char((v >> (8 * i)) & 0xff));
    return s;
}

std::string frame(const std::string& data) {  // TFRecord framing, written independently here
    const std::string len = le(data.size(), 8);
    return len + le(Crc32c::masked(len.data(), 8), 4) + data + le(Crc32c::masked(data.data(), data.size()), 4);
}

// Minimal protobuf encoding for hand-crafted records (unknown-field tests).
std::string varint(uint64_t v) {
    std::string s;
    while (v >= 0x80) {
        s.push_back(char((v & 0x7f) | 0x80));
        v >>= 7;
    }
    s.push_back(char(v));
    return s;
}
std::string key(uint32_t field, uint32_t wire) { return varint((uint64_t(field) << 3) | wire); }
std::string lenField(uint32_t field, const std::string& b) { return key(field, 2) + varint(b.size()) + b; }

// Offsets at which each record starts, from the framing.
std::vector<std::size_t> recordStarts(const std::string& file) {
    std::vector<std::size_t> starts;
    std::size_t pos = 0;
    while (pos + 12 <= file.size()) {
        uint64_t len = 0;
        for (int i = 7; i >= 0; --i)
            len = (len << 8) | uint8_t(file[pos + std::size_t(i)]);
        starts.push_back(pos);
        pos += 12 + len + 4;
    }
    return starts;
}

struct PythonResult {
    int exitCode = -1;
    nlohmann::json json;
};

PythonResult runPythonReader(const std::string& eventFile, const fs::path& outDir) {
    const std::string out = (outDir / "python_out.json").string();
    const std::string cmd = std::string("\"") + STREETGAN_PYTHON + "\" \"" + STREETGAN_TEST_PYTHON_DIR +
                            "/read_tfevents.py\" \"" + eventFile + "\" > \"" + out + "\"";
    const int status = std::system(cmd.c_str());
    PythonResult r;
    r.exitCode = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
    const std::string text = readFile(out);
    r.json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    return r;
}

std::string hex(const std::string& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (unsigned char c : bytes) {
        s.push_back(digits[c >> 4]);
        s.push_back(digits[c & 15]);
    }
    return s;
}

// Deterministic stand-in for PNG bytes: all byte values, zeros and 0xFF runs included.
std::string fakePng(std::size_t size, uint32_t seed) {
    std::string s = "\x89PNG\r\n\x1a\n";
    s.append(8, '\0');
    std::mt19937 rng(seed);
    while (s.size() < size)
        s.push_back(char(rng() & 0xff));
    s.resize(size);
    return s;
}

Event scalarEvent(const std::string& tag, float v, int64_t step, double t) {
    Event e;
    e.wallTime = t;
    e.step = step;
    TfRecordReader::Value val;
    val.tag = tag;
    val.simpleValue = v;
    e.values.push_back(val);
    return e;
}

Event imageEvent(const std::string& tag, const std::string& png, int h, int w, int c, int64_t step, double t) {
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
std::vector<Event> writeTrainingLike(TensorBoardWriter& w) {
    std::vector<Event> expected;
    const double t0 = 1700000000.123456;
    for (int64_t step = 0; step < 40; ++step) {
        const double t = t0 + 0.37 * double(step);
        const float lossD = 1.5f / float(step + 1) + 0.01f * float(step % 7);
        const float lossG = 0.8f + std::sin(float(step)) * 0.25f;
        const float dx = 0.5f + 0.01f * float(step);
        for (const auto& [tag, v] : {std::pair<std::string, float>{"loss_d", lossD},
                                     {"loss_g", lossG},
                                     {"d_x", dx}}) {
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
    const std::vector<float> specials = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                                         -std::numeric_limits<float>::infinity(),
                                         std::numeric_limits<float>::denorm_min(),
                                         std::numeric_limits<float>::max(), -1e-30f};
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

void expectSameEvent(const Event& want, const Event& got, std::size_t i) {
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
        dir_ = fs::temp_directory_path() /
               ("streetgan_tb_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" +
                info->name());
        fs::remove_all(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    fs::path dir_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// CRC-32C

TEST(Crc32c, KnownAnswerVectors) {
    EXPECT_EQ(Crc32c::compute(std::string()), 0x00000000u);
    EXPECT_EQ(Crc32c::compute(std::string("a")), 0xC1D04330u);
    EXPECT_EQ(Crc32c::compute(std::string("123456789")), 0xE3069283u);
    // RFC 3720 (iSCSI) appendix B.4
    EXPECT_EQ(Crc32c::compute(std::string(32, '\0')), 0x8A9136AAu);
    EXPECT_EQ(Crc32c::compute(std::string(32, '\xff')), 0x62A8AB43u);
    std::string up, down;
    for (int i = 0; i < 32; ++i) {
        up.push_back(char(i));
        down.push_back(char(31 - i));
    }
    EXPECT_EQ(Crc32c::compute(up), 0x46DD794Eu);
    EXPECT_EQ(Crc32c::compute(down), 0x113FDB5Cu);
    const unsigned char pdu[48] = {0x01, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                   0x14, 0, 0, 0, 0, 0, 0x04, 0, 0, 0, 0, 0x14, 0, 0, 0, 0x18,
                                   0x28, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(Crc32c::compute(pdu, sizeof pdu), 0xD9963A56u);
}

TEST(Crc32c, MaskedFormMatchesTfRecord) {
    // The 8 length bytes of a 24-byte record (the file_version record of every TensorBoard file)
    // carry masked CRC a3 7f 4b 22 in files written by TensorFlow.
    const unsigned char len24[8] = {24, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(Crc32c::masked(len24, 8), 0x224B7FA3u);
    EXPECT_EQ(Crc32c::mask(0), 0xA282EAD8u);
    const uint32_t c = 0xE3069283u;
    EXPECT_EQ(Crc32c::mask(c), uint32_t(((c >> 15) | (c << 17)) + 0xa282ead8u));
    std::mt19937 rng(7);
    for (int i = 0; i < 1000; ++i) {
        const uint32_t x = rng();
        EXPECT_EQ(Crc32c::unmask(Crc32c::mask(x)), x);
    }
}

TEST(Crc32c, SlicingMatchesBitwiseDefinitionAndExtends) {
    std::mt19937 rng(1234);
    std::string buf(300, '\0');
    for (auto& ch : buf)
        ch = char(rng() & 0xff);
    for (std::size_t off = 0; off < 8; ++off) {
        for (std::size_t len = 0; len + off <= buf.size(); len += (len < 40 ? 1 : 13)) {
            const std::string s = buf.substr(off, len);
            ASSERT_EQ(Crc32c::compute(buf.data() + off, len), bitwiseCrc32c(s)) << off << "+" << len;
            const std::size_t split = len / 3;
            EXPECT_EQ(Crc32c::extend(Crc32c::compute(s.substr(0, split)), s.data() + split, len - split),
                      Crc32c::compute(s));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// writer + reader

TEST_F(TensorBoardWriterTest, CreatesDirectoryAndVersionedFile) {
    const fs::path tb = dir_ / "run" / "tb";
    const auto before = std::chrono::system_clock::now();
    std::string path;
    {
        TensorBoardWriter w(tb.string());
        path = w.path();
    }
    const auto after = std::chrono::system_clock::now();
    const double tBefore = std::chrono::duration<double>(before.time_since_epoch()).count();
    const double tAfter = std::chrono::duration<double>(after.time_since_epoch()).count();

    ASSERT_TRUE(fs::is_directory(tb));
    EXPECT_EQ(fs::path(path).parent_path(), tb);
    const std::string name = fs::path(path).filename().string();
    const std::string prefix = "events.out.tfevents.";
    ASSERT_EQ(name.compare(0, prefix.size(), prefix), 0) << name;
    const std::size_t dot = name.find('.', prefix.size());
    ASSERT_NE(dot, std::string::npos) << name;
    const std::string digits = name.substr(prefix.size(), dot - prefix.size());
    ASSERT_FALSE(digits.empty());
    ASSERT_EQ(digits.find_first_not_of("0123456789"), std::string::npos) << name;
    const long long secs = std::stoll(digits);
    EXPECT_GE(secs, (long long)std::floor(tBefore));
    EXPECT_LE(secs, (long long)std::floor(tAfter));
    char host[256] = {};
    ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
    EXPECT_EQ(name.substr(dot + 1), std::string(host));

    // Byte-exact start of a TensorFlow-written file: length 24, masked CRC a3 7f 4b 22.
    const std::string bytes = readFile(path);
    ASSERT_EQ(bytes.size(), 12u + 24u + 4u);
    EXPECT_EQ(hex(bytes.substr(0, 12)), "1800000000000000a37f4b22");
    EXPECT_EQ(uint8_t(bytes[12]), 0x09u);  // wall_time: field 1, fixed64
    EXPECT_EQ(bytes.substr(21, 15), std::string("\x1a\x0d" "brain.Event:2"));

    const auto events = TfRecordReader::readAllEvents(path);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].fileVersion, "brain.Event:2");
    EXPECT_GE(events[0].wallTime, tBefore);
    EXPECT_LE(events[0].wallTime, tAfter);
    EXPECT_EQ(events[0].step, 0);
    EXPECT_TRUE(events[0].values.empty());
}

TEST_F(TensorBoardWriterTest, ScalarsAndImagesRoundTrip) {
    std::string path;
    std::vector<Event> expected;
    {
        TensorBoardWriter w(dir_.string());
        path = w.path();
        expected = writeTrainingLike(w);
        w.flush();
    }
    TfRecordReader reader(path);
    Event header;
    ASSERT_TRUE(reader.readEvent(header));
    EXPECT_EQ(header.fileVersion, "brain.Event:2");
    std::vector<Event> got;
    Event e;
    while (reader.readEvent(e))  // every record's two CRCs are verified here (a mismatch throws)
        got.push_back(e);
    EXPECT_FALSE(reader.torn());
    EXPECT_EQ(reader.offset(), fs::file_size(path));
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        expectSameEvent(expected[i], got[i], i);
}

TEST_F(TensorBoardWriterTest, IndependentPythonReaderAgrees) {
    std::string path;
    std::vector<Event> expected;
    {
        TensorBoardWriter w(dir_.string());
        path = w.path();
        expected = writeTrainingLike(w);
    }
    const PythonResult py = runPythonReader(path, dir_);
    ASSERT_EQ(py.exitCode, 0) << py.json.dump();
    const auto& j = py.json;
    ASSERT_TRUE(j.is_object()) << "python output is not JSON";
    EXPECT_EQ(j.at("torn_tail").get<bool>(), false);
    ASSERT_EQ(j.at("records").get<std::size_t>(), expected.size() + 1);
    const auto& evs = j.at("events");
    EXPECT_EQ(evs[0].at("file_version"), "brain.Event:2");
    EXPECT_TRUE(evs[0].at("values").empty());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        SCOPED_TRACE("event " + std::to_string(i));
        const Event& want = expected[i];
        const auto& ev = evs[i + 1];
        EXPECT_EQ(ev.at("wall_time").get<double>(), want.wallTime);
        EXPECT_EQ(ev.at("step").get<int64_t>(), want.step);
        EXPECT_TRUE(ev.at("file_version").is_null());
        ASSERT_EQ(ev.at("values").size(), want.values.size());
        const auto& v = ev.at("values")[0];
        const auto& wv = want.values[0];
        EXPECT_EQ(v.at("tag").get<std::string>(), wv.tag);
        if (wv.simpleValue) {
            EXPECT_EQ(v.at("simple_value_bits").get<uint32_t>(), floatBits(*wv.simpleValue));
            if (std::isfinite(*wv.simpleValue)) {
                EXPECT_EQ(v.at("simple_value").get<double>(), double(*wv.simpleValue));
            }
            EXPECT_TRUE(v.at("image").is_null());
        } else {
            ASSERT_TRUE(v.at("image").is_object());
            EXPECT_TRUE(v.at("simple_value_bits").is_null());
            EXPECT_EQ(v.at("image").at("height").get<int>(), wv.image->height);
            EXPECT_EQ(v.at("image").at("width").get<int>(), wv.image->width);
            EXPECT_EQ(v.at("image").at("colorspace").get<int>(), wv.image->colorspace);
            EXPECT_EQ(v.at("image").at("encoded_hex").get<std::string>(), hex(wv.image->encoded));
        }
    }
}

TEST_F(TensorBoardWriterTest, LargeImageLargerThanBuffers) {
    const std::string png = fakePng(3 * 1024 * 1024 + 17, 5);
    std::string path;
    {
        TensorBoardWriter w(dir_.string());
        path = w.path();
        w.addScalar("before", 1.0f, 1, 10.0);
        w.addImage("big", png, 2048, 1536, 4, 2, 11.0);
        w.addScalar("after", 2.0f, 3, 12.0);
    }
    const auto events = TfRecordReader::readAllEvents(path);
    ASSERT_EQ(events.size(), 4u);
    expectSameEvent(imageEvent("big", png, 2048, 1536, 4, 2, 11.0), events[2], 2);
    expectSameEvent(scalarEvent("after", 2.0f, 3, 12.0), events[3], 3);
}

TEST_F(TensorBoardWriterTest, FlushMakesRecordsVisibleToReaders) {
    TensorBoardWriter w(dir_.string());
    w.addScalar("loss_d", 0.5f, 1, 100.0);
    w.flush();
    {
        const auto events = TfRecordReader::readAllEvents(w.path());
        ASSERT_EQ(events.size(), 2u);
        expectSameEvent(scalarEvent("loss_d", 0.5f, 1, 100.0), events[1], 1);
    }
    // A reader that hit the end follows the growing file.
    TfRecordReader reader(w.path());
    Event e;
    ASSERT_TRUE(reader.readEvent(e));
    ASSERT_TRUE(reader.readEvent(e));
    EXPECT_FALSE(reader.readEvent(e));
    EXPECT_FALSE(reader.torn());
    w.addScalar("loss_d", 0.25f, 2, 101.0);
    w.flush();
    ASSERT_TRUE(reader.readEvent(e));
    expectSameEvent(scalarEvent("loss_d", 0.25f, 2, 101.0), e, 2);
}

TEST_F(TensorBoardWriterTest, TwoWritersInOneSecondGetDistinctFiles) {
    TensorBoardWriter a(dir_.string());
    TensorBoardWriter b(dir_.string());
    TensorBoardWriter c(dir_.string());
    EXPECT_NE(a.path(), b.path());
    EXPECT_NE(b.path(), c.path());
    EXPECT_NE(a.path(), c.path());
    for (const auto* w : {&a, &b, &c})
        EXPECT_NE(fs::path(w->path()).filename().string().find("events.out.tfevents."), std::string::npos);
}

TEST_F(TensorBoardWriterTest, EveryFlippedByteIsDetectedAsCrcError) {
    std::string path;
    {
        TensorBoardWriter w(dir_.string());
        path = w.path();
        for (int s = 0; s < 4; ++s)
            w.addScalar("loss", 0.1f * float(s), s, 50.0 + s);
        w.addImage("img", fakePng(40, 3), 4, 4, 3, 5, 60.0);
    }
    const std::string good = readFile(path);
    const auto starts = recordStarts(good);
    ASSERT_EQ(starts.size(), 6u);
    ASSERT_NO_THROW(TfRecordReader::readAllEvents(path));

    for (std::size_t pos = 0; pos < good.size(); ++pos) {
        std::string bad = good;
        bad[pos] = char(bad[pos] ^ (pos % 2 ? 0x01 : 0x80));
        writeFile(path, bad);
        std::size_t recordStart = 0;
        for (std::size_t s : starts)
            if (s <= pos)
                recordStart = s;
        try {
            TfRecordReader::readAllEvents(path);
            ADD_FAILURE() << "flip at byte " << pos << " not detected";
        } catch (const IoError& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(path), std::string::npos) << msg;
            EXPECT_NE(msg.find("CRC mismatch"), std::string::npos) << msg;
            const std::string suffix = "at offset " + std::to_string(recordStart);
            EXPECT_TRUE(msg.size() >= suffix.size() &&
                        msg.compare(msg.size() - suffix.size(), suffix.size(), suffix) == 0)
                << "flip at " << pos << ": " << msg;
            EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
        }
    }

    // The middle of the file, also through the independent reader.
    std::string bad = good;
    bad[good.size() / 2] = char(bad[good.size() / 2] ^ 0x10);
    writeFile(path, bad);
    const PythonResult py = runPythonReader(path, dir_);
    EXPECT_EQ(py.exitCode, 2);
    ASSERT_TRUE(py.json.is_object());
    EXPECT_NE(py.json.at("error").get<std::string>().find("CRC mismatch"), std::string::npos);
}

TEST_F(TensorBoardWriterTest, TruncatedLastRecordIsTheEndNotAnError) {
    std::string path;
    std::vector<Event> expected;
    {
        TensorBoardWriter w(dir_.string());
        path = w.path();
        expected = writeTrainingLike(w);
    }
    const std::string good = readFile(path);
    const auto starts = recordStarts(good);
    const std::size_t last = starts.back();
    ASSERT_EQ(starts.size(), expected.size() + 1);

    for (std::size_t cut = last + 1; cut < good.size(); ++cut) {
        writeFile(path, good.substr(0, cut));
        TfRecordReader reader(path);
        std::size_t n = 0;
        Event e;
        ASSERT_NO_THROW(while (reader.readEvent(e)) ++n) << "cut at " << cut;
        EXPECT_EQ(n, starts.size() - 1) << "cut at " << cut;
        EXPECT_TRUE(reader.torn()) << "cut at " << cut;
        EXPECT_EQ(reader.offset(), last);
    }

    // The independent reader agrees, and a reader resumes once the record is completed.
    const std::size_t cut = last + 12 + 5;
    writeFile(path, good.substr(0, cut));
    const PythonResult py = runPythonReader(path, dir_);
    ASSERT_EQ(py.exitCode, 0);
    EXPECT_TRUE(py.json.at("torn_tail").get<bool>());
    EXPECT_EQ(py.json.at("records").get<std::size_t>(), starts.size() - 1);

    TfRecordReader reader(path);
    Event e;
    std::size_t n = 0;
    while (reader.readEvent(e))
        ++n;
    ASSERT_TRUE(reader.torn());
    {
        std::ofstream out(path, std::ios::binary | std::ios::app);
        out << good.substr(cut);
    }
    ASSERT_TRUE(reader.readEvent(e));
    expectSameEvent(expected.back(), e, n);
    EXPECT_FALSE(reader.readEvent(e));
    EXPECT_FALSE(reader.torn());
}

TEST_F(TensorBoardWriterTest, ReaderSkipsUnknownFieldsByWireType) {
    fs::create_directories(dir_);
    const std::string path = (dir_ / "events.out.tfevents.0.handmade").string();

    std::string image = key(1, 0) + varint(3) + key(2, 0) + varint(5) + key(7, 5) + le(0xdeadbeef, 4) +
                        key(3, 0) + varint(3) + lenField(4, "PNGDATA") + key(9, 1) + le(1, 8);
    std::string value1 = lenField(9, "plugin metadata") + lenField(1, "img") + lenField(4, image);
    std::string value2 = lenField(1, "scalar") + key(2, 5) + le(floatBits(-2.5f), 4) +
                         lenField(8, std::string("\x08\x01", 2)) + key(15, 0) + varint(uint64_t(-1));
    std::string value3 = lenField(1, "tensor-only") + lenField(8, "opaque tensor");
    std::string summary = lenField(1, value1) + key(2, 0) + varint(1) + lenField(1, value2) + lenField(1, value3);
    std::string group = key(20, 3) + key(1, 0) + varint(300) + key(21, 3) + key(2, 2) + varint(1) + "x" +
                        key(21, 4) + key(20, 4);
    std::string event = key(1, 1) + le(0x4059000000000000ull, 8) /* 100.0 */ + lenField(4, "graph_def bytes") +
                        key(2, 0) + varint(uint64_t(int64_t(-3))) + group + key(9, 5) + le(7, 4) +
                        key(11, 1) + le(8, 8) + lenField(5, summary) + lenField(6, "log message");
    writeFile(path, frame(key(3, 2) + varint(13) + "brain.Event:2") + frame(event));

    const auto events = TfRecordReader::readAllEvents(path);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].fileVersion, "brain.Event:2");
    const Event& e = events[1];
    EXPECT_EQ(e.wallTime, 100.0);
    EXPECT_EQ(e.step, -3);
    ASSERT_EQ(e.values.size(), 3u);
    EXPECT_EQ(e.values[0].tag, "img");
    ASSERT_TRUE(e.values[0].image);
    EXPECT_EQ(e.values[0].image->height, 3);
    EXPECT_EQ(e.values[0].image->width, 5);
    EXPECT_EQ(e.values[0].image->colorspace, 3);
    EXPECT_EQ(e.values[0].image->encoded, "PNGDATA");
    EXPECT_FALSE(e.values[0].simpleValue);
    EXPECT_EQ(e.values[1].tag, "scalar");
    ASSERT_TRUE(e.values[1].simpleValue);
    EXPECT_EQ(*e.values[1].simpleValue, -2.5f);
    EXPECT_EQ(e.values[2].tag, "tensor-only");
    EXPECT_FALSE(e.values[2].simpleValue);
    EXPECT_FALSE(e.values[2].image);

    // The Python reader reads the same hand-made file the same way.
    const PythonResult py = runPythonReader(path, dir_);
    ASSERT_EQ(py.exitCode, 0) << py.json.dump();
    const auto& pv = py.json.at("events")[1].at("values");
    ASSERT_EQ(pv.size(), 3u);
    EXPECT_EQ(pv[0].at("image").at("encoded_hex"), hex("PNGDATA"));
    EXPECT_EQ(pv[1].at("simple_value").get<double>(), -2.5);
    EXPECT_EQ(py.json.at("events")[1].at("step").get<int64_t>(), -3);
}

TEST_F(TensorBoardWriterTest, MalformedEventThrowsIoError) {
    EXPECT_THROW(TfRecordReader::parseEvent(std::string("\x08", 1)), IoError);          // truncated varint
    EXPECT_THROW(TfRecordReader::parseEvent(std::string("\x2a\x05" "ab", 4)), IoError);  // length past end
    EXPECT_THROW(TfRecordReader::parseEvent(std::string("\x0f", 1)), IoError);          // wire type 7
    EXPECT_THROW(TfRecordReader::parseEvent(std::string("\x08\x01", 2)), IoError);      // wall_time as varint
    EXPECT_THROW(TfRecordReader::parseEvent(std::string("\xa3\x01\x08\x01", 4)), IoError);  // unterminated group
    EXPECT_NO_THROW(TfRecordReader::parseEvent(std::string()));

    // Inside a file the message names the file and the record offset.
    fs::create_directories(dir_);
    const std::string path = (dir_ / "malformed.tfevents").string();
    writeFile(path, frame(std::string("\x08\x01", 2)) + frame(std::string("\x2a\x05" "ab", 4)));
    try {
        TfRecordReader::readAllEvents(path);
        ADD_FAILURE() << "malformed record not reported";
    } catch (const IoError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(path), std::string::npos) << msg;
        EXPECT_NE(msg.find("offset 0"), std::string::npos) << msg;
    }
}

TEST_F(TensorBoardWriterTest, MissingFileAndUnusableDirectoryThrowIoError) {
    EXPECT_THROW(TfRecordReader((dir_ / "nope").string()), IoError);
    fs::create_directories(dir_);
    const std::string notADir = (dir_ / "file").string();
    writeFile(notADir, "x");
    try {
        TensorBoardWriter w(notADir);
        ADD_FAILURE() << "writer accepted a regular file as its directory";
    } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find(notADir), std::string::npos) << e.what();
    }
    TensorBoardWriter w(dir_.string());
    EXPECT_THROW(w.addImage("x", "png", 1, 1, 0, 0, 0.0), std::invalid_argument);
    EXPECT_THROW(w.addImage("x", "png", 1, 1, 5, 0, 0.0), std::invalid_argument);
}

TEST_F(TensorBoardWriterTest, WriteErrorThrowsIoErrorNamingTheFile) {
    // A file-size limit makes write(2) fail with EFBIG, as a full disk fails with ENOSPC. The
    // limit is per process, so the writer runs in a child; it reports through its exit code and
    // a message file.
    fs::create_directories(dir_);
    const std::string msgFile = (dir_ / "message.txt").string();
    const std::string tbDir = (dir_ / "tb").string();
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        int code = 10;
        std::string message;
        try {
            TensorBoardWriter w(tbDir);  // header record (40 bytes) still fits
            std::signal(SIGXFSZ, SIG_IGN);
            struct rlimit original {};
            ::getrlimit(RLIMIT_FSIZE, &original);
            struct rlimit lim = original;
            lim.rlim_cur = 4096;
            if (::setrlimit(RLIMIT_FSIZE, &lim) != 0)
                ::_exit(15);
            try {
                w.addImage("big", fakePng(200000, 1), 10, 10, 3, 1, 1.0);
                w.flush();
                code = 11;  // no error reported
            } catch (const IoError& e) {
                message = e.what();
                code = message.find(w.path()) != std::string::npos && message.find('\n') == std::string::npos
                           ? 0
                           : 12;
                // The error is sticky: later records and flushes report it again.
                try {
                    w.addScalar("after", 1.0f, 2, 2.0);
                    code = 13;
                } catch (const IoError&) {
                }
                try {
                    w.flush();
                    code = 16;
                } catch (const IoError&) {
                }
            }
            ::setrlimit(RLIMIT_FSIZE, &original);
        } catch (...) {
            code = 14;
        }
        if (std::FILE* f = std::fopen(msgFile.c_str(), "w")) {
            std::fputs(message.c_str(), f);
            std::fclose(f);
        }
        ::_exit(code);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "message: " << readFile(msgFile);
    EXPECT_NE(readFile(msgFile).find("cannot write TensorBoard event file"), std::string::npos);
}
