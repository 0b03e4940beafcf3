// Exporters of the latent explorer: FrameRenderer, PNG sequences, MP4 (decoded back with
// libavformat), and `render` run in-process through TrainerCli: its PNG sequence equals
// FrameRenderer's frames exactly, its GIF has the frame count, delays and PSNR expected; cancel
// and unwritable paths leave nothing behind; the embedded demo session renders.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <gif_lib.h>
#include <torch/torch.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#if STREETGAN_TEST_WEBP
#include <webp/demux.h>
#endif
#if STREETGAN_WITH_MP4
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}
#endif

#include "base/latent/LatentSession.h"
#include "base/model/Presets.h"
#include "base/util/AtomicFile.h"
#include "base/util/BuildFeatures.h"
#include "base/util/ContentHash.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/ExportWriter.h"
#include "ml/export/FrameRenderer.h"
#include "ml/export/GifWriter.h"
#include "ml/export/Mp4Writer.h"
#include "ml/export/PngSequenceWriter.h"
#include "ml/export/SessionExporter.h"
#include "ml/latent/SessionLatents.h"
#include "support/TempDir.h"
#include "trainer/TrainerCli.h"

using namespace streetgan;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

namespace {

size_t entries(const fs::path& dir) { return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator())); }

// A tiny-32 checkpoint with random weights (G only), saved in `dir`.
std::string makeCheckpoint(const TempDir& dir) {
    torch::manual_seed(3);
    Generator g(Presets::get("tiny-32"));
    CheckpointData ck;
    ck.model = g->config();
    ck.generator = Checkpoint::stateOf(*g);
    const std::string path = dir / "ck.pt";
    Checkpoint::save(ck, path);
    return path;
}

LatentSession makeSession(const std::string& ck, int size = 48) {
    LatentSession s;
    s.checkpoint = ck;
    s.checkpointSha256 = ContentHash::sha256File(ck);
    s.keyframes = {{1, {}, std::nullopt}, {2, {}, std::nullopt}, {3, {}, std::nullopt}};
    s.framesPerSegment = 4;
    s.loop = true;
    s.size = size;
    s.frameDelayMs = 60;
    s.truncation = 0.8;
    s.directions = {{0, 1.0}};
    s.pcaSamples = 200;
    s.pcaComponents = 4;
    return s;
}

// The frames FrameRenderer gives for a session (what the app shows).
at::Tensor expectedFrames(const LatentSession& s, const std::string& ck) {
    const CheckpointData data = Checkpoint::load(ck);
    Generator g = ModelLoader::generator(data, ck, "", torch::kCPU);
    PcaDirections pca = PcaDirections::compute(g, SessionLatents::pcaOptions(s));
    FrameRenderer::Options o;
    o.size = s.size;
    o.upscale = s.upscale == LatentSession::Upscale::Nearest ? FrameRenderer::Upscale::Nearest : FrameRenderer::Upscale::Smooth;
    return FrameRenderer(g, o).render(SessionLatents::latents(s, g->config().nz, &pca));
}

int runCli(std::vector<std::string> args) {
    args.insert(args.begin(), "streetgan-trainer");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return TrainerCli::run(static_cast<int>(argv.size()), argv.data());
}

at::Tensor readPng(const std::string& path) {
    cv::Mat bgr = cv::imread(path, cv::IMREAD_COLOR), rgb;
    EXPECT_FALSE(bgr.empty()) << path;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return torch::from_blob(rgb.data, {rgb.rows, rgb.cols, 3}, torch::kUInt8).clone();
}

double psnr(const at::Tensor& a, const at::Tensor& b) {
    const double mse = (a.to(torch::kDouble) - b.to(torch::kDouble)).pow(2).mean().item<double>();
    return mse == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 / mse);
}

struct GifFrames {
    std::vector<at::Tensor> frames;
    std::vector<int> delaysCs;
};

