// The TensorBoard event file writer: file naming and header, scalars and images read back by our
// reader and by an independent Python reader (tests/python/read_tfevents.py: its own CRC-32C and
// protobuf decoding), flushing, and write errors. The reader's robustness: TfRecordReaderTest.cpp;
// CRC-32C: tests/base/util/Crc32cTest.cpp (all three in test_tensorboard).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/tensorboard/TensorBoardTestSupport.h"
#include "base/util/Errors.h"

using namespace streetgan;
using namespace streetgan::test::tensorboard;

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
    EXPECT_EQ(bytes.substr(21, 15), std::string("\x1a\x0d"
                                                "brain.Event:2"));

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
    for (std::size_t i = 0; i < expected.size(); ++i) expectSameEvent(expected[i], got[i], i);
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
    for (const auto* w : {&a, &b, &c}) EXPECT_NE(fs::path(w->path()).filename().string().find("events.out.tfevents."), std::string::npos);
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
            if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) ::_exit(15);
            try {
                w.addImage("big", fakePng(200000, 1), 10, 10, 3, 1, 1.0);
                w.flush();
                code = 11;  // no error reported
            } catch (const IoError& e) {
                message = e.what();
                code = message.find(w.path()) != std::string::npos && message.find('\n') == std::string::npos ? 0 : 12;
                // The error is sticky: later records and flushes report it again.
                try {
                    w.addScalar("after", 1.0f, 2, 2.0);
                    code = 13;
                } catch (const IoError&) {}
                try {
                    w.flush();
                    code = 16;
                } catch (const IoError&) {}
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
