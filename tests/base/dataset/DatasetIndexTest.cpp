// DatasetIndex: MSLS and plain-folder layouts, bad input skipped and counted, stats, error
// messages, and indexing a listing. The selection steps (cities, cap, split, order):
// DatasetSelectionTest.cpp; helpers: DatasetIndexTestSupport.h.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "base/dataset/DatasetIndex.h"
#include "base/dataset/DatasetIndexTestSupport.h"
#include "base/util/Errors.h"
#include "base/util/SeedHash.h"

using namespace streetgan;
using namespace streetgan::test::datasetindex;

// ------------------------------------------------------------------------------ MSLS layout

TEST(DatasetIndex, MslsCitiesSequencesAndFrames) {
    TempDir t;
    makeMsls(t.path());
    const DatasetIndex idx = DatasetIndex::scanFolder(t.str(), {});
    EXPECT_EQ(idx.layout(), "msls");
    EXPECT_EQ(idx.size(), 10 + 4 + 4 + 2);
    EXPECT_EQ(idx.cities(), (std::map<std::string, int64_t>{{"amsterdam", 14}, {"berlin", 4}, {"paris", 2}}));

    const ImageEntry* a = findKey(idx, "amsA02");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->city, "amsterdam");
    EXPECT_EQ(a->sequence, "SEQA");  // quoted field in a CRLF file
    EXPECT_EQ(a->frame, 3);
    EXPECT_EQ(a->path, "train_val/amsterdam/database/images/amsA02.jpg");
    EXPECT_EQ(a->size, 24u);

    EXPECT_EQ(findKey(idx, "amsB01")->sequence, "SEQB");
    EXPECT_EQ(findKey(idx, "amsQ2")->sequence, "SEQQ");
    EXPECT_EQ(findKey(idx, "amsQ3")->sequence, "");  // not in its CSV
    EXPECT_EQ(findKey(idx, "ber0")->sequence, "");   // no CSV for berlin
    EXPECT_EQ(findKey(idx, "ber0")->frame, -1);
    ASSERT_NE(findKey(idx, "par1"), nullptr);           // .JPG counts
    EXPECT_EQ(findKey(idx, "par1")->sequence, "SEQP");  // from raw.csv (postprocessed.csv has no sequence_key)

    EXPECT_EQ(idx.sequenceCount(), 4);  // SEQA SEQB SEQQ SEQP
    EXPECT_EQ(idx.unsequencedCount(), 5);
    EXPECT_EQ(reason(idx.warnings(), "malformed csv line"), 2);
    EXPECT_EQ(reason(idx.warnings(), "no sequence csv"), 1);
    EXPECT_EQ(reason(idx.warnings(), "image not in sequence csv"), 1);
    EXPECT_EQ(idx.skippedTotal(), 0);  // CSV files are not images and not "skipped"

    // Frames of a sequence come in frame order although the keys run the other way.
    std::vector<int64_t> frames;
    for (const ImageEntry& e : idx.entries())
        if (e.sequence == "SEQA") frames.push_back(e.frame);
    EXPECT_EQ(frames, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
}