GifFrames readGif(const std::string& path) {
    GifFrames out;
    int err = 0;
    GifFileType* gif = DGifOpenFileName(path.c_str(), &err);
    EXPECT_NE(gif, nullptr);
    if (!gif) return out;
    EXPECT_EQ(DGifSlurp(gif), GIF_OK);
    for (int i = 0; i < gif->ImageCount; ++i) {
        const SavedImage& img = gif->SavedImages[i];
        GraphicsControlBlock gcb;
        if (DGifSavedExtensionToGCB(gif, i, &gcb) == GIF_OK) out.delaysCs.push_back(gcb.DelayTime);
        const ColorMapObject* map = img.ImageDesc.ColorMap ? img.ImageDesc.ColorMap : gif->SColorMap;
        at::Tensor f = torch::zeros({gif->SHeight, gif->SWidth, 3}, torch::kUInt8);
        auto a = f.accessor<uint8_t, 3>();
        for (int y = 0; y < img.ImageDesc.Height; ++y)
            for (int x = 0; x < img.ImageDesc.Width; ++x) {
                const GifColorType c = map->Colors[img.RasterBits[y * img.ImageDesc.Width + x]];
                a[y][x][0] = c.Red;
                a[y][x][1] = c.Green;
                a[y][x][2] = c.Blue;
            }
        out.frames.push_back(f);
    }
    DGifCloseFile(gif, &err);
    return out;
}

at::Tensor gradientFrames(int n, int h, int w) {
    at::Tensor f = torch::empty({n, h, w, 3}, torch::kUInt8);
    auto a = f.accessor<uint8_t, 4>();
    for (int i = 0; i < n; ++i)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                a[i][y][x][0] = static_cast<uint8_t>((x * 255) / w);
                a[i][y][x][1] = static_cast<uint8_t>((y * 255) / h);
                a[i][y][x][2] = static_cast<uint8_t>((i * 40) % 256);
            }
    return f;
}

#if STREETGAN_TEST_WEBP
struct WebpFrames {
    std::vector<at::Tensor> frames;  ///< RGB, the canvas after each frame
    std::vector<int> durationsMs;
    uint32_t width = 0, height = 0, loopCount = 0;
};

// Decoded back with libwebpdemux's WebPAnimDecoder, as a browser would.
WebpFrames readWebp(const std::string& path) {
    WebpFrames out;
    const std::string bytes = AtomicFile::read(path);
    const WebPData data{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
    WebPAnimDecoderOptions o;
    EXPECT_TRUE(WebPAnimDecoderOptionsInit(&o));
    o.color_mode = MODE_RGBA;
    WebPAnimDecoder* dec = WebPAnimDecoderNew(&data, &o);
    EXPECT_NE(dec, nullptr) << path;
    if (!dec) return out;
    WebPAnimInfo info;
    EXPECT_TRUE(WebPAnimDecoderGetInfo(dec, &info));
    out.width = info.canvas_width;
    out.height = info.canvas_height;
    out.loopCount = info.loop_count;
    int previous = 0;
    while (WebPAnimDecoderHasMoreFrames(dec)) {
        uint8_t* rgba = nullptr;
        int timestamp = 0;  // the frame's end
        EXPECT_TRUE(WebPAnimDecoderGetNext(dec, &rgba, &timestamp));
        const int64_t h = info.canvas_height, w = info.canvas_width;
        out.frames.push_back(torch::from_blob(rgba, {h, w, 4}, torch::kUInt8).slice(2, 0, 3).clone());
        out.durationsMs.push_back(timestamp - previous);
        previous = timestamp;
    }
    WebPAnimDecoderDelete(dec);
    return out;
}
#endif

}  // namespace

