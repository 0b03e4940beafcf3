// The reference API's behaviour for its clients, in-process (GalleryFixture.h): unknown query
// parameters are ignored (cache-busters), bare /gan_gifs walks t = linspace(0, 8, 16) with each
// frame normalised on its own, CORS headers on every answer (restricted or off by option) and
// preflights. The same against the reference's own code: tests/app/trainer/ServeReferenceTest.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <vector>

#include <httplib.h>
#include <torch/torch.h>

#include "GalleryFixture.h"
#include "GalleryTestSupport.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/ImageGrid.h"
#include "ml/latent/LatentSeed.h"
#include "ml/latent/Slerp.h"
#include "ml/serve/GalleryServer.h"

using namespace streetgan;
using streetgan::test::decodePng;
using streetgan::test::Gallery;
using streetgan::test::RenderGate;

TEST_F(Gallery, UnknownParametersAreIgnoredLikeTheReference) {
    startServer();
    // Cache-busters (any name, any value) change nothing: the same bytes as without them.
    auto plain = get("/gan_imgs?n=2&seed=9");
    ASSERT_TRUE(plain);
    ASSERT_EQ(plain->status, 200) << plain->body;
    for (const char* path : {"/gan_imgs?n=2&seed=9&t=1699999999", "/gan_imgs?_=5&n=2&seed=9", "/gan_imgs?n=2&seed=9&size=64&nocache"}) {
        auto r = get(path);
        ASSERT_TRUE(r) << path;
        EXPECT_EQ(r->status, 200) << path << ": " << r->body;
        EXPECT_EQ(r->body, plain->body) << path;
    }
    auto gif = get("/gan_gifs?frames=4&seed=9"), gifBusted = get("/gan_gifs?frames=4&seed=9&t=1699999999&v=2");
    ASSERT_TRUE(gif && gifBusted);
    EXPECT_EQ(gifBusted->status, 200) << gifBusted->body;
    EXPECT_EQ(gifBusted->body, gif->body);
    for (const char* path : {"/health?verbose=1", "/?probe=1", "/gallery?every=0&x=1"}) {
        auto r = get(path);
        ASSERT_TRUE(r) << path;
        EXPECT_EQ(r->status, 200) << path << ": " << r->body;
    }
    // A bare request with a cache-buster gets the reference's defaults.
    auto bare = get("/gan_imgs?t=1699999999");
    ASSERT_TRUE(bare);
    ASSERT_EQ(bare->status, 200) << bare->body;
    EXPECT_EQ(decodePng(bare->body).cols, 4 * 36 + 4);
}

// The reference's walk: t = torch.linspace(0, 8, 16) between two vectors (round the great circle,
// past both), each frame min-max normalised on its own. Frames are compared with the images
// rendered here (Generator in eval mode), up to the GIF's palette and dithering.
TEST_F(Gallery, GifWalksTheReferencesSlerpFromZeroToEight) {
    startServer();
    const uint64_t seed = 11;
    auto r = get("/gan_gifs?seed=" + std::to_string(seed));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    const auto gif = test::decodeGif(r->body);
    ASSERT_TRUE(gif.ok);
    ASSERT_EQ(gif.frames, 16);
    ASSERT_EQ(gif.rgb.size(), 16u);

    const CheckpointData ck = Checkpoint::load(checkpoint());
    Generator g = ModelLoader::generator(ck, checkpoint(), "", torch::kCPU);
    auto render = [&](double span) {
        std::vector<double> ts;
        for (int i = 0; i < 16; ++i) ts.push_back(span * i / 15.0);
        torch::NoGradGuard noGrad;
        const torch::Tensor images = g->forward(Slerp::interpolate(LatentSeed::draw(seed, 64), LatentSeed::draw(seed + 1, 64), ts));
        std::vector<torch::Tensor> frames;
        for (int64_t i = 0; i < 16; ++i) frames.push_back(ImageGrid::makeGrid(images[i], 1, 4, true));
        return torch::stack(frames).mul(255).to(torch::kByte).permute({0, 2, 3, 1}).contiguous();  // (16, 32, 32, 3)
    };
    auto meanDiff = [&](const torch::Tensor& expected, int frame) {
        const torch::Tensor got = torch::from_blob(const_cast<uint8_t*>(gif.rgb[static_cast<size_t>(frame)].data()), {32, 32, 3}, torch::kByte);
        return (got.to(torch::kFloat) - expected[frame].to(torch::kFloat)).abs().mean().item<double>();
    };
    const torch::Tensor reference = render(8.0), unitWalk = render(1.0);
    double worst = 0, unitWorst = 0;
    for (int i = 0; i < 16; ++i) {
        worst = std::max(worst, meanDiff(reference, i));
        unitWorst = std::max(unitWorst, meanDiff(unitWalk, i));
    }
    RecordProperty("worst_mean_abs_diff", std::to_string(worst));
    RecordProperty("unit_walk_worst_mean_abs_diff", std::to_string(unitWorst));
    EXPECT_LT(worst, 3.0) << "the GIF's frames are not the walk t = linspace(0, 8, 16)";
    EXPECT_GT(unitWorst, 3 * worst) << "the comparison cannot tell the 0..8 walk from the 0..1 one";
    // span=1 is the walk from the seed's vector to the next seed's.
    auto unit = get("/gan_gifs?seed=" + std::to_string(seed) + "&span=1");
    ASSERT_TRUE(unit);
    const auto unitGif = test::decodeGif(unit->body);
    ASSERT_EQ(unitGif.rgb.size(), 16u);
    const torch::Tensor last = torch::from_blob(const_cast<uint8_t*>(unitGif.rgb[15].data()), {32, 32, 3}, torch::kByte);
    EXPECT_LT((last.to(torch::kFloat) - unitWalk[15].to(torch::kFloat)).abs().mean().item<double>(), 8.0);
}