TEST(DatasetIndex, MslsRecognisedFromTrainValCityAndImagesFolder) {
    TempDir t;
    makeMsls(t.path());
    const DatasetIndex top = DatasetIndex::scanFolder(t.str(), {});
    const DatasetIndex tv = DatasetIndex::scanFolder((t.path() / "train_val").string(), {});
    ASSERT_EQ(tv.size(), top.size());
    for (size_t i = 0; i < top.entries().size(); ++i) {
        EXPECT_EQ("train_val/" + tv.entries()[i].path, top.entries()[i].path);
        EXPECT_EQ(tv.entries()[i].city, top.entries()[i].city);
        EXPECT_EQ(tv.entries()[i].sequence, top.entries()[i].sequence);
        EXPECT_EQ(tv.entries()[i].frame, top.entries()[i].frame);
    }

    const DatasetIndex city = DatasetIndex::scanFolder((t.path() / "train_val" / "amsterdam").string() + "/", {});
    EXPECT_EQ(city.cities(), (std::map<std::string, int64_t>{{"amsterdam", 14}}));
    EXPECT_EQ(city.sequenceCount(), 3);
    EXPECT_EQ(findKey(city, "amsA02")->path, "database/images/amsA02.jpg");
    EXPECT_EQ(findKey(city, "amsA02")->frame, 3);

    // Root inside the layout: the CSV one level up is still found.
    const DatasetIndex images = DatasetIndex::scanFolder((t.path() / "train_val" / "amsterdam" / "database" / "images").string(), {});
    EXPECT_EQ(images.size(), 10);
    EXPECT_EQ(findKey(images, "amsA02")->city, "amsterdam");
    EXPECT_EQ(findKey(images, "amsA02")->sequence, "SEQA");
    EXPECT_EQ(findKey(images, "amsA02")->path, "amsA02.jpg");
    EXPECT_EQ(images.layout(), "msls");
}

TEST(DatasetIndex, CsvWithBomQuotedHeaderFloatFramesAndMissingColumns) {
    TempDir t;
    const fs::path db = t.path() / "train_val" / "oslo" / "database";
    writeImage(db / "images" / "o1.jpg");
    writeImage(db / "images" / "o2.jpg");
    writeFile(db / "seq_info.csv", "\xEF\xBB\xBF\"\",\"key\",\"sequence_key\",\"frame_number\"\n0,o1,\"S \"\"x\"\"\",3.0\n1,o2,S2,n/a\n");
    const fs::path q = t.path() / "train_val" / "oslo" / "query";
    writeImage(q / "images" / "o3.jpg");
    writeFile(q / "seq_info.csv", "id,name\n1,o3\n");  // no key/sequence_key columns
    const DatasetIndex idx = DatasetIndex::scanFolder(t.str(), {});
    EXPECT_EQ(findKey(idx, "o1")->sequence, "S \"x\"");
    EXPECT_EQ(findKey(idx, "o1")->frame, 3);
    EXPECT_EQ(findKey(idx, "o2")->sequence, "S2");
    EXPECT_EQ(findKey(idx, "o2")->frame, -1);
    EXPECT_EQ(findKey(idx, "o3")->sequence, "");
    EXPECT_EQ(reason(idx.warnings(), "csv missing key or sequence_key column"), 1);
    EXPECT_EQ(reason(idx.warnings(), "no sequence csv"), 1);
    EXPECT_EQ(reason(idx.warnings(), "malformed csv line"), 0);
}

// ------------------------------------------------------------------------------ plain folders

TEST(DatasetIndex, PlainFolderCitiesAndSequences) {
    TempDir t;
    writeImage(t.path() / "lyon" / "x1.jpg");
    writeImage(t.path() / "lyon" / "run1" / "y.PNG");
    writeImage(t.path() / "lyon" / "run1" / "deeper" / "w.Jpeg");
    writeImage(t.path() / "nice" / "v.webp");
    writeImage(t.path() / "z.jpeg");
    writeFile(t.path() / "notes.txt", "hello");
    const DatasetIndex idx = DatasetIndex::scanFolder(t.str(), {});
    EXPECT_EQ(idx.layout(), "folder");
    EXPECT_EQ(idx.cities(), (std::map<std::string, int64_t>{{"(root)", 1}, {"lyon", 3}, {"nice", 1}}));
    EXPECT_EQ(findKey(idx, "x1")->sequence, "lyon");
    EXPECT_EQ(findKey(idx, "y")->sequence, "lyon/run1");
    EXPECT_EQ(findKey(idx, "y")->path, "lyon/run1/y.PNG");
    EXPECT_EQ(findKey(idx, "w")->sequence, "lyon/run1/deeper");
    EXPECT_EQ(findKey(idx, "z")->city, "(root)");
    EXPECT_EQ(findKey(idx, "z")->sequence, "(root)");
    EXPECT_EQ(idx.sequenceCount(), 5);
    EXPECT_EQ(idx.unsequencedCount(), 0);
    EXPECT_EQ(idx.skippedTotal(), 0);  // notes.txt is ignored, not counted
}