TEST(FrameRenderer, MatchesGeneratorAndUpscales) {
    torch::manual_seed(1);
    Generator g(Presets::get("tiny-32"));
    g->eval();
    at::Tensor z = torch::randn({5, 64, 1, 1});
    FrameRenderer::Options o;
    o.size = 32;
    o.batch = 2;
    std::vector<int64_t> seen;
    const at::Tensor frames = FrameRenderer(g, o).render(z, [&](int64_t done, int64_t) { seen.push_back(done); });
    EXPECT_EQ(seen, (std::vector<int64_t>{2, 4, 5}));
    at::Tensor ref;
    {
        torch::NoGradGuard ng;
        ref = GifWriter::fromImages(g->forward(z));
    }
    EXPECT_TRUE(frames.equal(ref));
    o.size = 64;
    const at::Tensor big = FrameRenderer(g, o).render(z);
    EXPECT_EQ(big.sizes(), (std::vector<int64_t>{5, 64, 64, 3}));
    EXPECT_TRUE(big.slice(1, 0, 64, 2).slice(2, 0, 64, 2).equal(ref));  // nearest: 2x2 blocks
    EXPECT_TRUE(FrameRenderer(g, o).renderOne(z[3]).equal(big[3]));
    std::atomic<bool> cancel{true};
    EXPECT_THROW(FrameRenderer(g, o).render(z, {}, &cancel), RenderCancelled);
}

TEST(PngSequenceWriter, WritesExactFramesAtomically) {
    TempDir dir;
    const at::Tensor f = gradientFrames(3, 20, 24);
    PngSequenceWriter::write(f, dir / "seq");
    ASSERT_EQ(entries(dir.path() / "seq"), 3u);
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(readPng(dir / ("seq/" + PngSequenceWriter::fileName(i, 3))).equal(f[i]));
    EXPECT_EQ(PngSequenceWriter::fileName(7, 20000), "frame_00007.png");
    EXPECT_THROW(PngSequenceWriter::write(f, dir / "seq"), IoError);  // not empty: refused
    std::atomic<bool> cancel{false};
    EXPECT_THROW(PngSequenceWriter::write(
                     f, dir / "cancelled",
                     [&](int64_t d, int64_t) {
                         if (d == 2) cancel = true;
                     },
                     &cancel),
                 RenderCancelled);
    EXPECT_FALSE(fs::exists(dir / "cancelled"));
    EXPECT_EQ(entries(dir.path()), 1u);  // only "seq": no temporary folder left
    EXPECT_THROW(PngSequenceWriter::write(f, dir / "missing/seq"), IoError);
}

#if STREETGAN_WITH_MP4
TEST(Mp4Writer, DecodesBackWithLibavformat) {
    TempDir dir;
    const at::Tensor f = gradientFrames(10, 48, 64);
    Mp4Options o;
    o.frameDelayMs = 40;
    const Mp4Writer writer(o);
    EXPECT_TRUE(writer.encoderName() == "libx264" || writer.encoderName() == "mpeg4");
    const std::string path = dir / "walk.mp4";
    writer.write(f, path);
    AVFormatContext* fmt = nullptr;
    ASSERT_EQ(avformat_open_input(&fmt, path.c_str(), nullptr, nullptr), 0);
    ASSERT_GE(avformat_find_stream_info(fmt, nullptr), 0);
    const int vs = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    ASSERT_GE(vs, 0);
    AVStream* st = fmt->streams[vs];
    EXPECT_EQ(st->codecpar->width, 64);
    EXPECT_EQ(st->codecpar->height, 48);
    EXPECT_NEAR(av_q2d(st->avg_frame_rate), 25.0, 0.01);
    const AVCodec* dec = avcodec_find_decoder(st->codecpar->codec_id);
    AVCodecContext* ctx = avcodec_alloc_context3(dec);
    avcodec_parameters_to_context(ctx, st->codecpar);
    ASSERT_EQ(avcodec_open2(ctx, dec, nullptr), 0);
    AVPacket* pkt = av_packet_alloc();
    AVFrame* frame = av_frame_alloc();
    int decoded = 0;
    auto receive = [&] {
        while (avcodec_receive_frame(ctx, frame) == 0) {
            EXPECT_EQ(frame->width, 64);
            ++decoded;
        }
    };
    while (av_read_frame(fmt, pkt) >= 0) {
        if (pkt->stream_index == vs) {
            avcodec_send_packet(ctx, pkt);
            receive();
        }
        av_packet_unref(pkt);
    }
    avcodec_send_packet(ctx, nullptr);
    receive();
    EXPECT_EQ(decoded, 10);
    av_frame_free(&frame);
    av_packet_free(&pkt);
    avcodec_free_context(&ctx);
    avformat_close_input(&fmt);

    std::atomic<bool> cancel{false};
    EXPECT_THROW(writer.write(
                     f, dir / "c.mp4",
                     [&](int64_t d, int64_t) {
                         if (d == 3) cancel = true;
                     },
                     &cancel),
                 RenderCancelled);
    EXPECT_THROW(writer.write(gradientFrames(2, 33, 32), dir / "odd.mp4"), DataError);
    EXPECT_EQ(entries(dir.path()), 1u);  // walk.mp4 only
}

