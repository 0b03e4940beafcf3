// The explore worker in-process over two pipes (the framing the app's RenderClient reads): every
// op's happy path on the demo checkpoint; `frames` equal to FrameRenderer on LatentSession::latents
// (whole walk and a slice); payload sizes; t ranges past the keyframes (the reference walk);
// malformed lines answered with ok=false while the worker carries on; cancelling a running export
// or a queued request leaves nothing behind; broken and unsupported checkpoints give one line
// naming the file; quit ends the worker during an export.
#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/latent/LatentSession.h"
#include "base/util/BuildFeatures.h"
#include "base/util/ContentHash.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/explore/ExploreWorker.h"
#include "ml/export/FrameRenderer.h"
#include "ml/export/SessionExporter.h"
#include "ml/latent/LatentSeed.h"
#include "ml/latent/SessionLatents.h"
#include "support/TempDir.h"

#ifndef STREETGAN_PYTHON
#define STREETGAN_PYTHON "/usr/bin/python3"
#endif

using namespace streetgan;
using nlohmann::json;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kDemo = STREETGAN_DEMO_DIR;
const std::string kCk = kDemo + "/tiny-32-synthetic.pt";

struct Reply {
    json header;
    std::string payload;
};

// An ExploreWorker on its own thread, fed and read through pipes like the real child process.
class Harness {
public:
    explicit Harness(const std::string& pcaCacheDir) {
        ::signal(SIGPIPE, SIG_IGN);
        if (::pipe(in_) != 0 || ::pipe(out_) != 0) throw std::runtime_error("pipe");
        ExploreWorker::Options o;
        o.device = "cpu";
        o.pcaCacheDir = pcaCacheDir;
        worker_ = std::make_unique<ExploreWorker>(in_[0], out_[1], o);
        thread_ = std::thread([this] { rc_ = worker_->run(); });
    }
    ~Harness() {
        closeInput();
        // Drain replies so a worker blocked on a full pipe can finish.
        std::thread drain([this] {
            char buf[65536];
            while (::read(out_[0], buf, sizeof buf) > 0) {}
        });
        thread_.join();
        ::close(out_[1]);
        drain.join();
        ::close(in_[0]);
        ::close(out_[0]);
    }
    void closeInput() {
        if (in_[1] >= 0) ::close(in_[1]);
        in_[1] = -1;
    }
    void sendRaw(const std::string& line) { ASSERT_EQ(::write(in_[1], line.data(), line.size()), static_cast<ssize_t>(line.size())); }
    void send(const json& j) { sendRaw(j.dump() + "\n"); }

    // The next header (and its payload); fails the test after `seconds`.
    Reply next(double seconds = 60) {
        Reply r;
        std::string line;
        for (;;) {
            char c;
            if (!readExact(&c, 1, seconds)) {
                ADD_FAILURE() << "no reply within " << seconds << " s";
                return r;
            }
            if (c == '\n') break;
            line += c;
        }
        r.header = json::parse(line);
        const int64_t bytes = r.header.value("bytes", int64_t{0});
        r.payload.resize(static_cast<size_t>(bytes));
        if (bytes > 0 && !readExact(r.payload.data(), r.payload.size(), seconds)) ADD_FAILURE() << "payload truncated";
        return r;
    }
    // The final reply of `id`; progress headers of it are counted, other replies kept in `others`.
    Reply finalOf(int64_t id, double seconds = 60) {
        for (;;) {
            Reply r = next(seconds);
            if (r.header.is_null()) return r;
            if (r.header.value("id", int64_t{-99}) == id && r.header.contains("progress")) {
                ++progress;
                continue;
            }
            if (r.header.value("id", int64_t{-99}) == id) return r;
            others.push_back(r);
        }
    }
    Reply call(json j) {
        const int64_t id = j["id"];
        send(j);
        return finalOf(id);
    }
    int join() {
        thread_.join();
        thread_ = std::thread([] {});
        return rc_;
    }

