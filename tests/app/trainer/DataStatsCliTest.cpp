// `streetgan-trainer data stats` tells the truth about a data source: every image is decoded
// (once: verdicts are cached), bad files are counted by reason and named, in the table and in
// --json, for a folder and for the zip / tar.gz batches; --no-decode is the fast listing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/CliRunner.h"
#include "support/TempDir.h"

using namespace streetgan::test;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& path, const std::vector<uchar>& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<uchar> jpeg(int i) {
    cv::Mat img(96, 128, CV_8UC3, cv::Scalar(3 * i, 255 - 3 * i, 90));
    std::vector<uchar> out;
    cv::imencode(".jpg", img, out);
    return out;
}

// The folder of issue 15: 60 good JPEGs, a truncated JPEG, a text file renamed .jpg, an empty file.
void makeFolder(const fs::path& root) {
    for (int i = 0; i < 60; ++i) write(root / "city" / ("img" + std::to_string(i) + ".jpg"), jpeg(i));
    const auto good = jpeg(70);
    write(root / "city" / "cut.jpg", std::vector<uchar>(good.begin(), good.begin() + static_cast<long>(good.size() / 2)));
    std::ofstream(root / "city" / "notes.jpg") << "meeting notes, saved with the wrong extension\n";
    std::ofstream(root / "city" / "empty.jpg");  // NOLINT(bugprone-unused-raii): creates an empty file
}

// The line of `text` starting with `head`, runs of spaces squeezed to one ("" when none).
std::string squeezedLine(const std::string& text, const std::string& head) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(head, 0) != 0) continue;
        std::string out;
        for (char c : line)
            if (c != ' ' || (!out.empty() && out.back() != ' ')) out += c;
        return out;
    }
    return "";
}

class DataStatsCli : public ::testing::Test {
protected:
    // Any cache that cannot go next to the data goes below the test's folder, not to ~/.cache.
    CliResult stats(const std::vector<std::string>& args) const {
        std::vector<std::string> all{"data", "stats"};
        all.insert(all.end(), args.begin(), args.end());
        return cli.run(all, "XDG_CACHE_HOME=" + CliRunner::quote(tmp / "xdg") + " ");
    }
    void expectTruth(const std::string& spec, const std::string& cutName, const std::string& notesName, const std::string& emptyName) const {
        // The table, on a source never checked before.
        const CliResult text = stats({spec});
        ASSERT_EQ(text.code, 0) << text.err;
        EXPECT_EQ(text.err, "");  // no progress bar when stderr is not a terminal
        EXPECT_EQ(squeezedLine(text.out, "total"), "total 60 100.0%") << text.out;
        EXPECT_NE(text.out.find("skipped: 3 (empty file 1, not-an-image 1, truncated 1)"), std::string::npos) << text.out;
        EXPECT_NE(text.out.find("  truncated: " + cutName + "\n"), std::string::npos) << text.out;
        EXPECT_NE(text.out.find("  not-an-image: " + notesName + "\n"), std::string::npos) << text.out;
        EXPECT_NE(text.out.find("  empty file: " + emptyName + "\n"), std::string::npos) << text.out;
        EXPECT_NE(text.out.find("checked: every image decoded (62 now, 0 known from the verdict cache)"), std::string::npos) << text.out;

        // --json, the second time: the same truth, nothing decoded again.
        const CliResult js = stats({spec, "--json"});
        ASSERT_EQ(js.code, 0) << js.err;
        const auto j = nlohmann::json::parse(js.out);
        EXPECT_EQ(j["images"], 60);
        EXPECT_EQ(j["skipped"], 3);
        EXPECT_EQ(j["skipped_reasons"], nlohmann::json({{"empty file", 1}, {"not-an-image", 1}, {"truncated", 1}}));
        EXPECT_EQ(j["skipped_files"], nlohmann::json({{"empty file", {emptyName}}, {"not-an-image", {notesName}}, {"truncated", {cutName}}}));
        EXPECT_EQ(j["check"]["decoded"], 0);
        EXPECT_EQ(j["check"]["cached"], 62);
    }

    TempDir tmp;
    CliRunner cli{tmp.path()};
};

}  // namespace

TEST_F(DataStatsCli, FolderCountsOnlyImagesThatDecode) {
    makeFolder(tmp / "photos");
    expectTruth(tmp / "photos", "city/cut.jpg", "city/notes.jpg", "city/empty.jpg");

    // --no-decode on a never-checked copy: the fast listing counts every non-empty .jpg.
    makeFolder(tmp / "copy");
    const CliResult fast = stats({tmp / "copy", "--json", "--no-decode"});
    ASSERT_EQ(fast.code, 0) << fast.err;
    const auto j = nlohmann::json::parse(fast.out);
    EXPECT_EQ(j["images"], 62);
    EXPECT_EQ(j["skipped"], 1);
    EXPECT_EQ(j["check"]["decode"], false);
    EXPECT_EQ(j["check"]["unchecked"], 62);
    const CliResult fastText = stats({tmp / "copy", "--no-decode"});
    EXPECT_NE(fastText.out.find("listing only (--no-decode)"), std::string::npos) << fastText.out;
}