#endif

// The writers this build registered (the generated list of core/ml/CMakeLists.txt): one per row of
// ExportFormat that no build option leaves out, and MP4's exactly when the build has FFmpeg.
TEST(ExportWriter, EveryFormatThisBuildHasHasItsOneWriter) {
    std::vector<ExportFormat::Kind> expected;
    for (const ExportFormat::Spec& spec : ExportFormat::all()) {
        const ExportWriter* w = ExportWriter::find(spec.kind);
        if (*spec.option == 0) {
            EXPECT_NE(w, nullptr) << spec.name << " is in every build";
        }
        if (spec.kind == ExportFormat::Kind::Mp4) {
            EXPECT_EQ(w != nullptr, BuildFeatures::kMp4);
        }
        if (w) {
            EXPECT_EQ(w->kind, spec.kind) << spec.name;
            EXPECT_NE(w->write, nullptr) << spec.name;
            expected.push_back(spec.kind);
        }
    }
    EXPECT_EQ(ExportWriter::available(), expected);
}

// Animated WebP (issue 42's proof that a format is a row, its writer's file and a CMake line):
// through SessionExporter as `render` and the explorer's export call it, decoded back with
// libwebpdemux. A build without libwebp says so in one line naming STREETGAN_WITH_WEBP.
TEST(WebpExport, WritesTheSessionsDelayAndLoopsAndDecodesBack) {
    TempDir dir;
    const at::Tensor f = gradientFrames(10, 48, 64);
    LatentSession s;
    s.frameDelayMs = 45;  // WebP stores milliseconds: 45 stays 45 (a GIF would store 50)
    s.gifLoopCount = 3;
    const std::string out = dir / "walk.webp";
    if (!ExportWriter::find(ExportFormat::Kind::Webp)) {
        try {
            SessionExporter::checkOutput(s, out);
            ADD_FAILURE() << "no error for a WebP export in a build without libwebp";
        } catch (const ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find("STREETGAN_WITH_WEBP=OFF"), std::string::npos) << e.what();
        }
        return;
    }