    int progress = 0;
    std::vector<Reply> others;

private:
    bool readExact(char* dst, size_t n, double seconds) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (n > 0) {
            pollfd p{out_[0], POLLIN, 0};
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
            if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) return false;
            const ssize_t got = ::read(out_[0], dst, n);
            if (got <= 0) return false;
            dst += got;
            n -= static_cast<size_t>(got);
        }
        return true;
    }
    int in_[2]{-1, -1}, out_[2]{-1, -1};
    std::unique_ptr<ExploreWorker> worker_;
    std::thread thread_;
    int rc_ = -1;
};

// The demo session, smaller (12 frames of 64 px) so the tests stay fast.
json demoSession(json patch = json::object()) {
    std::ifstream in(kDemo + "/tiny-32-walk.json");
    json j = json::parse(in);
    j["checkpoint"] = kCk;
    j["frames_per_segment"] = 3;
    j["size"] = 64;
    j.merge_patch(patch);
    return j;
}

at::Tensor asTensor(const Reply& r) {
    const int64_t n = r.header["frames"], h = r.header["height"], w = r.header["width"];
    return torch::from_blob(const_cast<char*>(r.payload.data()), {n, h, w, 3}, torch::kUInt8).clone();
}

at::Tensor referenceFrames(const json& session) {
    const CheckpointData ck = Checkpoint::load(kCk);
    const Generator g = ModelLoader::generator(ck, kCk, "", torch::kCPU);
    const LatentSession s = LatentSession::fromJson(session);
    return FrameRenderer(g, SessionExporter::rendererOptions(s)).render(SessionLatents::latents(s, g->config().nz, nullptr));
}

size_t entries(const fs::path& dir) { return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator())); }

class ExploreWorkerTest : public ::testing::Test {
protected:
    TempDir dir;
    Harness w{dir / "pca"};
};

}  // namespace

TEST_F(ExploreWorkerTest, OpenDescribesTheCheckpoint) {
    const Reply r = w.call({{"id", 1}, {"op", "open"}, {"checkpoint", kCk}});
    ASSERT_TRUE(r.header["ok"].get<bool>()) << r.header;
    EXPECT_EQ(r.header["preset"], "tiny-32");
    EXPECT_EQ(r.header["img_size"], 32);
    EXPECT_EQ(r.header["sha256"], ContentHash::sha256File(kCk));
    EXPECT_EQ(r.header["sha256"], demoSession()["checkpoint_sha256"]);
    EXPECT_EQ(r.header["device"], "cpu");
    EXPECT_FALSE(r.header["reference"].get<bool>());
    EXPECT_GT(r.header["g_params"].get<int64_t>(), 0);
    EXPECT_TRUE(r.header.contains("nz") && r.header.contains("epoch") && r.header.contains("step") && r.header.contains("fixed_noise"));
    EXPECT_FALSE(r.header.contains("bytes"));
}