// ------------------------------------------------------------------------------ bad input

TEST(DatasetIndex, BadInputIsSkippedAndCountedNeverThrown) {
    TempDir t;
    const fs::path r = t.path();
    writeImage(r / "c" / "good.jpg");
    writeImage(r / "c" / "good2.PNG");
    writeFile(r / "c" / "empty.jpg", "");
    writeFile(r / "c" / "EMPTY2.WEBP", "");
    writeFile(r / "c" / "anim.gif", "GIF89a");
    writeFile(r / "c" / "readme.md", "text");
    writeFile(r / "c" / "._good.jpg", "appledouble");
    writeImage(r / "c" / ".thumbnails" / "t.jpg");
    writeImage(r / "__MACOSX" / "c" / "m.jpg");
    fs::create_directory_symlink(r, r / "c" / "loop");  // would recurse for ever if followed
    fs::create_symlink(r / "c" / "missing.jpg", r / "c" / "dead.jpg");
    fs::create_symlink(r / "c" / "good.jpg", r / "c" / "alias.jpg");
    ASSERT_EQ(mkfifo((r / "c" / "pipe.jpg").c_str(), 0644), 0);  // opening it would block
    writeFile(r / "c" / "seq_info.csv", "");                     // a CSV in a plain folder: ignored

    // (opening the FIFO would block for ever, and following the loop would list "good" many times)
    const DatasetIndex idx = DatasetIndex::scanFolder(r.string(), {});
    EXPECT_EQ(keysOf(idx), (std::set<std::string>{"good", "good2", "alias"}));
    EXPECT_EQ(findKey(idx, "alias")->path, "c/alias.jpg");
    const auto& s = idx.skipped();
    EXPECT_EQ(reason(s, "empty file"), 2);
    EXPECT_EQ(reason(s, "unsupported image format"), 1);
    EXPECT_EQ(reason(s, "hidden file"), 1);
    EXPECT_EQ(reason(s, "hidden folder"), 2);
    EXPECT_EQ(reason(s, "directory symlink"), 1);
    EXPECT_EQ(reason(s, "unreadable file"), 1);
    EXPECT_EQ(reason(s, "not a regular file"), 1);
    EXPECT_EQ(idx.skippedTotal(), 9);
    const nlohmann::json j = idx.stats();
    EXPECT_EQ(j["skipped"], 9);
    EXPECT_EQ(j["skipped_reasons"]["empty file"], 2);
    EXPECT_FALSE(j["skipped_reasons"].contains("readme"));
    // Every skipped file and folder is named, relative to the root, sorted.
    const auto& names = idx.skippedFiles();
    EXPECT_EQ(names.at("empty file"), (std::vector<std::string>{"c/EMPTY2.WEBP", "c/empty.jpg"}));
    EXPECT_EQ(names.at("unsupported image format"), std::vector<std::string>{"c/anim.gif"});
    EXPECT_EQ(names.at("hidden file"), std::vector<std::string>{"c/._good.jpg"});
    EXPECT_EQ(names.at("hidden folder"), (std::vector<std::string>{"__MACOSX", "c/.thumbnails"}));
    EXPECT_EQ(names.at("directory symlink"), std::vector<std::string>{"c/loop"});
    EXPECT_EQ(names.at("unreadable file"), std::vector<std::string>{"c/dead.jpg"});
    EXPECT_EQ(names.at("not a regular file"), std::vector<std::string>{"c/pipe.jpg"});
    EXPECT_EQ(j["skipped_files"]["empty file"], nlohmann::json({"c/EMPTY2.WEBP", "c/empty.jpg"}));
    // The listing carries each file's mtime (the verdict cache's key) into the entries.
    struct stat st {};
    ASSERT_EQ(::stat((r / "c" / "good.jpg").c_str(), &st), 0);
    EXPECT_EQ(findKey(idx, "good")->mtimeNs, static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec);
    EXPECT_EQ(findKey(idx, "good")->size, 24u);
}