TEST_F(Gallery, CorsAllowsAnyOriginByDefaultAndAnswersPreflights) {
    RenderGate gate;
    GalleryOptions o;
    o.maxRenders = 1;
    o.maxQueuedRenders = 0;  // a render beyond the held slot is a 503 at once
    o.beforeRender = gate.hook();
    startServer(o);
    auto c = client();
    // Every kind of answer carries the header: image, JSON, page, 400, 404, 405, 503.
    const httplib::Headers fromPage = {{"Origin", "https://blog.example.org"}};
    auto held = std::async(std::launch::async, [this] { return get("/gan_imgs?n=1&seed=1"); });
    ASSERT_TRUE(gate.waitEntered());
    auto busy = c.Get("/gan_gifs", fromPage);
    ASSERT_TRUE(busy);
    EXPECT_EQ(busy->status, 503);
    EXPECT_EQ(busy->get_header_value("Access-Control-Allow-Origin"), "*");
    gate.release();
    auto first = held.get();
    ASSERT_TRUE(first);
    EXPECT_EQ(first->get_header_value("Access-Control-Allow-Origin"), "*");
    for (const char* path : {"/gan_imgs?n=1", "/gan_gifs?frames=2", "/health", "/", "/gallery", "/gan_imgs?n=0", "/nope"}) {
        auto r = c.Get(path, fromPage);
        ASSERT_TRUE(r) << path;
        EXPECT_EQ(r->get_header_value("Access-Control-Allow-Origin"), "*") << path << " (" << r->status << ")";
        EXPECT_EQ(r->get_header_value("Access-Control-Expose-Headers"), "X-Seed") << path;
    }
    auto post = c.Post("/gan_imgs", "x", "text/plain");
    ASSERT_TRUE(post);
    EXPECT_EQ(post->status, 405);
    EXPECT_EQ(post->get_header_value("Access-Control-Allow-Origin"), "*");

    // A preflight (a script sending a custom header): 204, the methods, the headers asked for.
    httplib::Request pre;
    pre.method = "OPTIONS";
    pre.path = "/gan_gifs";
    pre.headers = {
        {"Origin", "https://blog.example.org"}, {"Access-Control-Request-Method", "GET"}, {"Access-Control-Request-Headers", "x-requested-with, content-type"}};
    auto preflight = c.send(pre);
    ASSERT_TRUE(preflight);
    EXPECT_EQ(preflight->status, 204);
    EXPECT_EQ(preflight->get_header_value("Access-Control-Allow-Origin"), "*");
    EXPECT_EQ(preflight->get_header_value("Access-Control-Allow-Methods"), "GET, HEAD, OPTIONS");
    EXPECT_EQ(preflight->get_header_value("Access-Control-Allow-Headers"), "x-requested-with, content-type");
    EXPECT_EQ(preflight->get_header_value("Access-Control-Max-Age"), "600");
    EXPECT_EQ(preflight->get_header_value("Allow"), "GET, HEAD, OPTIONS");
    EXPECT_TRUE(preflight->body.empty());
    // A plain OPTIONS: what the path allows; an unknown path: 404.
    auto options = c.Options("/health");
    ASSERT_TRUE(options);
    EXPECT_EQ(options->status, 204);
    EXPECT_EQ(options->get_header_value("Allow"), "GET, HEAD, OPTIONS");
    EXPECT_FALSE(options->has_header("Access-Control-Allow-Methods"));
    auto optionsElsewhere = c.Options("/elsewhere");
    ASSERT_TRUE(optionsElsewhere);
    EXPECT_EQ(optionsElsewhere->status, 404);
}

TEST_F(Gallery, CorsCanBeRestrictedToOneOriginOrTurnedOff) {
    GalleryOptions one;
    one.corsOrigin = "https://blog.example.org";
    startServer(one);
    auto r = client().Get("/health", {{"Origin", "https://blog.example.org"}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->get_header_value("Access-Control-Allow-Origin"), "https://blog.example.org");
    server_.reset();

    GalleryOptions off;
    off.corsOrigin = "";
    startServer(off);
    auto c = client();
    auto plain = c.Get("/gan_imgs?n=1", {{"Origin", "https://blog.example.org"}});
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->status, 200);
    EXPECT_FALSE(plain->has_header("Access-Control-Allow-Origin"));
    EXPECT_FALSE(plain->has_header("Access-Control-Expose-Headers"));
    httplib::Request pre;
    pre.method = "OPTIONS";
    pre.path = "/gan_imgs";
    pre.headers = {{"Origin", "https://blog.example.org"}, {"Access-Control-Request-Method", "GET"}};
    auto preflight = c.send(pre);
    ASSERT_TRUE(preflight);
    EXPECT_EQ(preflight->status, 204);
    EXPECT_FALSE(preflight->has_header("Access-Control-Allow-Origin"));
    EXPECT_FALSE(preflight->has_header("Access-Control-Allow-Methods"));

    for (const char* bad :
         {"blog.example.org", "https://blog.example.org/", "https://blog.example.org/page", "https://a b", "https://x\r\nSet-Cookie: y", "://x"}) {
        GalleryOptions o;
        o.corsOrigin = bad;
        EXPECT_THROW(o.validate(), ConfigError) << bad;
    }
    for (const char* good : {"*", "", "http://127.0.0.1:8000", "https://blog.example.org", "http://[::1]:3000"}) {
        GalleryOptions o;
        o.corsOrigin = good;
        EXPECT_NO_THROW(o.validate()) << good;
    }
}