TEST_F(ExploreWorkerTest, FramesAreFrameRendererOnTheSessionLatents) {
    const json s = demoSession();
    const at::Tensor ref = referenceFrames(s);
    ASSERT_EQ(ref.size(0), 12);
    const Reply all = w.call({{"id", 1}, {"op", "frames"}, {"checkpoint", kCk}, {"session", s}});
    ASSERT_TRUE(all.header["ok"].get<bool>()) << all.header;
    EXPECT_EQ(all.header["frame_count"], 12);
    EXPECT_EQ(all.header["frames"], 12);
    EXPECT_EQ(all.header["width"], 64);
    EXPECT_EQ(all.header["height"], 64);
    EXPECT_EQ(all.header["bytes"], 12 * 64 * 64 * 3);
    EXPECT_EQ(all.payload.size(), 12u * 64 * 64 * 3);
    EXPECT_TRUE(torch::equal(asTensor(all), ref));
    EXPECT_TRUE(all.header["ms"].is_number());

    // A slice is rendered on its own (other batch composition): still the same bytes.
    const Reply part = w.call({{"id", 2}, {"op", "frames"}, {"checkpoint", kCk}, {"session", s}, {"from", 5}, {"count", 3}});
    ASSERT_TRUE(part.header["ok"].get<bool>()) << part.header;
    EXPECT_EQ(part.header["frames"], 3);
    EXPECT_TRUE(torch::equal(asTensor(part), ref.narrow(0, 5, 3)));

    // grid: one image, 8 columns of 64 px with 2 px padding, 2 rows.
    const Reply grid = w.call({{"id", 3}, {"op", "frames"}, {"checkpoint", kCk}, {"session", s}, {"grid", true}});
    ASSERT_TRUE(grid.header["ok"].get<bool>()) << grid.header;
    EXPECT_EQ(grid.header["frames"], 1);
    EXPECT_EQ(grid.header["width"], 8 * 66 + 2);
    EXPECT_EQ(grid.header["height"], 2 * 66 + 2);
    EXPECT_EQ(grid.payload.size(), size_t{(8 * 66 + 2) * (2 * 66 + 2) * 3});

    const Reply outOfRange = w.call({{"id", 4}, {"op", "frames"}, {"checkpoint", kCk}, {"session", s}, {"from", 12}});
    EXPECT_FALSE(outOfRange.header["ok"].get<bool>());
    EXPECT_NE(outOfRange.header["error"].get<std::string>().find("'from'"), std::string::npos) << outOfRange.header;
}

TEST_F(ExploreWorkerTest, LatentsFromSeedsZAndTruncation) {
    const Reply seeds = w.call({{"id", 1}, {"op", "latents"}, {"checkpoint", kCk}, {"seeds", {2, 20}}, {"size", 48}});
    ASSERT_TRUE(seeds.header["ok"].get<bool>()) << seeds.header;
    EXPECT_EQ(seeds.header["frames"], 2);
    EXPECT_EQ(seeds.header["width"], 48);
    EXPECT_EQ(seeds.payload.size(), 2u * 48 * 48 * 3);

    // seed-z gives the vectors; feeding them back as z renders the same bytes.
    const Reply z = w.call({{"id", 2}, {"op", "seed-z"}, {"seeds", {2, 20}}, {"nz", w.call({{"id", 3}, {"op", "open"}, {"checkpoint", kCk}}).header["nz"]}});
    ASSERT_TRUE(z.header["ok"].get<bool>()) << z.header;
    const int64_t nz = z.header["z"][0].size();
    const at::Tensor expect = LatentSeed::draw(2, nz);
    for (int64_t k = 0; k < nz; ++k) ASSERT_EQ(z.header["z"][0][static_cast<size_t>(k)].get<float>(), expect[k].item<float>());
    const Reply fromZ = w.call({{"id", 4}, {"op", "latents"}, {"checkpoint", kCk}, {"z", z.header["z"]}, {"size", 48}});
    ASSERT_TRUE(fromZ.header["ok"].get<bool>()) << fromZ.header;
    EXPECT_EQ(fromZ.payload, seeds.payload);

    const Reply truncated = w.call({{"id", 5}, {"op", "latents"}, {"checkpoint", kCk}, {"seeds", {2, 20}}, {"size", 48}, {"truncation", 0.0}});
    ASSERT_TRUE(truncated.header["ok"].get<bool>()) << truncated.header;
    EXPECT_NE(truncated.payload, seeds.payload);
    EXPECT_EQ(truncated.payload.substr(0, 48 * 48 * 3), truncated.payload.substr(48 * 48 * 3));  // psi 0: both are G(0)

    const Reply grid = w.call({{"id", 6}, {"op", "latents"}, {"checkpoint", kCk}, {"seeds", {1, 2, 3}}, {"grid", {{"nrow", 2}, {"padding", 1}}}});
    ASSERT_TRUE(grid.header["ok"].get<bool>()) << grid.header;
    EXPECT_EQ(grid.header["frames"], 1);
    EXPECT_EQ(grid.header["width"], 2 * 33 + 1);
    EXPECT_EQ(grid.header["height"], 2 * 33 + 1);

    const Reply both = w.call({{"id", 7}, {"op", "latents"}, {"checkpoint", kCk}, {"seeds", {1}}, {"z", z.header["z"]}});
    EXPECT_FALSE(both.header["ok"].get<bool>());
    const Reply shortZ = w.call({{"id", 8}, {"op", "latents"}, {"checkpoint", kCk}, {"z", {{0.5, 1.0}}}});
    EXPECT_FALSE(shortZ.header["ok"].get<bool>());
    EXPECT_NE(shortZ.header["error"].get<std::string>().find("nz="), std::string::npos) << shortZ.header;
}

