// DatasetIndex's selection steps: the city include/exclude lists, the per-sequence cap, the
// train/validation split by key hash (stable as the data set grows, pinned hash), and the order
// of entries. Helpers: DatasetIndexTestSupport.h.
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

// ------------------------------------------------------------------------------ selection

TEST(DatasetIndex, CityIncludeExcludeCaseInsensitive) {
    TempDir t;
    makeMsls(t.path());
    IndexOptions o;
    o.includeCities = {"AMSTERDAM", "Berlin"};
    o.excludeCities = {"berlin"};
    const DatasetIndex idx = DatasetIndex::scanFolder(t.str(), o);
    EXPECT_EQ(idx.cities(), (std::map<std::string, int64_t>{{"amsterdam", 14}}));
    EXPECT_EQ(idx.foundImages(), 20);
    EXPECT_EQ(idx.foundCities().size(), 3u);
    EXPECT_EQ(reason(idx.dropped(), "excluded city"), 6);
    EXPECT_TRUE(idx.unmatchedCities().empty());

    IndexOptions ex;
    ex.excludeCities = {"Paris"};
    EXPECT_EQ(DatasetIndex::scanFolder(t.str(), ex).cities(), (std::map<std::string, int64_t>{{"amsterdam", 14}, {"berlin", 4}}));

    IndexOptions none;
    none.includeCities = {"atlantis"};
    const DatasetIndex empty = DatasetIndex::scanFolder(t.str(), none);
    EXPECT_TRUE(empty.empty());
    EXPECT_EQ(empty.unmatchedCities(), std::vector<std::string>{"atlantis"});
    try {
        empty.requireNonEmpty("/data/msls");
        FAIL() << "expected DataError";
    } catch (const DataError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("/data/msls"), std::string::npos) << m;
        EXPECT_NE(m.find("atlantis"), std::string::npos) << m;
        EXPECT_NE(m.find("amsterdam, berlin, paris"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
}

TEST(DatasetIndex, SequenceCapKeepsEvenlySpreadFrames) {
    TempDir t;
    const fs::path db = t.path() / "train_val" / "rome" / "database";
    std::string csv = ",key,sequence_key,frame_number\n";
    for (int f = 0; f < 20; ++f) {  // keys sort against the frame order
        const std::string key = "r" + twoDigits(19 - f);
        writeImage(db / "images" / (key + ".jpg"));
        csv += std::to_string(f) + "," + key + ",LONG," + std::to_string(f) + "\n";
    }
    for (int f = 0; f < 3; ++f) {
        writeImage(db / "images" / ("s" + std::to_string(f) + ".jpg"));
        csv += "x,s" + std::to_string(f) + ",SHORT," + std::to_string(f) + "\n";
    }
    for (int i = 0; i < 7; ++i) writeImage(db / "images" / ("u" + std::to_string(i) + ".jpg"));  // unsequenced
    writeFile(db / "seq_info.csv", csv);

    IndexOptions o;
    o.maxPerSequence = 5;
    const DatasetIndex idx = DatasetIndex::scanFolder(t.str(), o);
    std::map<std::string, std::vector<int64_t>> frames;
    for (const ImageEntry& e : idx.entries()) frames[e.sequence].push_back(e.frame);
    EXPECT_EQ(frames["LONG"], (std::vector<int64_t>{2, 6, 10, 14, 18}));  // centres of 5 equal parts
    EXPECT_EQ(frames["SHORT"], (std::vector<int64_t>{0, 1, 2}));
    EXPECT_EQ(frames[""].size(), 7u);  // unsequenced images are never capped
    EXPECT_EQ(reason(idx.dropped(), "sequence cap"), 15);
    EXPECT_EQ(idx.size(), 5 + 3 + 7);

    o.maxPerSequence = 1;
    const DatasetIndex one = DatasetIndex::scanFolder(t.str(), o);
    frames.clear();
    for (const ImageEntry& e : one.entries()) frames[e.sequence].push_back(e.frame);
    EXPECT_EQ(frames["LONG"], std::vector<int64_t>{10});
    EXPECT_EQ(frames["SHORT"], std::vector<int64_t>{1});

    // Plain folders: the folder is the sequence, ordered by key.
    TempDir p;
    for (int i = 0; i < 12; ++i) writeImage(p.path() / "city" / "walk" / ("f" + twoDigits(i) + ".jpg"));
    o.maxPerSequence = 4;
    const DatasetIndex plain = DatasetIndex::scanFolder(p.str(), o);
    EXPECT_EQ(keysOf(plain), (std::set<std::string>{"f01", "f04", "f07", "f10"}));
}

TEST(DatasetIndex, CapAppliesToTrainingImagesOnly) {
    TempDir t;
    for (int i = 0; i < 60; ++i) writeImage(t.path() / "c" / "seq" / ("img" + std::to_string(i) + ".jpg"));
    IndexOptions o;
    o.maxPerSequence = 4;
    o.validationPercent = 30;
    int expectedVal = 0;
    for (int i = 0; i < 60; ++i) expectedVal += DatasetIndex::isValidationKey("img" + std::to_string(i), 30) ? 1 : 0;
    ASSERT_GT(expectedVal, 4);
    const DatasetIndex all = DatasetIndex::scanFolder(t.str(), o);
    EXPECT_EQ(all.validationCount(), expectedVal);
    EXPECT_EQ(all.trainCount(), 4);
    EXPECT_EQ(all.size(), expectedVal + 4);
    o.split = IndexOptions::Split::Train;
    EXPECT_EQ(DatasetIndex::scanFolder(t.str(), o).size(), 4);
    o.split = IndexOptions::Split::Validation;
    const DatasetIndex val = DatasetIndex::scanFolder(t.str(), o);
    EXPECT_EQ(val.size(), expectedVal);
    for (const ImageEntry& e : val.entries()) EXPECT_TRUE(DatasetIndex::isValidationKey(e.key, 30)) << e.key;
}

TEST(DatasetIndex, SplitIsStableAsTheDataSetGrows) {
    TempDir t;
    auto add = [&](int from, int to) {
        for (int i = from; i < to; ++i)
            writeImage(t.path() / ("city" + std::to_string(i % 7)) / ("seq" + std::to_string(i % 23)) / ("img_" + std::to_string(i * 7919 % 100003) + ".jpg"));
    };
    add(0, 1000);
    for (int cap : {0, 3}) {
        SCOPED_TRACE("cap " + std::to_string(cap));
        IndexOptions o;
        o.validationPercent = 10;
        o.maxPerSequence = cap;
        o.split = IndexOptions::Split::Validation;
        const std::set<std::string> v1 = keysOf(DatasetIndex::scanFolder(t.str(), o));
        o.split = IndexOptions::Split::Train;
        const std::set<std::string> t1 = keysOf(DatasetIndex::scanFolder(t.str(), o));
        for (const std::string& k : v1) EXPECT_EQ(t1.count(k), 0u) << k;
        if (cap == 0) {
            EXPECT_EQ(v1.size() + t1.size(), 1000u);
            EXPECT_GT(v1.size(), 70u);
            EXPECT_LT(v1.size(), 130u);
        }
        if (cap == 0)
            add(1000, 1300);  // 30% more, in old and new folders
        else
            add(1300, 1301);
        o.split = IndexOptions::Split::Validation;
        const DatasetIndex v2idx = DatasetIndex::scanFolder(t.str(), o);
        const std::set<std::string> v2 = keysOf(v2idx);
        for (const std::string& k : v1) EXPECT_EQ(v2.count(k), 1u) << k << " left validation";
        if (cap == 0) {
            EXPECT_EQ(v2idx.trainCount() + v2idx.validationCount(), 1300);
            const double share = static_cast<double>(v2.size()) / 1300.0;
            EXPECT_NEAR(share, 0.10, 0.03);
        }
    }
    // Raising the percent only moves images from train to validation.
    IndexOptions o;
    o.split = IndexOptions::Split::Validation;
    o.validationPercent = 5;
    const std::set<std::string> v5 = keysOf(DatasetIndex::scanFolder(t.str(), o));
    o.validationPercent = 10;
    const std::set<std::string> v10 = keysOf(DatasetIndex::scanFolder(t.str(), o));
    EXPECT_TRUE(std::includes(v10.begin(), v10.end(), v5.begin(), v5.end()));
    EXPECT_LT(v5.size(), v10.size());
}

TEST(DatasetIndex, SplitHashIsPinned) {
    // FNV-1a 64 of "" and "a" are the published test vectors; splitmix64 finalises them.
    EXPECT_EQ(DatasetIndex::keyHash(""), SeedHash::mix(0xcbf29ce484222325ULL));
    EXPECT_EQ(DatasetIndex::keyHash("a"), SeedHash::mix(0xaf63dc4c8601ec8cULL));
    EXPECT_EQ(DatasetIndex::keyHash("foobar"), SeedHash::mix(0x85944171f73967e8ULL));
    EXPECT_FALSE(DatasetIndex::isValidationKey("anything", 0));
    EXPECT_TRUE(DatasetIndex::isValidationKey("anything", 100));
    int count = 0;
    for (int i = 0; i < 20000; ++i) count += DatasetIndex::isValidationKey("k" + std::to_string(i), 5) ? 1 : 0;
    EXPECT_NEAR(count / 20000.0, 0.05, 0.006);
}

// ------------------------------------------------------------------------------ order, stats

TEST(DatasetIndex, OrderIsSortedAndDeterministic) {
    TempDir t;
    makeMsls(t.path());
    for (int i = 0; i < 30; ++i) writeImage(t.path() / "extra" / ("e" + std::to_string((i * 17) % 31) + ".png"));
    const DatasetIndex a = DatasetIndex::scanFolder(t.str(), {});
    const DatasetIndex b = DatasetIndex::scanFolder(t.str(), {});
    EXPECT_EQ(a.layout(), "mixed");
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.entries().size(); ++i) {
        EXPECT_EQ(sortKey(a.entries()[i]), sortKey(b.entries()[i]));
        EXPECT_EQ(a.entries()[i].size, b.entries()[i].size);
    }
    EXPECT_TRUE(std::is_sorted(a.entries().begin(), a.entries().end(), [](const ImageEntry& x, const ImageEntry& y) { return sortKey(x) < sortKey(y); }));
    EXPECT_EQ(a.stats(), b.stats());
}