#if STREETGAN_TEST_WEBP
    SessionExporter::checkOutput(s, out);
    std::vector<int64_t> seen;
    const SessionExporter::Result r = SessionExporter::write(f, s, out, [&](int64_t done, int64_t total) {
        EXPECT_EQ(total, 10);
        seen.push_back(done);
    });
    EXPECT_EQ(r.what, "WebP");
    EXPECT_EQ(r.frames, 10);
    EXPECT_EQ(r.bytes, fs::file_size(out));
    EXPECT_EQ(seen, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
    const WebpFrames w = readWebp(out);
    EXPECT_EQ(w.width, 64u);
    EXPECT_EQ(w.height, 48u);
    EXPECT_EQ(w.loopCount, 3u);
    ASSERT_EQ(w.frames.size(), 10u);
    for (size_t i = 0; i < 10; ++i) {
        EXPECT_EQ(w.durationsMs[i], 45) << i;
        EXPECT_GT(psnr(w.frames[i], f[static_cast<int64_t>(i)]), 30.0) << i;  // lossy at quality 90
    }

    // Identical frames in a row: libwebp shows one frame for their time together (A A B: A for
    // 90 ms, B for 45 ms), so the animation plays exactly as long as the frames given.
    s.gifLoopCount = 0;
    const at::Tensor held = at::stack({f[0], f[0], f[5]});
    SessionExporter::write(held, s, dir / "held.webp");
    const WebpFrames merged = readWebp(dir / "held.webp");
    EXPECT_EQ(merged.loopCount, 0u);  // forever
    EXPECT_EQ(merged.durationsMs, (std::vector<int>{90, 45}));
    fs::remove(dir / "held.webp");

    // Cancel: RenderCancelled, the existing file untouched, no temporary file left.
    std::atomic<bool> cancel{false};
    const auto before = fs::file_size(out);
    EXPECT_THROW(SessionExporter::write(
                     f, s, out,
                     [&](int64_t d, int64_t) {
                         if (d == 3) cancel = true;
                     },
                     &cancel),
                 RenderCancelled);
    EXPECT_EQ(fs::file_size(out), before);
    EXPECT_EQ(entries(dir.path()), 1u);

    // Unusable outputs and sessions are one line each, before anything is rendered.
    try {
        SessionExporter::checkOutput(s, dir / "missing/w.webp");
        ADD_FAILURE() << "no error for a missing folder";
    } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
    }
    s.frameDelayMs = 0;
    try {
        SessionExporter::checkOutput(s, out);
        ADD_FAILURE() << "no error for a zero frame delay";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("'frame_delay_ms'"), std::string::npos) << e.what();
    }
    s.frameDelayMs = 45;
    EXPECT_THROW(SessionExporter::write(f.to(torch::kFloat), s, out), DataError);
    EXPECT_THROW(SessionExporter::write(torch::zeros({1, 16384, 2, 3}, torch::kUInt8), s, out), DataError);
    EXPECT_EQ(fs::file_size(out), before);
#endif
}

TEST(RenderCommand, OutputsEqualFrameRendererFrames) {
    TempDir dir;
    setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
    const std::string ck = makeCheckpoint(dir);
    const LatentSession s = makeSession(ck);
    s.write(dir / "walk.json");
    const at::Tensor expected = expectedFrames(s, ck);
    ASSERT_EQ(expected.size(0), 12);

    ASSERT_EQ(runCli({"render", "--session", dir / "walk.json", "--out", dir / "seq"}), 0);
    ASSERT_EQ(entries(dir.path() / "seq"), 12u);
    for (int i = 0; i < 12; ++i) EXPECT_TRUE(readPng(dir / ("seq/" + PngSequenceWriter::fileName(i, 12))).equal(expected[i])) << i;

    ASSERT_EQ(runCli({"render", "--session", dir / "walk.json", "--out", dir / "walk.gif"}), 0);
    const GifFrames gif = readGif(dir / "walk.gif");
    ASSERT_EQ(gif.frames.size(), 12u);
    double mean = 0;
    for (int i = 0; i < 12; ++i) {
        EXPECT_EQ(gif.delaysCs[static_cast<size_t>(i)], 6);
        mean += psnr(gif.frames[static_cast<size_t>(i)], expected[i]) / 12;
    }
    EXPECT_GT(mean, 28.0);

    ASSERT_EQ(runCli({"render", "--session", dir / "walk.json", "--out", dir / "grid.png"}), 0);
    const at::Tensor grid = readPng(dir / "grid.png");
    EXPECT_EQ(grid.size(0), 2 * (48 + 2) + 2);
    EXPECT_EQ(grid.size(1), 8 * (48 + 2) + 2);
    EXPECT_TRUE(grid.slice(0, 2, 50).slice(1, 2, 50).equal(expected[0]));

#if STREETGAN_TEST_WEBP
    if (ExportWriter::find(ExportFormat::Kind::Webp)) {
        ASSERT_EQ(runCli({"render", "--session", dir / "walk.json", "--out", dir / "walk.webp"}), 0);
        // libwebp merges identical consecutive frames (this random tiny generator's walk has
        // some): each decoded frame is the rendered frame at its start time, and the walk plays
        // 12 x 60 ms; a walk of one image throughout is a still WebP (no timing to keep).
        const WebpFrames webp = readWebp(dir / "walk.webp");
        ASSERT_FALSE(webp.frames.empty());
        int startMs = 0;
        for (size_t i = 0; i < webp.frames.size(); ++i) {
            if (webp.frames.size() > 1) {
                EXPECT_EQ(webp.durationsMs[i] % 60, 0) << i;
            }
            EXPECT_GT(psnr(webp.frames[i], expected[startMs / 60]), 28.0) << i;
            startMs += webp.durationsMs[i];
        }
        if (webp.frames.size() > 1) {
            EXPECT_EQ(startMs, 12 * 60);
        }
    }
#endif
    if (BuildFeatures::kMp4) {
        ASSERT_EQ(runCli({"render", "--session", dir / "walk.json", "--out", dir / "walk.mp4"}), 0);
        EXPECT_GT(fs::file_size(dir / "walk.mp4"), 100u);
    } else {  // a trainer built without FFmpeg (the GPU bundle) says so before rendering
        EXPECT_EQ(runCli({"render", "--session", dir / "walk.json", "--out", dir / "walk.mp4"}), static_cast<int>(ExitCode::Config));
        EXPECT_FALSE(fs::exists(dir / "walk.mp4"));
    }
    EXPECT_TRUE(fs::is_directory(dir / "cache"));  // PCA directions cached per checkpoint hash
}