TEST_F(ExploreWorkerTest, PcaAndSessionWithDirections) {
    const Reply p = w.call({{"id", 1}, {"op", "pca"}, {"checkpoint", kCk}, {"components", 3}, {"samples", 300}});
    ASSERT_TRUE(p.header["ok"].get<bool>()) << p.header;
    EXPECT_EQ(p.header["components"], 3);
    ASSERT_EQ(p.header["sigma"].size(), 3u);
    for (const json& s : p.header["sigma"]) EXPECT_GT(s.get<double>(), 0.0);
    EXPECT_EQ(entries(dir / "pca"), 1u);  // cached per checkpoint hash

    const json s = demoSession({{"directions", {{{"index", 0}, {"amount", 3.0}}}}, {"pca_components", 3}, {"pca_samples", 300}});
    const Reply edited = w.call({{"id", 2}, {"op", "frames"}, {"checkpoint", kCk}, {"session", s}, {"count", 2}});
    ASSERT_TRUE(edited.header["ok"].get<bool>()) << edited.header;
    const Reply plain = w.call({{"id", 3}, {"op", "frames"}, {"checkpoint", kCk}, {"session", demoSession()}, {"count", 2}});
    EXPECT_NE(edited.payload, plain.payload);
}

TEST_F(ExploreWorkerTest, ExportWritesEveryKindWithProgress) {
    const json s = demoSession();
    const Reply frames = w.call({{"id", 100}, {"op", "frames"}, {"checkpoint", kCk}, {"session", s}, {"grid", true}});
    int64_t id = 1;
    for (const std::string name : {"walk.gif", "grid.png", "walk.mp4", "frames"}) {
        w.progress = 0;
        const Reply r = w.call({{"id", id++}, {"op", "export"}, {"checkpoint", kCk}, {"session", s}, {"out", dir / name}});
        if (name == "walk.mp4" && !BuildFeatures::kMp4) {  // the `cuda` preset's lean build: refused by name
            EXPECT_FALSE(r.header["ok"].get<bool>()) << r.header;
            EXPECT_NE(r.header.value("error", "").find("STREETGAN_WITH_MP4=OFF"), std::string::npos) << r.header;
            EXPECT_FALSE(fs::exists(dir / name));
            continue;
        }
        ASSERT_TRUE(r.header["ok"].get<bool>()) << name << ": " << r.header;
        EXPECT_EQ(r.header["out"], dir / name);
        EXPECT_EQ(r.header["frames"], 12);
        EXPECT_GT(r.header["file_bytes"].get<int64_t>(), 0);
        EXPECT_FALSE(r.header.contains("bytes"));  // "bytes" is the framing key: no payload here
        EXPECT_GE(w.progress, 1) << name;
        EXPECT_FALSE(r.header.contains("warning"));
        if (name != "frames") {
            EXPECT_EQ(r.header["file_bytes"].get<uintmax_t>(), fs::file_size(dir / name));
        }
    }
    EXPECT_EQ(entries(dir / "frames"), 12u);
    // The exported PNG grid holds the pixels of the `frames` grid.
    cv::Mat png = cv::imread(dir / "grid.png", cv::IMREAD_COLOR);
    cv::cvtColor(png, png, cv::COLOR_BGR2RGB);
    ASSERT_EQ(png.total() * 3, frames.payload.size());
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(png.data), png.total() * 3), frames.payload);

    const Reply odd = w.call({{"id", 60}, {"op", "export"}, {"checkpoint", kCk}, {"session", demoSession({{"size", 63}})}, {"out", dir / "odd.mp4"}});
    EXPECT_FALSE(odd.header["ok"].get<bool>());
    // An MP4 of an odd size is refused for its size; a build without MP4 refuses any MP4.
    EXPECT_NE(odd.header["error"].get<std::string>().find(BuildFeatures::kMp4 ? "'size'" : "STREETGAN_WITH_MP4=OFF"), std::string::npos) << odd.header;
    EXPECT_FALSE(fs::exists(dir / "odd.mp4"));
}