TEST_F(DataStatsCli, ZipAndTarGzBatchesTellTheSameTruth) {
    makeFolder(tmp / "photos");
    for (const auto& [format, file] : {std::pair<std::string, std::string>{"zip", "batch.zip"}, {"gztar", "batch.tar.gz"}}) {
        const std::string cmd = std::string(STREETGAN_PYTHON) +
                                " -c \"import shutil,sys; shutil.make_archive(sys.argv[1], sys.argv[2], root_dir=sys.argv[3])\" " +
                                CliRunner::quote(tmp / "batch") + " " + format + " " + CliRunner::quote(tmp / "photos");
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        SCOPED_TRACE(file);
        expectTruth(tmp / file, "city/cut.jpg", "city/notes.jpg", "city/empty.jpg");
    }
}

TEST_F(DataStatsCli, TableNamesTheFirstFewFilesJsonNamesAll) {
    for (int i = 0; i < 3; ++i) write(tmp / ("many/a" + std::to_string(i) + ".jpg"), jpeg(i));
    for (int i = 0; i < 7; ++i) std::ofstream(tmp / ("many/t" + std::to_string(i) + ".jpg")) << "text " << i;
    const CliResult text = stats({tmp / "many"});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("  not-an-image: t0.jpg, t1.jpg, t2.jpg, t3.jpg, t4.jpg and 2 more\n"), std::string::npos) << text.out;
    const CliResult js = stats({tmp / "many", "--json"});
    ASSERT_EQ(js.code, 0) << js.err;
    const auto j = nlohmann::json::parse(js.out);
    EXPECT_EQ(j["images"], 3);
    EXPECT_EQ(j["skipped_files"]["not-an-image"].size(), 7u);
}

// Issue 41 item 16: every entry of a batch that is not used is counted with its reason and named:
// symbolic and hard links, a FIFO, paths that climb out with "..", images under __MACOSX. Made
// with Python's tarfile and zipfile, which write such entries as they are given.
TEST_F(DataStatsCli, EveryEntryABatchSkipsIsCountedWithItsReason) {
    write(tmp / "good.jpg", jpeg(1));
    const std::string script = R"(
import io, sys, tarfile, zipfile
good = open(sys.argv[1], 'rb').read()
def add(t, name, kind=tarfile.REGTYPE, data=b'', link=''):
    i = tarfile.TarInfo(name); i.type = kind; i.linkname = link; i.size = len(data)
    t.addfile(i, io.BytesIO(data) if data else None)
with tarfile.open(sys.argv[2], 'w') as t:
    add(t, 'city/a.jpg', data=good)
    add(t, 'city/b.jpg', data=good)
    add(t, 'city/link.jpg', tarfile.SYMTYPE, link='/etc/passwd')
    add(t, 'city/hard.jpg', tarfile.LNKTYPE, link='city/a.jpg')
    add(t, 'city/pipe.jpg', tarfile.FIFOTYPE)
    add(t, '../escape.jpg', data=good)
    add(t, 'city/../../up.jpg', data=good)
    add(t, '__MACOSX/city/._a.jpg', data=good)
with zipfile.ZipFile(sys.argv[3], 'w') as z:
    z.writestr('city/a.jpg', good)
    z.writestr('../../evil.jpg', good)
    z.writestr('__MACOSX/city/._a.jpg', good)
)";
    std::ofstream(tmp / "make.py") << script;
    const std::string cmd = std::string(STREETGAN_PYTHON) + " " + CliRunner::quote(tmp / "make.py") + " " + CliRunner::quote(tmp / "good.jpg") + " " +
                            CliRunner::quote(tmp / "hostile.tar") + " " + CliRunner::quote(tmp / "hostile.zip");
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

    const CliResult tar = stats({tmp / "hostile.tar", "--json"});
    ASSERT_EQ(tar.code, 0) << tar.err;
    auto j = nlohmann::json::parse(tar.out);
    EXPECT_EQ(j["images"], 2);
    EXPECT_EQ(j["skipped"], 6);
    EXPECT_EQ(j["skipped_reasons"],
              nlohmann::json({{"link in archive", 2}, {"not a regular file", 1}, {"path leaving the root (..)", 2}, {"hidden folder", 1}}));
    EXPECT_EQ(j["skipped_files"]["link in archive"], nlohmann::json({"city/hard.jpg", "city/link.jpg"}));
    EXPECT_EQ(j["skipped_files"]["not a regular file"], nlohmann::json({"city/pipe.jpg"}));
    EXPECT_EQ(j["skipped_files"]["hidden folder"], nlohmann::json({"__MACOSX/city/._a.jpg"}));
    EXPECT_EQ(j["skipped_files"]["path leaving the root (..)"].size(), 2u);
    // The table says it too, and a second look (from the index cache) the same.
    const CliResult text = stats({tmp / "hostile.tar"});
    EXPECT_NE(text.out.find("link in archive: city/hard.jpg, city/link.jpg"), std::string::npos) << text.out;
    EXPECT_EQ(nlohmann::json::parse(stats({tmp / "hostile.tar", "--json"}).out)["skipped_reasons"], j["skipped_reasons"]);

    const CliResult zip = stats({tmp / "hostile.zip", "--json"});
    ASSERT_EQ(zip.code, 0) << zip.err;
    j = nlohmann::json::parse(zip.out);
    EXPECT_EQ(j["images"], 1);
    EXPECT_EQ(j["skipped_reasons"], nlohmann::json({{"path leaving the root (..)", 1}, {"hidden folder", 1}}));
}
