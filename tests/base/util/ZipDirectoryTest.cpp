// ZipDirectory against zips written by Python's zipfile: stored and deflated entries, zip64 fields,
// a comment; and files it must refuse (cut off, no end record, entries outside the file).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "base/util/Errors.h"
#include "base/util/ZipDirectory.h"
#include "support/TempDir.h"

using namespace streetgan;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<ZipDirectory::Entry> readBytes(const std::string& bytes) {
    return ZipDirectory::read([&bytes](uint64_t pos, size_t n) { return pos >= bytes.size() ? std::string() : bytes.substr(static_cast<size_t>(pos), n); },
                              bytes.size(), "test.zip");
}

}  // namespace

TEST(ZipDirectory, ReadsWhatPythonWrites) {
    test::TempDir t;
    const std::string script = R"(
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.comment = b'a comment at the end'
    z.writestr('archive/data.pkl', b'\x80\x02K\x05.')
    z.writestr(zipfile.ZipInfo('archive/data/0'), b'\0' * 100000, compress_type=zipfile.ZIP_DEFLATED)
    with z.open('archive/big', 'w', force_zip64=True) as f:
        f.write(b'x' * 1000)
)";
    std::ofstream(t.file("make.py")) << script;
    const std::string cmd = std::string(STREETGAN_PYTHON) + " " + t.file("make.py") + " " + t.file("a.zip");
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const std::string zip = slurp(t.file("a.zip"));
    const auto entries = readBytes(zip);
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[0].name, "archive/data.pkl");
    EXPECT_EQ(entries[0].method, 0);
    EXPECT_EQ(entries[0].size, 5u);
    EXPECT_EQ(entries[1].name, "archive/data/0");
    EXPECT_EQ(entries[1].method, 8);
    EXPECT_EQ(entries[1].size, 100000u);
    EXPECT_LT(entries[1].compressedSize, 1000u);
    EXPECT_EQ(entries[2].name, "archive/big");
    EXPECT_EQ(entries[2].size, 1000u);

    // Cut anywhere, it throws (never reads outside, never hangs); a non-zip throws.
    for (size_t cut : {size_t(0), size_t(10), zip.size() / 2, zip.size() - 30, zip.size() - 1}) EXPECT_THROW(readBytes(zip.substr(0, cut)), DataError) << cut;
    EXPECT_THROW(readBytes(std::string(5000, 'z')), DataError);
    // A central directory claiming to start beyond the file.
    std::string moved = zip;
    const size_t eocd = moved.rfind(std::string("PK\x05\x06", 4));
    ASSERT_NE(eocd, std::string::npos);
    moved[eocd + 16] = moved[eocd + 17] = moved[eocd + 18] = '\x7f';
    try {
        readBytes(moved);
        ADD_FAILURE() << "a directory outside the file was read";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("test.zip"), std::string::npos) << e.what();
    }
}