TEST_F(ExploreWorkerTest, EvolutionGridsAndGif) {
    const Reply grids = w.call({{"id", 1}, {"op", "evolution"}, {"checkpoints", {kCk, kCk}}, {"seeds", {1, 2, 3}}, {"nrow", 3}});
    ASSERT_TRUE(grids.header["ok"].get<bool>()) << grids.header;
    EXPECT_EQ(grids.header["frames"], 2);
    EXPECT_EQ(grids.header["width"], 3 * 34 + 2);
    EXPECT_EQ(grids.payload.substr(0, grids.payload.size() / 2), grids.payload.substr(grids.payload.size() / 2));  // same z, same checkpoint
    EXPECT_GE(w.progress, 1);
    const Reply gif = w.call({{"id", 2}, {"op", "evolution"}, {"checkpoints", {kCk, kCk}}, {"seeds", {1, 2}}, {"out", dir / "evo.gif"}});
    ASSERT_TRUE(gif.header["ok"].get<bool>()) << gif.header;
    EXPECT_EQ(gif.header["frames"], 2);
    EXPECT_EQ(gif.header["file_bytes"].get<uintmax_t>(), fs::file_size(dir / "evo.gif"));
}

TEST_F(ExploreWorkerTest, SessionIsValidatedWithDefaults) {
    const json keyframes = json::array({json{{"seed", 1}}, json{{"seed", 2}}});
    const Reply ok = w.call({{"id", 1}, {"op", "session"}, {"session", json{{"keyframes", keyframes}}}});
    ASSERT_TRUE(ok.header["ok"].get<bool>()) << ok.header;
    EXPECT_EQ(ok.header["frame_count"], 16);
    EXPECT_EQ(ok.header["session"]["size"], 128);
    EXPECT_EQ(ok.header["session"]["upscale"], "nearest");
    const Reply bad = w.call({{"id", 2}, {"op", "session"}, {"session", demoSession({{"frames_per_segment", 0}})}});
    EXPECT_FALSE(bad.header["ok"].get<bool>());
    EXPECT_NE(bad.header["error"].get<std::string>().find("frames_per_segment"), std::string::npos) << bad.header;
}

TEST_F(ExploreWorkerTest, TRangeWalksExtrapolateInFramesAndSession) {
    // The reference project's walk (t 0..8, 16 frames, no loop) through `session` and `frames`.
    const json s = demoSession({{"keyframes", json::parse(R"([{"seed": 2}, {"seed": 20}])")},
                                {"t_range", {0, 8}},
                                {"frames_per_segment", 15},
                                {"loop", false},
                                {"easing", "linear"},
                                {"size", 32}});
    const Reply v = w.call({{"id", 1}, {"op", "session"}, {"session", s}});
    ASSERT_TRUE(v.header["ok"].get<bool>()) << v.header;
    EXPECT_EQ(v.header["frame_count"], 16);
    EXPECT_EQ(v.header["session"]["t_range"], json::parse("[0.0, 8.0]"));
    const Reply f = w.call({{"id", 2}, {"op", "frames"}, {"checkpoint", kCk}, {"session", s}});
    ASSERT_TRUE(f.header["ok"].get<bool>()) << f.header;
    EXPECT_EQ(f.header["frames"], 16);
    const at::Tensor frames = asTensor(f);
    EXPECT_TRUE(torch::equal(frames, referenceFrames(s)));
    // The last frame is t = 8, not keyframe 2 (t = 1, the default range's last frame).
    json d = s;
    d.erase("t_range");
    EXPECT_FALSE(torch::equal(frames[15], referenceFrames(d)[15]));
    EXPECT_TRUE(torch::equal(frames[0], referenceFrames(d)[0]));
    // Without a range the validated session has no t_range key (files stay as they were).
    const Reply plain = w.call({{"id", 3}, {"op", "session"}, {"session", d}});
    ASSERT_TRUE(plain.header["ok"].get<bool>()) << plain.header;
    EXPECT_FALSE(plain.header["session"].contains("t_range"));
    const Reply bad = w.call({{"id", 4}, {"op", "session"}, {"session", demoSession({{"t_range", {0, "8"}}})}});
    EXPECT_FALSE(bad.header["ok"].get<bool>());
    EXPECT_NE(bad.header["error"].get<std::string>().find("'t_range'"), std::string::npos) << bad.header;
}

