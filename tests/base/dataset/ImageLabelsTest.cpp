// The labels of a data set (issue 44 item 2): MSLS postprocessed.csv / raw.csv files in the real
// format, written here in both spellings of MSLS's column names, with missing columns, malformed
// rows, quoted fields, a BOM and CRLF; the season rule on both hemispheres; the city folders (and
// that label keys are DatasetIndex's keys); the synthetic scenes' own parameters; the refusals a
// direction fit needs (absent label, one class only).
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include <string>
#include <vector>

#include "base/dataset/DatasetIndex.h"
#include "base/dataset/DatasetIndexTestSupport.h"
#include "base/dataset/ImageLabels.h"
#include "base/dataset/MslsLabelReader.h"
#include "base/synthetic/SyntheticStreets.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

using namespace test::datasetindex;

// postprocessed.csv as the MSLS release writes it (pandas: an unnamed index column first).
const std::string kPostNew =
    ",key,utm,night,control_panel,view_direction,unique_cluster\n"
    "0,k1,\"(552103.3, 5808541.2)\",False,False,Forward,12\n"
    "1,k2,\"(552104.1, 5808542.0)\",True,False,Sideways,12\n"
    "2,k3,\"(552105.0, 5808543.9)\",False,True,Backward,13\n";
// The same rows in the README's first spelling (day/night, qualitative_view_direction).
const std::string kPostOld =
    "key,utm,day/night,control_panel,qualitative_view_direction,unique_cluster\n"
    "k1,\"(552103.3, 5808541.2)\",day,0,forward,12\n"
    "k2,\"(552104.1, 5808542.0)\",night,0,sidewards,12\n"
    "k3,\"(552105.0, 5808543.9)\",day,1,backward,13\n";

ImageLabels readPost(const std::string& text, const std::string& city = "berlin") {
    ImageLabels l;
    MslsLabelReader::readPostprocessed(text, "berlin/database/postprocessed.csv", city, l);
    return l;
}

ImageLabels readRaw(const std::string& text) {
    ImageLabels l;
    MslsLabelReader::readRaw(text, "x/raw.csv", "x", l);
    return l;
}

void expectThreeRows(const ImageLabels& l) {
    EXPECT_EQ(l.classOf("k1", "night"), "false");
    EXPECT_EQ(l.classOf("k2", "night"), "true");
    EXPECT_EQ(l.classOf("k3", "night"), "false");
    EXPECT_EQ(l.classOf("k1", "view_direction"), "forward");
    EXPECT_EQ(l.classOf("k2", "view_direction"), "sideways");
    EXPECT_EQ(l.classOf("k3", "view_direction"), "backward");
    EXPECT_EQ(l.classOf("k3", "control_panel"), "true");
    EXPECT_EQ(l.classOf("k1", "control_panel"), "false");
    EXPECT_EQ(l.classOf("k2", "city"), "berlin");
    EXPECT_EQ(l.imageCount(), 3);
    EXPECT_TRUE(l.problems().empty()) << l.problems().front();
}

TEST(ImageLabels, PostprocessedBothSpellingsGiveTheSameLabels) {
    SCOPED_TRACE("release spelling");
    expectThreeRows(readPost(kPostNew));
    SCOPED_TRACE("README's first spelling");
    expectThreeRows(readPost(kPostOld));
}

TEST(ImageLabels, ColumnNamesIgnoreCaseSpacesAndUnderscores) {
    expectThreeRows(
        readPost("Key,Night,Control-Panel,View Direction\n"
                 "k1,false,no,FORWARD\nk2,TRUE,no,sideways\nk3,0.0,yes,Backwards\n"));
    expectThreeRows(
        readPost("KEY,NIGHT,controlPanel,viewDirection\n"
                 "k1,f,0,Forward\nk2,t,0,Sideways\nk3,F,1,Backward\n"));
}

