// GalleryServer in-process on 127.0.0.1 (a free port), driven by a real HTTP client
// (httplib::Client): images, determinism, the reference API's defaults (bare /gan_gifs: 16 frames
// at the model's size, 120 ms, looping; health JSON on / and /health), bounded parameters, 404/405,
// 503 under saturation, headers; FrozenGenerator against Generator; ServeCommand's --bind parsing.
// GalleryReferenceApiTest.cpp: unknown parameters, the reference's GIF walk, CORS.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>
#include <vector>

#include <httplib.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "GalleryFixture.h"
#include "GalleryTestSupport.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/ImageGrid.h"
#include "ml/latent/LatentSeed.h"
#include "ml/model/FrozenGenerator.h"
#include "ml/serve/GalleryServer.h"
#include "support/TempDir.h"
#include "trainer/ServeCommand.h"

using namespace streetgan;
using streetgan::test::decodePng;
using streetgan::test::Gallery;
using streetgan::test::RenderGate;
using streetgan::test::TempDir;

// DNS rebinding: a page on attacker.example that resolves its name to 127.0.0.1 sends Host:
// attacker.example. A loopback bind answers only its own names (any port, any case); the others get
// 421 with one line naming the names, and nothing is rendered for them.
TEST_F(Gallery, ALoopbackBindAnswersOnlyItsOwnHostNames) {
    GalleryOptions o;
    o.allowedHosts = {"Gallery.Example.org"};  // a reverse proxy's name, given with --allow-host
    startServer(o);
    for (const char* ok : {"127.0.0.1", "localhost:8080", "LOCALHOST", "[::1]:9", "gallery.example.org:443"}) {
        auto r = client().Get("/health", httplib::Headers{{"Host", ok}});
        ASSERT_TRUE(r) << ok;
        EXPECT_EQ(r->status, 200) << ok;
    }
    for (const char* bad : {"attacker.example", "attacker.example:8080", "127.0.0.1.nip.io", "[::2]"}) {
        for (const char* path : {"/health", "/gan_imgs?n=1", "/gallery"}) {
            auto r = client().Get(path, httplib::Headers{{"Host", bad}});
            ASSERT_TRUE(r) << bad;
            EXPECT_EQ(r->status, 421) << bad << " " << path;
            EXPECT_NE(r->body.find("is not a name of this server (127.0.0.1, localhost, ::1"), std::string::npos) << r->body;
            EXPECT_EQ(r->body.find("tiny.pt"), std::string::npos) << r->body;
        }
    }
}

TEST_F(Gallery, HealthDescribesTheModel) {
    GalleryOptions o;
    o.maxRenders = 3;
    startServer(o);
    auto r = get("/health");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
    EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store");
    const auto j = nlohmann::json::parse(r->body);
    EXPECT_EQ(j["Health"], "OK");  // the reference's whole answer
    EXPECT_EQ(j["status"], "ok");
    EXPECT_EQ(j["preset"], "tiny-32");
    EXPECT_EQ(j["nz"], 64);
    EXPECT_EQ(j["img_size"], 32);
    EXPECT_GT(j["g_params"].get<int64_t>(), 100000);
    EXPECT_EQ(j["renders_in_flight"], 0);
    EXPECT_EQ(j["max_renders"], 3);
    EXPECT_EQ(j["render_threads"], 1);
    EXPECT_GE(j["uptime_s"].get<double>(), 0.0);
    EXPECT_EQ(j["checkpoint"], "tiny.pt");  // its name, never where the user keeps it
    EXPECT_EQ(j["model"], "tiny.pt");
    EXPECT_EQ(j["precision"], "fp32");
}