TEST_F(ExploreWorkerTest, MalformedLinesAreAnsweredAndTheWorkerCarriesOn) {
    w.sendRaw("this is not json\n");
    Reply r = w.next();
    EXPECT_EQ(r.header["id"], -1);
    EXPECT_FALSE(r.header["ok"].get<bool>());
    EXPECT_NE(r.header["error"].get<std::string>().find("not JSON"), std::string::npos);
    w.sendRaw("{\"op\":\"open\"}\n");
    r = w.next();
    EXPECT_EQ(r.header["id"], -1);
    EXPECT_NE(r.header["error"].get<std::string>().find("'id'"), std::string::npos);
    for (const json& req : {json{{"id", 5}}, json{{"id", 6}, {"op", "bogus"}}, json{{"id", 7}, {"op", "open"}},
                            json{{"id", 8}, {"op", "frames"}, {"checkpoint", kCk}, {"session", demoSession({{"size", "big"}})}},
                            json{{"id", 9}, {"op", "latents"}, {"checkpoint", kCk}, {"seeds", {-1}}}}) {
        r = w.call(req);
        EXPECT_FALSE(r.header["ok"].get<bool>()) << req;
        const std::string e = r.header["error"];
        EXPECT_EQ(e.find('\n'), std::string::npos);
        EXPECT_FALSE(e.empty());
    }
    EXPECT_NE(w.call({{"id", 10}, {"op", "frames"}, {"checkpoint", kCk}, {"session", demoSession({{"size", "big"}})}})
                  .header["error"]
                  .get<std::string>()
                  .find("'size'"),
              std::string::npos);
    // Two requests in one write, the second split across writes: both answered, in order.
    w.sendRaw(json{{"id", 11}, {"op", "seed-z"}, {"seeds", {1}}, {"nz", 4}}.dump() + "\n{\"id\":12,\"op\":\"se");
    w.sendRaw("ed-z\",\"seeds\":[2],\"nz\":4}\n");
    EXPECT_EQ(w.next().header["id"], 11);
    r = w.next();
    EXPECT_EQ(r.header["id"], 12);
    EXPECT_TRUE(r.header["ok"].get<bool>());
    w.send({{"id", 13}, {"op", "quit"}});
    EXPECT_EQ(w.join(), 0);
}

TEST_F(ExploreWorkerTest, BrokenAndUnsupportedCheckpointsNameTheFile) {
    const std::string broken = dir / "broken.pt";
    std::ofstream(broken) << "not a checkpoint";
    Reply r = w.call({{"id", 1}, {"op", "open"}, {"checkpoint", broken}});
    EXPECT_FALSE(r.header["ok"].get<bool>());
    EXPECT_NE(r.header["error"].get<std::string>().find(broken), std::string::npos) << r.header;
    EXPECT_EQ(r.header["error"].get<std::string>().find('\n'), std::string::npos);

    const std::string odd = dir / "mlp.pt";
    const std::string cmd = std::string(STREETGAN_PYTHON) +
                            " -c \"import torch; torch.save({'epoch': 1, 'G_state_dict': {'fc.weight': torch.zeros(4, 4)}, "
                            "'D_state_dict': {}}, '" +
                            odd + "')\"";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    r = w.call({{"id", 2}, {"op", "frames"}, {"checkpoint", odd}, {"session", demoSession()}});
    EXPECT_FALSE(r.header["ok"].get<bool>());
    const std::string e = r.header["error"];
    EXPECT_NE(e.find(odd), std::string::npos) << e;
    EXPECT_NE(e.find("architecture"), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos);

    r = w.call({{"id", 3}, {"op", "open"}, {"checkpoint", dir / "missing.pt"}});
    EXPECT_FALSE(r.header["ok"].get<bool>());
    EXPECT_NE(r.header["error"].get<std::string>().find("missing.pt"), std::string::npos);
    EXPECT_TRUE(w.call({{"id", 4}, {"op", "open"}, {"checkpoint", kCk}}).header["ok"].get<bool>());
}