TEST(ImageLabels, BomCrlfAndQuotedFields) {
    std::string text = "\xEF\xBB\xBF" + kPostOld;  // the BOM right before the key column's name
    std::string crlf;
    for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    crlf += "\"k,4\",\"(1, 2)\",\"night\", \"0\" ,\"forward\",14\r\n";  // a comma inside a quoted key
    const ImageLabels l = readPost(crlf);
    EXPECT_EQ(l.classOf("k1", "night"), "false");  // "key" found: the BOM is not part of its name
    EXPECT_EQ(l.classOf("k,4", "night"), "true");
    EXPECT_EQ(l.classOf("k,4", "view_direction"), "forward");
    EXPECT_EQ(l.imageCount(), 4);
    EXPECT_TRUE(l.problems().empty()) << l.problems().front();
}

TEST(ImageLabels, MissingColumnLeavesItsLabelAbsentWithOneLine) {
    const ImageLabels l = readPost("key,night,unique_cluster\nk1,True,1\nk2,False,1\n");
    EXPECT_EQ(l.classOf("k1", "night"), "true");
    EXPECT_FALSE(l.has("view_direction"));
    EXPECT_FALSE(l.has("control_panel"));
    ASSERT_EQ(l.problems().size(), 2u);
    EXPECT_EQ(l.problems()[0], "berlin/database/postprocessed.csv: no 'view_direction' column: no view_direction label from this file");
    EXPECT_EQ(l.problems()[1], "berlin/database/postprocessed.csv: no 'control_panel' column: no control_panel label from this file");

    const ImageLabels noKey = readPost("image,night\nk1,True\n");
    EXPECT_EQ(noKey.imageCount(), 0);
    ASSERT_EQ(noKey.problems().size(), 1u);
    EXPECT_EQ(noKey.problems()[0], "berlin/database/postprocessed.csv: no 'key' column: no labels read from this file");

    const ImageLabels noLat = readRaw("key,lon,ca,captured_at,pano\nk1,13.4,90,1546300800000,False\n");
    EXPECT_FALSE(noLat.has("season"));
    EXPECT_EQ(noLat.classOf("k1", "city"), "x");
    ASSERT_EQ(noLat.problems().size(), 1u);
    EXPECT_EQ(noLat.problems()[0], "x/raw.csv: no 'lat' column: no season (the hemisphere decides it) label from this file");
}

TEST(ImageLabels, MalformedRowsAreCountedNamedAndTheRestRead) {
    const ImageLabels l = readPost(
        "key,night,control_panel,view_direction\n"  // line 1
        "k1,True,False,Forward\n"                   // 2 good
        "k2,True,False\n"                           // 3 too few fields
        "k3,maybe,False,Sideways\n"                 // 4 unknown boolean (the view is still read)
        "k4,False,False,Upward\n"                   // 5 unknown view direction
        "\"k5,False,False,Forward\n"                // 6 unterminated quote
        ",False,False,Forward\n"                    // 7 empty key
        "k6,False,False,Backward\n");               // 8 good
    EXPECT_EQ(l.classOf("k1", "night"), "true");
    EXPECT_EQ(l.classOf("k6", "view_direction"), "backward");
    EXPECT_FALSE(l.classOf("k2", "night"));
    EXPECT_FALSE(l.classOf("k3", "night"));
    EXPECT_EQ(l.classOf("k3", "view_direction"), "sideways");
    EXPECT_EQ(l.classOf("k4", "night"), "false");
    EXPECT_FALSE(l.classOf("k4", "view_direction"));
    EXPECT_EQ(l.classes("night"), (std::map<std::string, int64_t>{{"false", 2}, {"true", 1}}));
    ASSERT_EQ(l.problems().size(), 1u);
    EXPECT_EQ(l.problems()[0],
              "berlin/database/postprocessed.csv: 5 malformed rows (line 3: 3 fields where the header has 4; line 4: night 'maybe' is not "
              "a boolean; line 5: view_direction 'Upward' is none of Forward, Sideways, Backward; ...): fix or remove them to label those "
              "images");

    const ImageLabels raw = readRaw(
        "key,lon,lat,ca,captured_at,pano\n"
        "r1,13.4,52.5,90,1546300800000,False\n"
        "r2,13.4,north,90,1546300800000,False\n"
        "r3,13.4,52.5,90,yesterday,False\n");
    EXPECT_EQ(raw.classOf("r1", "season"), "winter");
    EXPECT_FALSE(raw.classOf("r2", "season"));
    EXPECT_EQ(raw.classOf("r2", "city"), "x");  // the row is there, only its season is not
    ASSERT_EQ(raw.problems().size(), 1u);
    EXPECT_EQ(raw.problems()[0],
              "x/raw.csv: 2 malformed rows (line 3: lat 'north' is not a latitude; line 4: captured_at 'yesterday' is not a time "
              "(milliseconds since 1970)): fix or remove them to label those images");
}