TEST_F(Gallery, GridIsAPngOfTheRightSizeAndTheSampleCommandsImages) {
    startServer();
    auto r = get("/gan_imgs?n=16&nrow=4&seed=7");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(r->get_header_value("Content-Type"), "image/png");
    EXPECT_EQ(r->get_header_value("X-Seed"), "7");
    EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store");
    const cv::Mat png = decodePng(r->body);
    ASSERT_FALSE(png.empty());
    EXPECT_EQ(png.cols, 4 * (32 + 4) + 4);
    EXPECT_EQ(png.rows, 4 * (32 + 4) + 4);
    EXPECT_EQ(png.channels(), 3);

    // The same images as `sample --seed 7 --count 16 --nrow 4 --padding 4` (Generator in eval mode),
    // up to float rounding of the faster convolution path: at most one level off anywhere.
    const CheckpointData ck = Checkpoint::load(checkpoint());
    Generator g = ModelLoader::generator(ck, checkpoint(), "", torch::kCPU);
    torch::Tensor images;
    {
        torch::NoGradGuard noGrad;
        images = g->forward(LatentSeed::draw(7, 64, 16));
    }
    const cv::Mat expected = decodePng(ImageGrid::encodePng(ImageGrid::makeGrid(images, 4, 4, true)));
    cv::Mat diff;
    cv::absdiff(png, expected, diff);
    double maxDiff = 0;
    cv::minMaxLoc(diff.reshape(1), nullptr, &maxDiff);
    EXPECT_LE(maxDiff, 1.0);

    // Non-square grid: 5 images, 4 per row -> 2 rows.
    auto small = get("/gan_imgs?n=5&nrow=4&seed=1");
    ASSERT_TRUE(small);
    const cv::Mat p2 = decodePng(small->body);
    EXPECT_EQ(p2.cols, 4 * 36 + 4);
    EXPECT_EQ(p2.rows, 2 * 36 + 4);
}

TEST_F(Gallery, SameSeedSameBytesAndARandomSeedIsReported) {
    startServer();
    auto a = get("/gan_imgs?seed=42"), b = get("/gan_imgs?seed=42"), c = get("/gan_imgs?seed=43");
    ASSERT_TRUE(a && b && c);
    EXPECT_EQ(a->body, b->body);
    EXPECT_NE(a->body, c->body);
    auto ga = get("/gan_gifs?seed=42&frames=8&size=64"), gb = get("/gan_gifs?seed=42&frames=8&size=64");
    ASSERT_TRUE(ga && gb);
    EXPECT_EQ(ga->body, gb->body);

    auto random = get("/gan_imgs");
    ASSERT_TRUE(random);
    ASSERT_EQ(random->status, 200);
    const std::string seed = random->get_header_value("X-Seed");
    ASSERT_FALSE(seed.empty());
    auto again = get("/gan_imgs?seed=" + seed);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->body, random->body);
    const cv::Mat png = decodePng(random->body);
    EXPECT_EQ(png.cols, 4 * 36 + 4);  // defaults n=16, nrow=4

    auto randomGif = get("/gan_gifs?frames=4&size=32");
    ASSERT_TRUE(randomGif);
    const std::string gifSeed = randomGif->get_header_value("X-Seed");
    ASSERT_FALSE(gifSeed.empty());
    auto gifAgain = get("/gan_gifs?frames=4&size=32&seed=" + gifSeed);
    ASSERT_TRUE(gifAgain);
    EXPECT_EQ(gifAgain->body, randomGif->body);
}

TEST_F(Gallery, GifHasTheFramesAndSizeAskedFor) {
    startServer();
    auto r = get("/gan_gifs?frames=10&seed=3&size=96");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(r->get_header_value("Content-Type"), "image/gif");
    EXPECT_EQ(r->get_header_value("X-Seed"), "3");
    EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store");
    const auto gif = test::decodeGif(r->body);
    ASSERT_TRUE(gif.ok);
    EXPECT_EQ(gif.frames, 10);
    EXPECT_EQ(gif.width, 96);
    EXPECT_EQ(gif.height, 96);
    for (int d : gif.delaysCs) EXPECT_EQ(d, 12);
    EXPECT_EQ(gif.loop, 0);

    // A bare request is the reference's: 16 frames at the model's own size, 120 ms, looping forever.
    auto defaults = get("/gan_gifs");
    ASSERT_TRUE(defaults);
    ASSERT_EQ(defaults->status, 200) << defaults->body;
    const auto g2 = test::decodeGif(defaults->body);
    ASSERT_TRUE(g2.ok);
    EXPECT_EQ(g2.frames, 16);
    EXPECT_EQ(g2.width, 32);
    EXPECT_EQ(g2.height, 32);
    EXPECT_EQ(g2.delaysCs, std::vector<int>(16, 12));
    EXPECT_EQ(g2.loop, 0);
    // Our options: delay, and a larger size.
    auto slow = get("/gan_gifs?frames=3&delay=250&size=64&seed=3");
    ASSERT_TRUE(slow);
    const auto g3 = test::decodeGif(slow->body);
    EXPECT_EQ(g3.delaysCs, std::vector<int>(3, 25));
    EXPECT_EQ(g3.width, 64);
    // The walk moves: first and last frames differ, and the first frame is the seed's keyframe.
    auto two = get("/gan_gifs?frames=2&seed=3&size=32");
    ASSERT_TRUE(two);
    EXPECT_EQ(test::decodeGif(two->body).frames, 2);
}