TEST(DatasetIndex, UnreadableFolderIsCountedAndTheRestIndexed) {
    TempDir t;
    writeImage(t.path() / "ok" / "a.jpg");
    writeImage(t.path() / "locked" / "b.jpg");
    fs::permissions(t.path() / "ok", fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(t.path() / "ok" / "a.jpg", fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read);
    fs::permissions(t.path() / "locked", fs::perms::none);

    nlohmann::json stats;
    if (geteuid() != 0) {
        stats = DatasetIndex::scanFolder(t.str(), {}).stats();
    } else {
        // root reads everything: index as an unprivileged user in a child process.
        int fds[2];
        ASSERT_EQ(pipe(fds), 0);
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            close(fds[0]);
            std::string out = "SKIP";
            if (setgid(65534) == 0 && setuid(65534) == 0) {
                try {
                    out = DatasetIndex::scanFolder(t.str(), {}).stats().dump();
                } catch (const std::exception& e) {
                    out = std::string("ERROR ") + e.what();
                }
            }
            (void)!write(fds[1], out.data(), out.size());
            close(fds[1]);
            _exit(0);
        }
        close(fds[1]);
        std::string text;
        char buf[4096];
        ssize_t n;
        while ((n = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
        close(fds[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        if (text == "SKIP") GTEST_SKIP() << "running as root and cannot drop privileges";
        ASSERT_EQ(text.rfind("ERROR", 0), std::string::npos) << text;
        stats = nlohmann::json::parse(text);
    }
    EXPECT_EQ(stats["images"], 1);
    EXPECT_EQ(stats["skipped_reasons"]["unreadable folder"], 1);
    EXPECT_EQ(stats["cities"]["ok"], 1);
}

TEST(DatasetIndex, StatsJsonAndTable) {
    TempDir t;
    makeMsls(t.path());
    writeFile(t.path() / "train_val" / "berlin" / "database" / "images" / "zero.jpg", "");
    IndexOptions o;
    o.validationPercent = 25;
    const DatasetIndex idx = DatasetIndex::scanFolder(t.str(), o);
    const nlohmann::json j = idx.stats();
    for (const char* k :
         {"images", "skipped", "skipped_reasons", "cities", "sequences", "shares", "split", "warnings", "dropped", "unsequenced", "found", "layout", "root"})
        EXPECT_TRUE(j.contains(k)) << k;
    EXPECT_EQ(j["images"], 20);
    EXPECT_EQ(j["skipped"], 1);
    EXPECT_EQ(j["skipped_reasons"], (nlohmann::json{{"empty file", 1}}));
    EXPECT_EQ(j["cities"], (nlohmann::json{{"amsterdam", 14}, {"berlin", 4}, {"paris", 2}}));
    EXPECT_EQ(j["sequences"], 4);
    EXPECT_EQ(j["unsequenced"], 5);
    EXPECT_EQ(j["layout"], "msls");
    EXPECT_EQ(j["root"], t.str());
    EXPECT_DOUBLE_EQ(j["shares"]["amsterdam"].get<double>(), 0.7);
    double sum = 0;
    for (const auto& s : j["shares"]) sum += s.get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-12);
    EXPECT_EQ(j["split"]["returned"], "all");
    EXPECT_EQ(j["split"]["validation_percent"], 25.0);
    EXPECT_EQ(j["split"]["train"].get<int64_t>() + j["split"]["validation"].get<int64_t>(), 20);
    EXPECT_EQ(j["warnings"]["malformed csv line"], 2);

    const std::string table = DatasetIndex::formatStatsTable(j);
    EXPECT_NE(table.find("City"), std::string::npos) << table;
    EXPECT_NE(table.find("amsterdam"), std::string::npos) << table;
    EXPECT_NE(table.find("70.0%"), std::string::npos) << table;
    EXPECT_NE(table.find("20.0%"), std::string::npos) << table;
    EXPECT_NE(table.find("100.0%"), std::string::npos) << table;
    EXPECT_NE(table.find("empty file 1"), std::string::npos) << table;
    EXPECT_NE(table.find("25% by image key"), std::string::npos) << table;
    EXPECT_LT(table.find("amsterdam"), table.find("berlin")) << "most images first\n" << table;
    EXPECT_LT(table.find("berlin"), table.find("paris")) << table;
    EXPECT_EQ(DatasetIndex::formatStatsTable(nlohmann::json::array()), "");
    EXPECT_NO_THROW(DatasetIndex::formatStatsTable(nlohmann::json{{"cities", {{"x", 1234567}}}}));
    EXPECT_NE(DatasetIndex::formatStatsTable(nlohmann::json{{"cities", {{"x", 1234567}}}}).find("1,234,567"), std::string::npos);
}

// ------------------------------------------------------------------------------ errors

TEST(DatasetIndex, EmptySourceFailsWithAClearMessage) {
    TempDir t;
    writeFile(t.path() / "a" / "empty.jpg", "");
    writeFile(t.path() / "a" / "readme.txt", "no images here");
    const DatasetIndex idx = DatasetIndex::scanFolder(t.str(), {});
    EXPECT_TRUE(idx.empty());
    EXPECT_EQ(idx.layout(), "empty");
    try {
        idx.requireNonEmpty("my-folder");
        FAIL() << "expected DataError";
    } catch (const DataError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("'my-folder'"), std::string::npos) << m;
        EXPECT_NE(m.find("no usable image"), std::string::npos) << m;
        EXPECT_NE(m.find("empty file 1"), std::string::npos) << m;
        EXPECT_NE(m.find(".jpg"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
    EXPECT_EQ(idx.stats()["images"], 0);
    EXPECT_EQ(idx.stats()["cities"], nlohmann::json::object());

    TempDir nothing;
    EXPECT_THROW(DatasetIndex::scanFolder(nothing.str(), {}).requireNonEmpty("x"), DataError);

    writeImage(t.path() / "a" / "one.jpg");
    IndexOptions o;
    o.split = IndexOptions::Split::Validation;  // validation percent 0: nothing in validation
    try {
        DatasetIndex::scanFolder(t.str(), o).requireNonEmpty("spec");
        FAIL() << "expected DataError";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("raise the validation percent"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(DatasetIndex::scanFolder(t.str(), {}).requireNonEmpty("spec"));
}

TEST(DatasetIndex, BadRootAndOptionsThrowTypedErrors) {
    TempDir t;
    EXPECT_THROW(DatasetIndex::scanFolder((t.path() / "nope").string(), {}), IoError);
    EXPECT_THROW(DatasetIndex::scanFolder("", {}), IoError);
    writeImage(t.path() / "file.jpg");
    EXPECT_THROW(DatasetIndex::scanFolder((t.path() / "file.jpg").string(), {}), IoError);
    try {
        DatasetIndex::scanFolder((t.path() / "nope").string(), {});
    } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos);
    }
    IndexOptions o;
    o.validationPercent = 101;
    EXPECT_THROW(DatasetIndex::scanFolder(t.str(), o), ConfigError);
    o.validationPercent = std::nan("");
    EXPECT_THROW(DatasetIndex::scanFolder(t.str(), o), ConfigError);
    o = {};
    o.maxPerSequence = -1;
    EXPECT_THROW(DatasetIndex::scanFolder(t.str(), o), ConfigError);
    EXPECT_EQ(DatasetIndex::parseSplit("Train"), IndexOptions::Split::Train);
    EXPECT_EQ(DatasetIndex::parseSplit("validation"), IndexOptions::Split::Validation);
    EXPECT_EQ(DatasetIndex::parseSplit("all"), IndexOptions::Split::All);
    EXPECT_THROW(DatasetIndex::parseSplit("test"), ConfigError);
    EXPECT_STREQ(DatasetIndex::splitName(IndexOptions::Split::Validation), "validation");
}

// ------------------------------------------------------------------------------ listings

TEST(DatasetIndex, FromListingLikeAnArchive) {
    const std::map<std::string, std::string> texts = {
        {"msls/train_val/tokyo/query/seq_info.csv", ",key,sequence_key,frame_number\n0,t1,ST,4\n"},
    };
    std::vector<DatasetIndex::ListedFile> files = {
        {"msls/train_val/tokyo/query/images/t1.jpg", 100},
        {"msls/train_val/tokyo/query/images/t1.jpg", 100},  // duplicate entry
        {"./msls/train_val/tokyo/query/images/t2.jpg", 50},
        {"msls/train_val/tokyo/query/seq_info.csv", 40},
        {"__MACOSX/msls/._t1.jpg", 10},
        {"msls/other/p.png", 0},
        {"msls/other/../../escape.jpg", 10},
    };
    int reads = 0;
    const DatasetIndex idx = DatasetIndex::fromListing("archive.zip", files,
                                                       [&](const std::string& p) -> std::optional<std::string> {
                                                           ++reads;
                                                           auto it = texts.find(p);
                                                           if (it == texts.end()) return std::nullopt;
                                                           return it->second;
                                                       },
                                                       {{"unreadable folder", 2}}, {});
    EXPECT_EQ(idx.size(), 2);
    EXPECT_EQ(findKey(idx, "t1")->sequence, "ST");
    EXPECT_EQ(findKey(idx, "t1")->frame, 4);
    EXPECT_EQ(findKey(idx, "t2")->path, "msls/train_val/tokyo/query/images/t2.jpg");
    EXPECT_EQ(reason(idx.skipped(), "unreadable folder"), 2);
    EXPECT_EQ(reason(idx.skipped(), "empty file"), 1);
    // Entries are counted too (issue 41 item 16): the image under __MACOSX and the one climbing out.
    EXPECT_EQ(reason(idx.skipped(), "hidden folder"), 1);
    EXPECT_EQ(reason(idx.skipped(), "path leaving the root (..)"), 1);
    EXPECT_EQ(idx.skippedFiles().at("path leaving the root (..)"), std::vector<std::string>{"msls/other/../../escape.jpg"});
    EXPECT_EQ(idx.skippedTotal(), 5);
    EXPECT_EQ(reads, 1);
    EXPECT_EQ(idx.root(), "archive.zip");

    // An archive rooted inside a city's images folder asks for the CSV one level up.
    std::vector<std::string> asked;
    const DatasetIndex inner = DatasetIndex::fromListing("/data/train_val/tokyo/query/images", {{"t1.jpg", 5}},
                                                         [&](const std::string& p) -> std::optional<std::string> {
                                                             asked.push_back(p);
                                                             if (p == "../seq_info.csv") return std::string("key,sequence_key\nt1,S9\n");
                                                             return std::nullopt;
                                                         },
                                                         {}, {});
    EXPECT_EQ(asked, std::vector<std::string>{"../seq_info.csv"});
    EXPECT_EQ(findKey(inner, "t1")->city, "tokyo");
    EXPECT_EQ(findKey(inner, "t1")->sequence, "S9");
    EXPECT_EQ(reason(inner.warnings(), "unreadable csv"), 0);

    // A listed CSV that cannot be read is a warning, not an error.
    const DatasetIndex unreadable = DatasetIndex::fromListing("x", {{"c/database/images/k.jpg", 5}, {"c/database/seq_info.csv", 9}},
                                                              [](const std::string&) -> std::optional<std::string> { return std::nullopt; }, {}, {});
    EXPECT_EQ(unreadable.size(), 1);
    EXPECT_EQ(reason(unreadable.warnings(), "unreadable csv"), 1);
    EXPECT_EQ(reason(unreadable.warnings(), "no sequence csv"), 1);
    EXPECT_EQ(unreadable.unsequencedCount(), 1);
}