TEST(ImageLabels, SeasonFromTheMonthFlippedSouthOfTheEquator) {
    const char* north[] = {"winter", "winter", "spring", "spring", "spring", "summer", "summer", "summer", "autumn", "autumn", "autumn", "winter"};
    const char* south[] = {"summer", "summer", "autumn", "autumn", "autumn", "winter", "winter", "winter", "spring", "spring", "spring", "summer"};
    for (int m = 1; m <= 12; ++m) {
        EXPECT_EQ(MslsLabelReader::season(m, 52.5), north[m - 1]) << m;
        EXPECT_EQ(MslsLabelReader::season(m, 0.0), north[m - 1]) << m;
        EXPECT_EQ(MslsLabelReader::season(m, -37.8), south[m - 1]) << m;
    }
    // captured_at: ms since 1970 (MSLS), seconds, an ISO date; month boundaries in UTC.
    EXPECT_EQ(MslsLabelReader::captureMonth("1546300800000"), 1);   // 2019-01-01T00:00:00Z
    EXPECT_EQ(MslsLabelReader::captureMonth("1546300799999"), 12);  // 2018-12-31T23:59:59.999Z
    EXPECT_EQ(MslsLabelReader::captureMonth("1582934400000"), 2);   // 2020-02-29 (a leap day)
    EXPECT_EQ(MslsLabelReader::captureMonth("1583020800000"), 3);   // 2020-03-01
    EXPECT_EQ(MslsLabelReader::captureMonth("1561939200"), 7);      // 2019-07-01 in seconds
    EXPECT_EQ(MslsLabelReader::captureMonth("2017-10-05T12:00:00Z"), 10);
    EXPECT_FALSE(MslsLabelReader::captureMonth("2017-13-05"));
    EXPECT_FALSE(MslsLabelReader::captureMonth("soon"));
    EXPECT_FALSE(MslsLabelReader::captureMonth("-5"));

    // The same July capture is summer in Berlin and winter in Melbourne.
    const ImageLabels l = readRaw(
        "key,lon,lat,ca,captured_at,pano\n"
        "b,13.40,52.52,90.0,1562500000000,False\n"
        "m,144.96,-37.81,90.0,1562500000000,False\n");
    EXPECT_EQ(l.classOf("b", "season"), "summer");
    EXPECT_EQ(l.classOf("m", "season"), "winter");
    EXPECT_TRUE(l.problems().empty());
}

// train_val/{berlin,melbourne}/{database,query}: images, CSVs, an image without rows, a hidden folder.
void makeMsls(const fs::path& root) {
    const fs::path tv = root / "train_val";
    for (const char* k : {"k1", "k2", "k3", "lonely"}) writeImage(tv / "berlin/database/images" / (std::string(k) + ".jpg"));
    writeFile(tv / "berlin/database/postprocessed.csv", kPostNew);
    writeFile(tv / "berlin/database/raw.csv", "key,lon,lat,ca,captured_at,pano\nk1,13.4,52.5,90,1546300800000,False\n");
    writeImage(tv / "berlin/query/images/q1.jpg");
    writeFile(tv / "berlin/query/postprocessed.csv", "key,night,control_panel,view_direction\nq1,True,False,Forward\n");
    writeImage(tv / "melbourne/query/images/m1.jpg");
    writeFile(tv / "melbourne/query/raw.csv", "key,lon,lat,ca,captured_at,pano\nm1,144.9,-37.8,90,1546300800000,False\n");
    writeImage(tv / ".trash/query/images/gone.jpg");
    writeFile(tv / ".trash/query/postprocessed.csv", "key,night\ngone,True\n");
}

