// The TensorBoard event file reader against damaged and hand-made files: every flipped byte is a
// CRC error, a torn last record is the end (and resumes once complete), unknown protobuf fields
// are skipped by wire type, malformed events throw IoError naming the file and offset; the
// independent Python reader agrees. Helpers: TensorBoardTestSupport.h (its fixture keeps the name
// TensorBoardWriterTest so that these tests keep their names).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/tensorboard/TensorBoardTestSupport.h"
#include "base/util/Errors.h"

using namespace streetgan;
using namespace streetgan::test::tensorboard;

TEST_F(TensorBoardWriterTest, EveryFlippedByteIsDetectedAsCrcError) {
    std::string path;
    {
        TensorBoardWriter w(dir_.string());
        path = w.path();
        for (int s = 0; s < 4; ++s) w.addScalar("loss", 0.1f * float(s), s, 50.0 + s);
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
            if (s <= pos) recordStart = s;
        try {
            TfRecordReader::readAllEvents(path);
            ADD_FAILURE() << "flip at byte " << pos << " not detected";
        } catch (const IoError& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(path), std::string::npos) << msg;
            EXPECT_NE(msg.find("CRC mismatch"), std::string::npos) << msg;
            const std::string suffix = "at offset " + std::to_string(recordStart);
            EXPECT_TRUE(msg.size() >= suffix.size() && msg.compare(msg.size() - suffix.size(), suffix.size(), suffix) == 0) << "flip at " << pos << ": " << msg;
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
        ASSERT_NO_THROW(while (reader.readEvent(e))++ n) << "cut at " << cut;
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
    while (reader.readEvent(e)) ++n;
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

    std::string image =
        key(1, 0) + varint(3) + key(2, 0) + varint(5) + key(7, 5) + le(0xdeadbeef, 4) + key(3, 0) + varint(3) + lenField(4, "PNGDATA") + key(9, 1) + le(1, 8);
    std::string value1 = lenField(9, "plugin metadata") + lenField(1, "img") + lenField(4, image);
    std::string value2 =
        lenField(1, "scalar") + key(2, 5) + le(floatBits(-2.5f), 4) + lenField(8, std::string("\x08\x01", 2)) + key(15, 0) + varint(uint64_t(-1));
    std::string value3 = lenField(1, "tensor-only") + lenField(8, "opaque tensor");
    std::string summary = lenField(1, value1) + key(2, 0) + varint(1) + lenField(1, value2) + lenField(1, value3);
    std::string group = key(20, 3) + key(1, 0) + varint(300) + key(21, 3) + key(2, 2) + varint(1) + "x" + key(21, 4) + key(20, 4);
    std::string event = key(1, 1) + le(0x4059000000000000ull, 8) /* 100.0 */ + lenField(4, "graph_def bytes") + key(2, 0) + varint(uint64_t(int64_t(-3))) +
                        group + key(9, 5) + le(7, 4) + key(11, 1) + le(8, 8) + lenField(5, summary) + lenField(6, "log message");
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
    EXPECT_THROW(TfRecordReader::parseEvent(std::string("\x08", 1)), IoError);  // truncated varint
    EXPECT_THROW(TfRecordReader::parseEvent(std::string("\x2a\x05"
                                                        "ab",
                                                        4)),
                 IoError);                                                                  // length past end
    EXPECT_THROW(TfRecordReader::parseEvent(std::string("\x0f", 1)), IoError);              // wire type 7
    EXPECT_THROW(TfRecordReader::parseEvent(std::string("\x08\x01", 2)), IoError);          // wall_time as varint
    EXPECT_THROW(TfRecordReader::parseEvent(std::string("\xa3\x01\x08\x01", 4)), IoError);  // unterminated group
    EXPECT_NO_THROW(TfRecordReader::parseEvent(std::string()));

    // Inside a file the message names the file and the record offset.
    fs::create_directories(dir_);
    const std::string path = (dir_ / "malformed.tfevents").string();
    writeFile(path, frame(std::string("\x08\x01", 2)) + frame(std::string("\x2a\x05"
                                                                          "ab",
                                                                          4)));
    try {
        TfRecordReader::readAllEvents(path);
        ADD_FAILURE() << "malformed record not reported";
    } catch (const IoError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(path), std::string::npos) << msg;
        EXPECT_NE(msg.find("offset 0"), std::string::npos) << msg;
    }
}