TEST(RenderCommand, RefusesBadOutputsBeforeRendering) {
    TempDir dir;
    setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
    const std::string ck = makeCheckpoint(dir);
    LatentSession s = makeSession(ck);
    s.directions.clear();
    s.write(dir / "walk.json");
    EXPECT_EQ(runCli({"render", "--session", dir / "walk.json", "--out", dir / "no/such/dir/x.gif"}), static_cast<int>(ExitCode::Io));
    fs::create_directory(dir / "ro");
    ::chmod((dir / "ro").c_str(), 0555);
    if (::geteuid() != 0 || ::access((dir / "ro").c_str(), W_OK) != 0) {
        EXPECT_EQ(runCli({"render", "--session", dir / "walk.json", "--out", dir / "ro/x.gif"}), static_cast<int>(ExitCode::Io));
        EXPECT_EQ(entries(dir.path() / "ro"), 0u);
    }
    EXPECT_EQ(runCli({"render", "--session", dir / "walk.json", "--out", dir / "x.jpg"}), static_cast<int>(ExitCode::Config));
    s.size = 47;
    s.write(dir / "odd.json");
    EXPECT_EQ(runCli({"render", "--session", dir / "odd.json", "--out", dir / "x.mp4"}), static_cast<int>(ExitCode::Config));
    EXPECT_FALSE(fs::exists(dir / "x.mp4"));
}

TEST(RenderCommand, DemoSessionRendersToGif) {
    TempDir dir;
    setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
    const std::string session = std::string(STREETGAN_DEMO_DIR) + "/walk.json";
    ASSERT_TRUE(fs::exists(session));
    const LatentSession s = LatentSession::read(session);
    EXPECT_EQ(s.hashWarning("demo", ContentHash::sha256File(s.resolveCheckpoint(session))), "");
    EXPECT_LT(fs::file_size(s.resolveCheckpoint(session)), 10u * 1024 * 1024);  // issue 17: the demo is at most ~10 MB
    ASSERT_EQ(runCli({"render", "--session", session, "--out", dir / "demo.gif"}), 0);
    const GifFrames gif = readGif(dir / "demo.gif");
    EXPECT_EQ(static_cast<int64_t>(gif.frames.size()), s.frameCount());
    ASSERT_FALSE(gif.frames.empty());
    EXPECT_EQ(gif.frames[0].size(0), s.size);
}