TEST(ImageLabels, CityFoldersFromAnyLevelOfTheTree) {
    TempDir tmp;
    makeMsls(tmp.path());
    const ImageLabels all = MslsLabelReader::readFolder(tmp.str());
    EXPECT_EQ(all.classes("city"), (std::map<std::string, int64_t>{{"berlin", 5}, {"melbourne", 1}}));
    EXPECT_EQ(all.classOf("lonely", "city"), "berlin");  // an image with no CSV row still has its city
    EXPECT_FALSE(all.classOf("lonely", "night"));
    EXPECT_EQ(all.classOf("q1", "night"), "true");
    EXPECT_EQ(all.classOf("k1", "season"), "winter");
    EXPECT_EQ(all.classOf("m1", "season"), "summer");
    EXPECT_FALSE(all.classOf("gone", "city"));  // hidden folders are not entered
    // melbourne/query has raw.csv only: no problem line (postprocessed.csv's absence is not an error).
    EXPECT_TRUE(all.problems().empty()) << all.problems().front();

    // The keys are DatasetIndex's: the labels join an index's entries.
    const DatasetIndex index = DatasetIndex::scanFolder(tmp.str(), {});
    EXPECT_EQ(keysOf(index), all.keys());

    EXPECT_EQ(MslsLabelReader::readFolder((tmp.path() / "train_val").string()).imageCount(), 6);
    const ImageLabels city = MslsLabelReader::readFolder((tmp.path() / "train_val/berlin").string());
    EXPECT_EQ(city.classes("city"), (std::map<std::string, int64_t>{{"berlin", 5}}));
    const ImageLabels split = MslsLabelReader::readFolder((tmp.path() / "train_val/berlin/query").string());
    EXPECT_EQ(split.classes("city"), (std::map<std::string, int64_t>{{"berlin", 1}}));
    EXPECT_EQ(MslsLabelReader::readFolder((tmp.path() / "train_val/berlin/query/images/").string()).keys(), split.keys());

    writeImage(tmp.path() / "train_val/amman/database/images/a1.jpg");  // no CSV at all
    const ImageLabels noCsv = MslsLabelReader::readFolder((tmp.path() / "train_val/amman").string());
    EXPECT_EQ(noCsv.classOf("a1", "city"), "amman");
    ASSERT_EQ(noCsv.problems().size(), 1u);
    EXPECT_NE(noCsv.problems()[0].find("amman/database: no postprocessed.csv or raw.csv: its images have only the city label"), std::string::npos);

    EXPECT_THROW(MslsLabelReader::readFolder((tmp.path() / "nothing-here").string()), IoError);
}

