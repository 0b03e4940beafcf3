// Shared by the S3 archive reader's tests: the archives they read (ArchiveReader's, from the
// `archives` ctest fixture or made here, and make_s3_archives.py's), a local file as a ranged
// reader, and the comparison of a listing with ArchiveReader's for the same bytes.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/dataset/ArchiveIndex.h"
#include "base/dataset/ArchiveReader.h"
#include "base/dataset/RangeCursor.h"
#include "support/TempDir.h"

#ifndef STREETGAN_TEST_ARCHIVES
#define STREETGAN_TEST_ARCHIVES ""
#endif

namespace streetgan::test::s3archive {

namespace fs = std::filesystem;

inline std::string readAll(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

inline void writeAll(const fs::path& p, const std::string& bytes) {
    std::ofstream f(p, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Makes every test archive in `dir`: ArchiveReader's (batch.zip, batch.tar, stream.zip, ...)
/// and make_s3_archives.py's (many.zip, zip64all.zip, gnu.tar, ...). False on failure.
inline bool makeArchives(const fs::path& dir) {
    const std::string python = STREETGAN_PYTHON, scripts = STREETGAN_TEST_PYTHON_DIR;
    const fs::path shared = STREETGAN_TEST_ARCHIVES;
    if (!shared.empty() && fs::exists(shared / "list.txt")) {
        for (const char* f : {"batch.zip", "batch.tar", "batch.tar.gz", "stream.zip", "zip64.zip", "small.tar.bz2"})
            fs::copy_file(shared / f, dir / f, fs::copy_options::overwrite_existing);
    } else {
        const std::string cmd = python + " '" + scripts + "/make_archives.py' '" + dir.string() + "' >/dev/null";
        if (std::system(cmd.c_str()) != 0) return false;
    }
    const std::string cmd = python + " '" + scripts + "/make_s3_archives.py' '" + dir.string() + "'";
    return std::system(cmd.c_str()) == 0;
}

/// The file as a ranged reader, counting its reads.
inline RangeCursor::Fetch fileFetch(const std::string& bytes, int* reads = nullptr) {
    return [&bytes, reads](uint64_t offset, uint64_t length) {
        if (reads) ++*reads;
        return offset >= bytes.size() ? std::string() : bytes.substr(static_cast<size_t>(offset), static_cast<size_t>(length));
    };
}

/// The S3 listing names the same entries as ArchiveReader, in the same order, with the same sizes
/// (where intact), intact flags, skipped entries and truncation.
inline void expectSameListing(const ArchiveReader& local, const ArchiveIndex& s3, const std::string& label) {
    EXPECT_EQ(s3.truncated, local.truncated()) << label;
    ASSERT_EQ(s3.entries.size(), local.size()) << label;
    for (size_t i = 0; i < local.size(); ++i) {
        EXPECT_EQ(s3.entries[i].name, local.entry(i).name) << label << " #" << i;
        EXPECT_EQ(s3.entries[i].intact, local.intact(i)) << label << " " << local.entry(i).name;
        if (local.intact(i)) {
            EXPECT_EQ(s3.entries[i].size, local.entry(i).size) << label << " " << local.entry(i).name;
        }
    }
    EXPECT_EQ(s3.skipped, local.skippedEntries()) << label;
}

}  // namespace streetgan::test::s3archive
