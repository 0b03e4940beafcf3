// TensorBoardFollower, TensorBoardRun and the TensorBoard side of RunStatus and AttachFollower, on
// runs written by PyTorch's own SummaryWriter and TensorBoard's own writers
// (tests/python/make_tensorboard_runs.py, the tensorboard_runs fixture), and on cut, corrupted
// and growing copies of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <tuple>

#include "TensorBoardTestSupport.h"
#include "base/follow/AttachFollower.h"
#include "base/follow/RunStatus.h"
#include "base/follow/RunStatusCache.h"
#include "base/run/Events.h"
#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardFollower.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "base/tensorboard/TensorBoardWriter.h"
#include "base/util/Errors.h"

namespace streetgan::test::tensorboard {
namespace {

using Item = TensorBoardFollower::Item;
using Scalar = std::tuple<int64_t, std::string, double>;
constexpr auto kForever = std::chrono::hours(1);  // a step is handed out on the next step only

const fs::path kRuns = STREETGAN_TEST_TB_RUNS;
const nlohmann::json& expected() {
    static const nlohmann::json j = nlohmann::json::parse(readFile((kRuns / "expected.json").string()));
    return j;
}

// Everything a follower reads from `from` on, the last step included.
std::vector<Item> readAll(const std::string& dir, uint64_t from = 0, TensorBoardFollower::Counts* counts = nullptr) {
    LocalEventFiles files;
    TensorBoardFollower f(files, dir, from, kForever);
    std::vector<Item> items;
    while (f.poll(items)) {}
    f.flush(items);
    if (counts) *counts = f.counts();
    return items;
}

std::string dump(const Item& i) { return std::to_string(i.offset) + "-" + std::to_string(i.end) + " " + toJson(i.event).dump(); }

// The (step, tag, value) triples the metrics events carry, for the tags `tags`.
std::vector<Scalar> scalarsOf(const std::vector<Item>& items, const std::set<std::string>& tags) {
    std::vector<Scalar> out;
    for (const auto& i : items) {
        const auto* m = std::get_if<MetricsEvent>(&i.event);
        if (!m) continue;
        MetricsEvent copy = *m;
        for (const auto& tag : tags) {
            if (double* f = TensorBoardFollower::fieldOf(copy, tag)) {
                if (!std::isnan(*f)) out.emplace_back(*m->step, tag, *f);
            } else if (const auto it = m->scalars.find(tag); it != m->scalars.end()) {
                out.emplace_back(*m->step, tag, it->second);
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<Scalar> expectedScalars(const std::string& run, std::set<std::string>* tags = nullptr) {
    std::vector<Scalar> out;
    for (const auto& s : expected()[run]["scalars"]) {
        out.emplace_back(s[0].get<int64_t>(), s[1].get<std::string>(), s[2].get<double>());
        if (tags) tags->insert(s[1].get<std::string>());
    }
    std::sort(out.begin(), out.end());
    return out;
}

template <class T>
std::vector<const T*> eventsOf(const std::vector<Item>& items) {
    std::vector<const T*> out;
    for (const auto& i : items)
        if (const auto* e = std::get_if<T>(&i.event)) out.push_back(e);
    return out;
}

std::vector<std::string> eventFilesIn(const fs::path& dir) {
    LocalEventFiles files;
    std::vector<std::string> names;
    for (const auto& e : TensorBoardRun::eventFiles(files.list(dir.string()))) names.push_back((dir / e.name).string());
    return names;
}

class TensorBoardFollowerTest : public TensorBoardWriterTest {
protected:
    fs::path copyRun(const std::string& run) {
        const fs::path to = dir_ / run;
        fs::create_directories(to);
        fs::copy(kRuns / run, to, fs::copy_options::recursive);
        return to;
    }
};

TEST_F(TensorBoardFollowerTest, ReadsTheReferenceRunOfSummaryWriterAcrossItsRestart) {
    const std::string run = "reference/dcgan-msls/events";
    ASSERT_EQ(eventFilesIn(kRuns / run).size(), 2u) << "the fixture's restart wrote a second event file";
    TensorBoardFollower::Counts counts;
    const auto items = readAll((kRuns / run).string(), 0, &counts);
    std::set<std::string> tags;
    const auto want = expectedScalars(run, &tags);
    EXPECT_EQ(scalarsOf(items, tags), want);  // every scalar once, with its float32 value

    // One metrics event per step, in order, the reference's tags in our fields.
    const auto metrics = eventsOf<MetricsEvent>(items);
    ASSERT_EQ(metrics.size(), 60u);
    for (size_t k = 0; k < metrics.size(); ++k) {
        EXPECT_EQ(*metrics[k]->step, int64_t(k) * 128);
        EXPECT_FALSE(std::isnan(metrics[k]->lossG) || std::isnan(metrics[k]->lossD) || std::isnan(metrics[k]->dX));
        EXPECT_FALSE(std::isnan(metrics[k]->dGz1) || std::isnan(metrics[k]->dGz2));
        EXPECT_EQ(metrics[k]->scalars.size(), 2u);  // lr/G and timing/data
        // img_per_s derived from the steps (images) and wall times of the previous event
        if (k > 0 && metrics[k]->t > metrics[k - 1]->t) {
            EXPECT_NEAR(metrics[k]->imgPerS, 128.0 / (metrics[k]->t - metrics[k - 1]->t), 1e-6 * metrics[k]->imgPerS);
        }
    }
    // Images: a sample event each, whose path gives back the PNG the writer stored.
    const auto samples = eventsOf<SampleEvent>(items);
    const auto& wantImages = expected()[run]["images"];
    ASSERT_EQ(samples.size(), wantImages.size());
    LocalEventFiles files;
    for (size_t k = 0; k < samples.size(); ++k) {
        EXPECT_EQ(*samples[k]->step, wantImages[k][0].get<int64_t>());
        const auto ref = TensorBoardRun::parseImagePath(samples[k]->path);
        ASSERT_TRUE(ref) << samples[k]->path;
        EXPECT_EQ(hex(TensorBoardRun::readImage(files, (kRuns / run).string(), *ref)), wantImages[k][1].get<std::string>());
    }
    EXPECT_TRUE(eventsOf<ErrorEvent>(items).empty());
    EXPECT_EQ(counts.histograms, expected()[run]["histograms"].get<int64_t>());
    EXPECT_EQ(counts.corrupt, 0);
    // Ranges: contiguous in order, each after the one before.
    for (size_t k = 1; k < items.size(); ++k) EXPECT_LE(items[k - 1].end, items[k].offset) << k;
}

TEST_F(TensorBoardFollowerTest, ReadsTf2TensorScalarsInFloatDoubleAndHalfAndCountsOtherPlugins) {
    for (const std::string run : {"tf2/run-a", "tf2/run-b"}) {
        TensorBoardFollower::Counts counts;
        const auto items = readAll((kRuns / run).string(), 0, &counts);
        std::set<std::string> tags;
        const auto want = expectedScalars(run, &tags);
        EXPECT_EQ(scalarsOf(items, tags), want) << run;  // the doubles exactly, as float64
        EXPECT_EQ(counts.other, expected()[run]["other"].get<int64_t>()) << run;
        const auto samples = eventsOf<SampleEvent>(items);
        ASSERT_EQ(samples.size(), expected()[run]["images"].size()) << run;
        LocalEventFiles files;
        for (size_t k = 0; k < samples.size(); ++k)
            EXPECT_EQ(hex(TensorBoardRun::readImage(files, (kRuns / run).string(), *TensorBoardRun::parseImagePath(samples[k]->path))),
                      expected()[run]["images"][k][1].get<std::string>());
    }
    // G_loss (tensor_content) fills loss_g; the metadata came with each tag's first value only.
    const auto items = readAll((kRuns / "tf2/run-a").string());
    const auto metrics = eventsOf<MetricsEvent>(items);
    ASSERT_EQ(metrics.size(), 30u);
    EXPECT_EQ(metrics[29]->lossG, double(float(std::sin(29.0))));
    EXPECT_EQ(metrics[29]->scalars.count("loss/train"), 1u);
}

TEST_F(TensorBoardFollowerTest, ResumingFromAnyEventsEndGivesTheRestWithNoGapOrDuplicate) {
    const std::string run = (kRuns / "reference/dcgan-msls/events").string();
    const auto all = readAll(run);
    ASSERT_GT(all.size(), 60u);
    for (size_t k = 0; k < all.size(); k += 7) {
        auto rest = readAll(run, all[k].end);
        ASSERT_EQ(rest.size(), all.size() - k - 1) << "from the end of item " << k;
        auto want = std::vector<Item>(all.begin() + long(k) + 1, all.end());
        // img_per_s is derived from the event before, which a resumed reader did not see.
        for (auto* items : {&rest, &want})
            for (auto& i : *items)
                if (auto* m = std::get_if<MetricsEvent>(&i.event)) {
                    m->imgPerS = kNoValue;
                    break;
                }
        for (size_t i = 0; i < rest.size(); ++i) ASSERT_EQ(dump(rest[i]), dump(want[i])) << "from the end of item " << k;
    }
}

TEST_F(TensorBoardFollowerTest, FollowsGrowingFilesInPiecesThatCutRecordsAndANewFileAppearing) {
    const fs::path src = kRuns / "reference/dcgan-msls/events";
    const auto whole = readAll(src.string());
    const fs::path live = dir_ / "live";
    fs::create_directories(live);
    LocalEventFiles files;
    TensorBoardFollower f(files, live.string(), 0, kForever);
    std::vector<Item> got;
    for (const auto& file : eventFilesIn(src)) {
        const std::string bytes = readFile(file);
        const std::string to = (live / fs::path(file).filename()).string();
        for (size_t at = 0; at < bytes.size(); at += 97) {  // 97: cuts headers, data and CRCs
            std::ofstream(to, std::ios::binary | std::ios::app).write(bytes.data() + at, std::streamsize(std::min<size_t>(97, bytes.size() - at)));
            while (f.poll(got)) {}
        }
    }
    f.flush(got);
    ASSERT_EQ(got.size(), whole.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(dump(got[i]), dump(whole[i])) << i;
}

TEST_F(TensorBoardFollowerTest, ACorruptRecordIsReportedOncePerFileWithItsOffsetAndTheRestIsRead) {
    const std::string run = "reference/dcgan-msls/events";
    const fs::path dir = copyRun(run);
    const auto names = eventFilesIn(dir);
    std::string a = readFile(names[0]), b = readFile(names[1]);
    const auto startsA = recordStarts(a), startsB = recordStarts(b);
    a[startsA[10] + 14] ^= 0x40;  // data bytes of two scalar records of the first file
    a[startsA[20] + 14] ^= 0x40;
    b[startsB[5] + 2] ^= 0x01;  // the length of one of the second
    writeFile(names[0], a);
    writeFile(names[1], b);
    TensorBoardFollower::Counts counts;
    const auto items = readAll(dir.string(), 0, &counts);
    const auto errors = eventsOf<ErrorEvent>(items);
    ASSERT_EQ(errors.size(), 2u);
    EXPECT_NE(
        errors[0]->message.find(fs::path(names[0]).filename().string() + "' has a corrupt record (data CRC mismatch) at offset " + std::to_string(startsA[10])),
        std::string::npos)
        << errors[0]->message;
    EXPECT_NE(errors[1]->message.find("(length CRC mismatch) at offset " + std::to_string(startsB[5])), std::string::npos) << errors[1]->message;
    EXPECT_EQ(counts.corrupt, 3);
    std::set<std::string> tags;
    const auto want = expectedScalars(run, &tags);
    EXPECT_EQ(scalarsOf(items, tags).size(), want.size() - 3);  // all but the three records
}

TEST_F(TensorBoardFollowerTest, ATornRecordEndingAFileIsSkippedOnceANewerFileFollows) {
    const std::string run = "reference/dcgan-msls/events";
    const fs::path dir = copyRun(run);
    const auto names = eventFilesIn(dir);
    const std::string a = readFile(names[0]);
    const size_t lastStart = recordStarts(a).back();
    writeFile(names[0], a.substr(0, a.size() - 5));  // a writer killed mid-record
    const auto items = readAll(dir.string());
    const auto errors = eventsOf<ErrorEvent>(items);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0]->message.find("a torn record at the end of the file (a newer event file follows) at offset " + std::to_string(lastStart)),
              std::string::npos)
        << errors[0]->message;
    EXPECT_EQ(eventsOf<MetricsEvent>(items).back()->step, 59 * 128);  // the newer file is read whole
    // The last file's torn record, though, waits for its rest: no error.
    writeFile(names[1], readFile(names[1]).substr(0, readFile(names[1]).size() - 5));
    EXPECT_EQ(eventsOf<ErrorEvent>(readAll(dir.string())).size(), 1u);
}

TEST_F(TensorBoardFollowerTest, StartOffsetsInsideARecordOrPastTheEndAreRefused) {
    const std::string run = (kRuns / "reference/dcgan-msls/events").string();
    const auto all = readAll(run);
    LocalEventFiles files;
    EXPECT_THROW(TensorBoardFollower(files, run, all[3].offset + 1), ConfigError);
    EXPECT_THROW(TensorBoardFollower(files, run, all.back().end + 1000), ConfigError);
    EXPECT_NO_THROW(TensorBoardFollower(files, run, all.back().end));
}

TEST_F(TensorBoardFollowerTest, LsListsTensorBoardRunsBesideOursButNotTheTbCopiesOfOurs) {
    const fs::path root = dir_ / "runs";
    fs::create_directories(root / "dcgan-msls");
    fs::copy(kRuns / "reference/dcgan-msls", root / "dcgan-msls", fs::copy_options::recursive);
    fs::create_directories(root / "tf2-a");
    fs::copy(kRuns / "tf2/run-a", root / "tf2-a", fs::copy_options::recursive);
    fs::create_directories(root / "ours");
    writeFile((root / "ours/events.jsonl").string(), "{\"kind\":\"status\",\"state\":\"finished\",\"t\":1}\n");
    {
        TensorBoardWriter w((root / "ours/tb").string());
        w.addScalar("loss_d", 1.0f, 1, 1.0);
    }
    const auto runs = RunStatus::list(root.string());
    std::vector<std::string> names;
    for (const auto& r : runs) names.push_back(r.name);
    EXPECT_EQ(names, (std::vector<std::string>{"dcgan-msls", "ours", "tf2-a"}));  // RUNS/NAME/events/ is NAME
    const RunInfo& ref = runs[0];
    EXPECT_EQ(ref.state, "tensorboard");
    EXPECT_EQ(ref.step, 59 * 128);
    const auto& scalars = expected()["reference/dcgan-msls/events"]["scalars"];
    double lastG = 0, lastLr = 0;
    for (const auto& s : scalars) {
        if (s[1] == "G_loss") lastG = s[2].get<double>();
        if (s[1] == "lr/G") lastLr = s[2].get<double>();
    }
    EXPECT_EQ(ref.lossG, lastG);
    EXPECT_EQ(ref.scalars.at("lr/G"), lastLr);
    EXPECT_GT(ref.updated, 1.7e9);
    EXPECT_EQ(runs[1].state, "finished");
    // `ls --json` carries the scalars and reads them back.
    const auto back = RunStatus::listFromJson(RunStatus::listToJson(runs));
    EXPECT_EQ(back[0].scalars, ref.scalars);
    EXPECT_EQ(back[0].name, "dcgan-msls");
    // The cache gives the same, and reads only what a file gained.
    RunStatusCache cache;
    const auto cached = cache.list(root.string());
    ASSERT_EQ(cached.size(), 3u);
    EXPECT_EQ(cached[0].toJson(), ref.toJson());
    EXPECT_EQ(cache.list(root.string())[0].toJson(), ref.toJson());
    EXPECT_EQ(cache.lastBytesRead(), 0u);
}

// Where the reference (and other trainers) keep their torch.save files, oldest first: by the
// number ending the name (checkpoint_10 after checkpoint_2), names without one first by time.
TEST_F(TensorBoardFollowerTest, ARunsCheckpointsAreFoundBesideInsideAndInItsFolderOldestFirst) {
    const fs::path run = dir_ / "name/events";
    fs::create_directories(run / "checkpoints");
    fs::create_directories(dir_ / "name/checkpoints/sub.pt");  // a folder: not a checkpoint
    writeFile((run / "events.out.tfevents.1.host").string(), "");
    auto touch = [](const fs::path& p, int64_t mtime) {
        writeFile(p.string(), "x");
        fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::hours(24) + std::chrono::seconds(mtime));
    };
    touch(dir_ / "name/checkpoints/checkpoint_10.pt", 1);
    touch(dir_ / "name/checkpoints/checkpoint_2.pt", 2);
    touch(dir_ / "name/checkpoints/.checkpoint_11.pt", 3);  // hidden (a temporary of a save)
    touch(run / "checkpoints/last.pt", 20);
    touch(run / "model.pth", 10);
    touch(run / "notes.txt", 30);
    LocalEventFiles files;
    std::vector<std::string> paths;
    for (const auto& c : TensorBoardRun::checkpoints(files, run.string())) {
        paths.push_back(c.path);
        EXPECT_EQ(c.size, 1u) << c.path;
    }
    EXPECT_EQ(paths, (std::vector<std::string>{"./model.pth", "checkpoints/last.pt", "../checkpoints/checkpoint_2.pt", "../checkpoints/checkpoint_10.pt"}));
    // A run with none of those folders has none.
    EXPECT_TRUE(TensorBoardRun::checkpoints(files, (dir_ / "nowhere/events").string()).empty());
}

TEST_F(TensorBoardFollowerTest, AttachGivesTypedProtocolLinesThenTheLiveLine) {
    const std::string run = (kRuns / "reference/dcgan-msls/events").string();
    AttachFollower attach(run, 0);
    bool live = false;
    int metrics = 0;
    int64_t lastStep = -1;
    EventReader reader;
    // The last step is held back until the run is quiet (its tags may still be coming): wait for it.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while ((!live || lastStep != 59 * 128) && std::chrono::steady_clock::now() < deadline) {
        std::vector<nlohmann::json> lines;
        if (!attach.poll(lines)) attach.wait(std::chrono::milliseconds(50));
        for (const auto& j : lines) {
            const auto parsed = reader.readAttach(j.dump());
            ASSERT_TRUE(parsed.ok()) << j.dump();
            if (parsed.line.type == AttachLine::Type::Live) {
                live = true;
                EXPECT_EQ(parsed.line.state, "tensorboard");
            } else if (const auto* m = std::get_if<MetricsEvent>(&parsed.line.event)) {
                ++metrics;
                lastStep = *m->step;
            }
        }
    }
    EXPECT_TRUE(live);
    EXPECT_EQ(metrics, 60);
    EXPECT_EQ(lastStep, 59 * 128);
    EXPECT_FALSE(attach.ended());  // a TensorBoard run has no end line: its writer may go on
    EXPECT_EQ(uint64_t(attach.offset()), fs::file_size(eventFilesIn(run)[0]) + fs::file_size(eventFilesIn(run)[1]));
}

}  // namespace
}  // namespace streetgan::test::tensorboard