// Every regular file under `root` into a zip (libarchive's writer), named by its path under `root`.
void zipTree(const fs::path& root, const fs::path& zip) {
    archive* a = archive_write_new();
    ASSERT_EQ(archive_write_set_format_zip(a), ARCHIVE_OK);
    ASSERT_EQ(archive_write_open_filename(a, zip.c_str()), ARCHIVE_OK);
    for (const auto& f : fs::recursive_directory_iterator(root)) {
        if (!f.is_regular_file()) continue;
        std::ifstream in(f.path(), std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        archive_entry* e = archive_entry_new();
        archive_entry_set_pathname(e, fs::relative(f.path(), root).string().c_str());
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, static_cast<la_int64_t>(bytes.size()));
        ASSERT_EQ(archive_write_header(a, e), ARCHIVE_OK);
        ASSERT_EQ(archive_write_data(a, bytes.data(), bytes.size()), static_cast<la_ssize_t>(bytes.size()));
        archive_entry_free(e);
    }
    ASSERT_EQ(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
}

TEST(ImageLabels, AnMslsBatchReadInPlaceHasTheLabelsOfItsFolder) {
    TempDir tmp;
    makeMsls(tmp.path() / "tree");
    zipTree(tmp.path() / "tree", tmp.path() / "batch.zip");
    const ImageLabels folder = MslsLabelReader::readFolder((tmp.path() / "tree").string());
    const ImageLabels zip = MslsLabelReader::read((tmp.path() / "batch.zip").string());
    EXPECT_EQ(zip.keys(), folder.keys());
    for (const char* label : {"city", "night", "view_direction", "season"}) EXPECT_EQ(zip.classes(label), folder.classes(label)) << label;
    EXPECT_EQ(zip.classOf("lonely", "city"), "berlin");  // an image with no CSV row still has its city
    EXPECT_EQ(zip.classOf("q1", "night"), "true");
    EXPECT_TRUE(zip.problems().empty()) << zip.problems().front();

    // A batch of images alone: their cities, and one line saying why nothing else.
    fs::remove_all(tmp.path() / "images-only");
    fs::create_directories(tmp.path() / "images-only/train_val/amman/database/images");
    writeImage(tmp.path() / "images-only/train_val/amman/database/images/a1.jpg");
    zipTree(tmp.path() / "images-only", tmp.path() / "images.zip");
    const ImageLabels images = MslsLabelReader::read((tmp.path() / "images.zip").string());
    EXPECT_EQ(images.classOf("a1", "city"), "amman");
    ASSERT_EQ(images.problems().size(), 1u);
    EXPECT_NE(images.problems()[0].find("images.zip: no postprocessed.csv or raw.csv in it"), std::string::npos) << images.problems()[0];

    // A file that is no archive: the reader's one line.
    std::ofstream(tmp.path() / "notes.zip") << "not an archive";
    EXPECT_THROW(MslsLabelReader::read((tmp.path() / "notes.zip").string()), Error);
}

TEST(ImageLabels, RequireLabelsNamesAbsentAndSingleClassLabels) {
    const ImageLabels l = readPost(kPostNew);
    EXPECT_TRUE(l.requireLabels({"night", "view_direction", "control_panel"}, "DIR").empty());
    const auto errors = l.requireLabels({"city", "winter", "night"}, "DIR");
    ASSERT_EQ(errors.size(), 2u);
    EXPECT_EQ(errors[0], "city: every image of DIR is 'berlin': a direction needs both classes");
    EXPECT_EQ(errors[1], "DIR has no label 'winter': its labels are city, control_panel, night, view_direction");

    const ImageLabels dayOnly = readPost("key,night\na,False\nb,False\n");
    EXPECT_EQ(dayOnly.requireLabels({"night"}, "/data/msls"),
              std::vector<std::string>{"night: every image of /data/msls is 'false': a direction needs both classes"});
    EXPECT_EQ(ImageLabels().requireLabels({"night"}, "D"),
              std::vector<std::string>{"D has no label 'night': it has no labels at all (MSLS postprocessed.csv / raw.csv files, or 'synthetic')"});
}

TEST(ImageLabels, SyntheticScenesLabelledWithTheirOwnParameters) {
    const SyntheticStreets streets(7);
    const ImageLabels l = ImageLabels::synthetic(7, 300);
    EXPECT_EQ(l.imageCount(), 300);
    for (const char* label : {"night", "time_of_day", "weather", "season", "layout", "snow"}) {
        EXPECT_EQ(l.kind(label), ImageLabels::Kind::Class) << label;
        EXPECT_GE(l.classes(label).size(), 2u) << label;  // 300 scenes draw every kind of each
    }
    EXPECT_EQ(l.classes("time_of_day").size(), 3u);
    EXPECT_EQ(l.classes("season").size(), 4u);
    EXPECT_EQ(l.kind("camera_height"), ImageLabels::Kind::Number);
    int64_t nights = 0;
    for (int64_t i = 0; i < 300; ++i) {
        const auto s = streets.describe(static_cast<uint64_t>(i));
        const std::string key = std::to_string(i);
        const bool night = s.timeOfDay == SyntheticStreets::TimeOfDay::Night;
        nights += night ? 1 : 0;
        EXPECT_EQ(l.classOf(key, "night"), night ? "true" : "false");
        EXPECT_EQ(l.classOf(key, "time_of_day") == "night", night);
        EXPECT_EQ(l.classOf(key, "snow"), s.snow ? "true" : "false");
        EXPECT_EQ(l.classOf(key, "season") == "winter", s.season == SyntheticStreets::Season::Winter);
        EXPECT_EQ(l.numberOf(key, "camera_height"), static_cast<double>(s.cameraHeight));
        EXPECT_EQ(l.numberOf(key, "vanishing_x"), static_cast<double>(s.vanishingX));
    }
    EXPECT_EQ(l.classes("night")["true"], nights);
    EXPECT_TRUE(l.requireLabels({"night", "season", "camera_height"}, "synthetic").empty());
    // Another seed, other scenes.
    EXPECT_NE(ImageLabels::synthetic(8, 300).classes("time_of_day"), l.classes("time_of_day"));
}

TEST(ImageLabels, OneValuePerKeyAndLabelKindsDoNotMix) {
    ImageLabels l;
    EXPECT_TRUE(l.setClass("a", "night", "true"));
    EXPECT_TRUE(l.setClass("a", "night", "false"));  // a later row of the same key wins
    EXPECT_TRUE(l.setClass("b", "night", "false"));
    EXPECT_FALSE(l.setNumber("c", "night", 1.0));  // night is a class label for good
    EXPECT_EQ(l.count("night"), 2);
    EXPECT_EQ(l.classes("night"), (std::map<std::string, int64_t>{{"false", 2}}));
    EXPECT_TRUE(l.setNumber("c", "height", 1.5));
    EXPECT_TRUE(l.setNumber("d", "height", -2.0));
    EXPECT_EQ(l.range("height"), std::make_pair(-2.0, 1.5));
    EXPECT_FALSE(l.numberOf("a", "height"));
    EXPECT_FALSE(l.classOf("c", "night"));
    EXPECT_EQ(l.imageCount(), 4);

    ImageLabels other;
    other.setClass("b", "night", "true");
    other.setClass("e", "city", "amman");
    other.addProblem("x.csv: one problem");
    l.merge(other);
    EXPECT_EQ(l.classOf("b", "night"), "true");
    EXPECT_EQ(l.classOf("e", "city"), "amman");
    EXPECT_EQ(l.imageCount(), 5);
    EXPECT_EQ(l.problems(), std::vector<std::string>{"x.csv: one problem"});
}

TEST(ImageLabels, SummaryCountsClassesAndRanges) {
    const ImageLabels l = ImageLabels::synthetic(0, 50);
    const auto j = l.summary({"night", "camera_height", "absent"});
    EXPECT_EQ(j["images"], 50);
    ASSERT_EQ(j["labels"].size(), 2u);
    EXPECT_EQ(j["labels"]["night"]["kind"], "class");
    EXPECT_EQ(j["labels"]["night"]["classes"]["true"].get<int64_t>() + j["labels"]["night"]["classes"]["false"].get<int64_t>(), 50);
    EXPECT_EQ(j["labels"]["camera_height"]["kind"], "number");
    EXPECT_LT(j["labels"]["camera_height"]["min"].get<double>(), j["labels"]["camera_height"]["max"].get<double>());
    EXPECT_EQ(l.summary({})["labels"].size(), l.labels().size());

    const std::string text = readPost(kPostNew).summaryText({"night"});
    EXPECT_EQ(text, "images with labels: 3\nnight: 2 classes, 3 images\n  false  2  66.7%\n  true   1  33.3%\n");
}

}  // namespace
}  // namespace streetgan