TEST_F(Gallery, BadParametersAreClear400s) {
    startServer();
    struct Case {
        const char* path;
        const char* mentions;
    };
    for (const Case c : {Case{"/gan_imgs?n=0", "n must be an integer within 1..64"}, Case{"/gan_imgs?n=100000", "n must be"}, Case{"/gan_imgs?nrow=0", "nrow"},
                         Case{"/gan_imgs?n=abc", "(got 'abc')"}, Case{"/gan_imgs?n=", "n must"}, Case{"/gan_imgs?n=1.5", "n must"},
                         Case{"/gan_imgs?seed=abc", "seed must be an integer within 0..18446744073709551615"}, Case{"/gan_imgs?seed=-1", "seed"},
                         Case{"/gan_imgs?seed=18446744073709551616", "seed"}, Case{"/gan_imgs?n=2&n=3", "more than once"},
                         Case{"/gan_gifs?frames=1", "frames must be an integer within 2..128"}, Case{"/gan_gifs?frames=129", "frames"},
                         Case{"/gan_gifs?size=99999", "size must be an integer within 32..512"}, Case{"/gan_gifs?size=16", "size"},
                         Case{"/gan_gifs?seed=12x", "seed"}, Case{"/gan_gifs?span=0", "span must be an integer within 1..64"},
                         Case{"/gan_gifs?delay=10", "delay must be an integer within 20..10000"}, Case{"/gan_gifs?seed=1&t=5&seed=2", "more than once"}}) {
        auto r = get(c.path);
        ASSERT_TRUE(r) << c.path;
        EXPECT_EQ(r->status, 400) << c.path;
        EXPECT_NE(r->body.find(c.mentions), std::string::npos) << c.path << ": " << r->body;
        EXPECT_EQ(std::count(r->body.begin(), r->body.end(), '\n'), 1) << "one line: " << r->body;
        EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store") << c.path;
    }
    // The largest seed is fine.
    auto ok = get("/gan_imgs?n=1&seed=18446744073709551615");
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->status, 200) << ok->body;
}