TEST_F(ExploreWorkerTest, CancelLeavesNothingBehind) {
    // A long export (1000 frames of 256 px, GIF) cancelled once it reports progress; a request
    // queued behind it is cancelled before it runs.
    fs::create_directory(dir / "out");
    const json longSession = demoSession({{"frames_per_segment", 250}, {"size", 256}});
    w.send({{"id", 1}, {"op", "export"}, {"checkpoint", kCk}, {"session", longSession}, {"out", dir / "out/long.gif"}});
    w.send({{"id", 2}, {"op", "frames"}, {"checkpoint", kCk}, {"session", longSession}});
    Reply r = w.next();
    ASSERT_EQ(r.header["id"], 1);
    ASSERT_TRUE(r.header.contains("progress")) << r.header;
    w.send({{"id", 3}, {"op", "cancel"}, {"target", 2}});
    w.send({{"id", 4}, {"op", "cancel"}, {"target", 1}});
    const Reply one = w.finalOf(1);
    EXPECT_FALSE(one.header["ok"].get<bool>());
    EXPECT_TRUE(one.header.value("cancelled", false)) << one.header;
    const Reply two = w.finalOf(2);
    EXPECT_TRUE(two.header.value("cancelled", false)) << two.header;
    EXPECT_EQ(two.payload.size(), 0u);
    int cancelReplies = 0;
    for (const Reply& o : w.others)
        if (o.header["id"] == 3 || o.header["id"] == 4) cancelReplies += o.header["ok"].get<bool>() && o.header["found"].get<bool>();
    EXPECT_EQ(cancelReplies, 2);
    EXPECT_EQ(entries(dir / "out"), 0u);
    // The worker carries on.
    EXPECT_TRUE(w.call({{"id", 5}, {"op", "frames"}, {"checkpoint", kCk}, {"session", demoSession()}, {"count", 1}}).header["ok"].get<bool>());
}

TEST_F(ExploreWorkerTest, QuitStopsARunningExport) {
    fs::create_directory(dir / "out");
    w.send({{"id", 1},
            {"op", "export"},
            {"checkpoint", kCk},
            {"session", demoSession({{"frames_per_segment", 250}, {"size", 256}})},
            {"out", dir / "out/frames"}});
    ASSERT_TRUE(w.next().header.contains("progress"));
    w.send({{"id", 2}, {"op", "quit"}});
    // Reported cancelled (a finished export says so), nothing left behind, and the worker exits:
    // no time bound is needed to tell a stopped export from a finished one.
    EXPECT_TRUE(w.finalOf(1).header.value("cancelled", false));
    EXPECT_EQ(w.join(), 0);
    EXPECT_EQ(entries(dir / "out"), 0u);
}

TEST_F(ExploreWorkerTest, EofFinishesQueuedRequests) {
    w.send({{"id", 1}, {"op", "frames"}, {"checkpoint", kCk}, {"session", demoSession()}, {"count", 2}});
    w.closeInput();
    const Reply r = w.finalOf(1);
    EXPECT_TRUE(r.header["ok"].get<bool>()) << r.header;
    EXPECT_EQ(r.payload.size(), 2u * 64 * 64 * 3);
    EXPECT_EQ(w.join(), 0);
}