TEST_F(Gallery, UnknownPathsAre404AndOtherMethods405) {
    startServer();
    auto r = get("/nope");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 404);
    EXPECT_NE(r->body.find("/gallery"), std::string::npos) << r->body;
    EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store");

    auto c = client();
    auto post = c.Post("/gan_imgs", "x", "text/plain");
    ASSERT_TRUE(post);
    EXPECT_EQ(post->status, 405);
    EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD, OPTIONS");
    auto del = c.Delete("/gan_gifs");
    ASSERT_TRUE(del);
    EXPECT_EQ(del->status, 405);
    auto put = c.Put("/health", "x", "text/plain");
    ASSERT_TRUE(put);
    EXPECT_EQ(put->status, 405);
    auto postElsewhere = c.Post("/elsewhere", "x", "text/plain");
    ASSERT_TRUE(postElsewhere);
    EXPECT_EQ(postElsewhere->status, 404);

    // / is the reference's health check for probes and scripts, the gallery page for a browser.
    auto root = get("/");
    ASSERT_TRUE(root);
    EXPECT_EQ(root->status, 200);
    EXPECT_EQ(root->get_header_value("Content-Type"), "application/json");
    EXPECT_EQ(nlohmann::json::parse(root->body)["Health"], "OK");
    EXPECT_EQ(root->get_header_value("Vary"), "Accept");
    auto probe = c.Get("/", {{"Accept", "*/*"}, {"User-Agent", "kube-probe/1.27"}});
    ASSERT_TRUE(probe);
    EXPECT_EQ(nlohmann::json::parse(probe->body)["Health"], "OK");
    auto browser = c.Get("/", {{"Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}});
    ASSERT_TRUE(browser);
    EXPECT_EQ(browser->status, 200);
    EXPECT_EQ(browser->get_header_value("Content-Type"), "text/html; charset=utf-8");
    EXPECT_NE(browser->body.find("/gan_gifs?"), std::string::npos);
}

TEST_F(Gallery, SaturationWithoutAQueueAnswers503WithRetryAfter) {
    RenderGate gate;
    GalleryOptions o;
    o.maxRenders = 1;
    o.maxQueuedRenders = 0;  // no waiting room: a render beyond the slot is refused at once
    o.beforeRender = gate.hook();
    startServer(o);
    auto slow = std::async(std::launch::async, [this] { return get("/gan_imgs?seed=1"); });
    ASSERT_TRUE(gate.waitEntered());
    // The slot is held: renders are refused at once, everything else still answers.
    for (const char* path : {"/gan_gifs?seed=2&frames=4&size=32", "/gan_imgs?seed=3"}) {
        auto r = get(path);
        ASSERT_TRUE(r) << path;
        EXPECT_EQ(r->status, 503) << path;
        EXPECT_EQ(r->get_header_value("Retry-After"), "1");
        EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store");
        EXPECT_NE(r->body.find("limit 1"), std::string::npos) << r->body;
    }
    auto health = get("/health");
    ASSERT_TRUE(health);
    EXPECT_EQ(nlohmann::json::parse(health->body)["renders_in_flight"], 1);
    auto bad = get("/gan_imgs?n=0");
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400);  // parameters are checked before a slot is taken
    gate.release();
    auto first = slow.get();
    ASSERT_TRUE(first);
    EXPECT_EQ(first->status, 200);
    auto after = get("/gan_gifs?seed=2&frames=4&size=32");
    ASSERT_TRUE(after);
    EXPECT_EQ(after->status, 200);
}

TEST_F(Gallery, ConcurrentLoadGivesOnly200sAnd503s) {
    GalleryOptions o;
    o.maxRenders = 2;
    startServer(o);
    std::atomic<int> ok{0}, busy{0}, other{0};
    std::vector<std::thread> clients;
    for (int t = 0; t < 8; ++t)
        clients.emplace_back([&, t] {
            auto c = client();
            for (int i = 0; i < 4; ++i) {
                auto r = (t + i) % 2 ? c.Get("/gan_imgs?n=4") : c.Get("/gan_gifs?frames=4&size=32");
                if (r && r->status == 200)
                    ++ok;
                else if (r && r->status == 503)
                    ++busy;
                else
                    ++other;
            }
        });
    for (auto& t : clients) t.join();
    EXPECT_EQ(other, 0);
    EXPECT_GT(ok, 0);
    EXPECT_EQ(ok + busy, 32);
    auto health = get("/health");
    ASSERT_TRUE(health);
    EXPECT_EQ(nlohmann::json::parse(health->body)["renders_in_flight"], 0);
}

TEST_F(Gallery, GalleryPageReferencesTheImageEndpoints) {
    startServer();
    auto r = get("/gallery");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
    EXPECT_NE(r->body.find("/gan_imgs?"), std::string::npos);
    EXPECT_NE(r->body.find("/gan_gifs?"), std::string::npos);
    EXPECT_NE(r->body.find("New seed"), std::string::npos);
}

TEST_F(Gallery, StopsCleanlyAndRefusesConnectionsAfterwards) {
    startServer();
    ASSERT_TRUE(get("/health"));
    server_->stop();
    server_->stop();  // idempotent
    auto c = client();
    c.set_connection_timeout(1, 0);
    EXPECT_FALSE(c.Get("/health"));
    server_.reset();
    // Stop before listening also returns.
    GalleryOptions o;
    o.port = 0;
    GalleryServer s(checkpoint(), "", o);
    s.bind();
    s.stop();
    s.listen();
}

TEST_F(Gallery, BindsLoopbackByDefaultAndRefusesAWrongPreset) {
    EXPECT_EQ(GalleryOptions{}.host, "127.0.0.1");
    EXPECT_TRUE(GalleryServer::isLoopback("127.0.0.1"));
    EXPECT_TRUE(GalleryServer::isLoopback("127.1.2.3"));
    EXPECT_TRUE(GalleryServer::isLoopback("localhost"));
    EXPECT_TRUE(GalleryServer::isLoopback("::1"));
    EXPECT_FALSE(GalleryServer::isLoopback("0.0.0.0"));
    EXPECT_FALSE(GalleryServer::isLoopback("192.168.1.2"));
    EXPECT_FALSE(GalleryServer::isLoopback("::"));
    EXPECT_THROW(GalleryServer(checkpoint(), "naive-64", GalleryOptions{}), CheckpointError);
    EXPECT_THROW(GalleryServer((dir_->path() / "missing.pt").string(), "", GalleryOptions{}), Error);
    GalleryOptions bad;
    bad.renderThreads = 0;
    EXPECT_THROW(GalleryServer(checkpoint(), "", bad), ConfigError);
    // A port in use is an IoError naming the address.
    startServer();
    GalleryOptions same;
    same.port = port_;
    GalleryServer second(checkpoint(), "", same);
    try {
        second.bind();
        ADD_FAILURE() << "expected IoError";
    } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(port_)), std::string::npos) << e.what();
    }
}

TEST(FrozenGenerator, EqualsTheGeneratorInEvalMode) {
    for (const char* preset : {"tiny-32", "naive-64"}) {
        torch::manual_seed(5);
        Generator g(Presets::get(preset));
        WeightInit::dcgan(*g);
        {
            torch::NoGradGuard noGrad;
            for (auto& b : g->named_buffers()) {
                if (b.key().find("running_var") != std::string::npos) b.value().uniform_(0.5, 2.0);
                if (b.key().find("running_mean") != std::string::npos) b.value().normal_(0, 0.1);
            }
            for (auto& p : g->named_parameters())
                if (p.value().dim() == 1) p.value().normal_(0.5, 0.3);  // BN affine, non-trivial
        }
        g->eval();
        const FrozenGenerator frozen(g);
        const torch::Tensor z = torch::randn({5, g->config().nz, 1, 1});
        torch::Tensor expected;
        {
            torch::NoGradGuard noGrad;
            expected = g->forward(z);
        }
        const torch::Tensor got = frozen.forward(z);
        ASSERT_EQ(got.sizes(), expected.sizes()) << preset;
        EXPECT_LT((got - expected).abs().max().item<double>(), 1e-5) << preset;
        EXPECT_TRUE(torch::equal(frozen.forward(z.view({5, -1})), got)) << preset;
        EXPECT_THROW(frozen.forward(torch::randn({2, 3})), DataError);
    }
}

TEST(ServeCommand, ParsesBindAddresses) {
    std::string host;
    int port = -1;
    ServeCommand::parseBind("127.0.0.1:8080", host, port);
    EXPECT_EQ(host, "127.0.0.1");
    EXPECT_EQ(port, 8080);
    ServeCommand::parseBind("0.0.0.0:0", host, port);
    EXPECT_EQ(host, "0.0.0.0");
    EXPECT_EQ(port, 0);
    ServeCommand::parseBind("[::1]:9000", host, port);
    EXPECT_EQ(host, "::1");
    EXPECT_EQ(port, 9000);
    ServeCommand::parseBind(":7000", host, port);
    EXPECT_EQ(host, "127.0.0.1");
    EXPECT_EQ(port, 7000);
    EXPECT_THROW(ServeCommand::parseBind("localhost", host, port), ConfigError);
    EXPECT_THROW(ServeCommand::parseBind("localhost:http", host, port), ConfigError);
    EXPECT_THROW(ServeCommand::parseBind("localhost:70000", host, port), ConfigError);
}

TEST(FrozenGenerator, BFloat16IsCloseAndDeterministic) {
    torch::manual_seed(6);
    Generator g(Presets::get("naive-64"));
    WeightInit::dcgan(*g);
    g->eval();
    std::unique_ptr<FrozenGenerator> bf16;
    try {
        bf16 = std::make_unique<FrozenGenerator>(g, FrozenGenerator::Precision::BFloat16);
    } catch (const ConfigError& e) {
        GTEST_SKIP() << e.what();
    }
    const FrozenGenerator fp32(g);
    const torch::Tensor z = torch::randn({4, 100});
    const torch::Tensor a = bf16->forward(z), b = fp32.forward(z);
    EXPECT_EQ(a.scalar_type(), torch::kFloat);
    ASSERT_EQ(a.sizes(), b.sizes());
    // Relative to the output's spread (an untrained generator's outputs are small).
    const double spread = (b.max() - b.min()).item<double>();
    EXPECT_LT((a - b).abs().max().item<double>(), 0.05 * spread);
    EXPECT_TRUE(torch::equal(bf16->forward(z), a));
}
