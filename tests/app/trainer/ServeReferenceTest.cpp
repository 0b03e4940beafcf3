// `streetgan-trainer serve` as a drop-in for the reference project's image API: the real binary and
// tests/python/reference_api.py (a Flask app following the reference's api/img_svc.py code paths)
// serve the same reference checkpoint on loopback ports, and tests/python/reference_api_client.py
// asks both what the reference's blog page, a script on another origin and a health probe ask.
// Their answers must agree on what those clients see: content types, image sizes, GIF frames,
// frame durations and loop flag, CORS, health JSON; cache-busters are ignored by both. Also: bad
// values of our own parameters are one-line 400s, --cors, and SIGTERM/SIGINT stop serve cleanly.
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/CliRunner.h"
#include "support/RankProcess.h"
#include "support/TempDir.h"

using namespace streetgan::test;

namespace {

const std::string kPython = STREETGAN_PYTHON;
const std::string kScripts = STREETGAN_TEST_PYTHON_DIR;

/// Waits until `process` prints a line matching `pattern` on stdout (its group 1 returned), or
/// exits, or `seconds` pass (a hang guard, not a timing assertion): "" then.
std::string waitForLine(RankProcess& process, const std::regex& pattern, double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
        std::smatch m;
        const std::string out = process.out();
        if (std::regex_search(out, m, pattern)) return m[1];
        if (process.wait(0.05)) return "";
    }
    return "";
}

/// serve on a free loopback port; "" when it did not come up (see its stderr).
std::unique_ptr<RankProcess> startServe(const TempDir& dir, const std::string& name, const std::string& checkpoint, const std::vector<std::string>& extra,
                                        std::string& baseUrl) {
    std::vector<std::string> argv = {STREETGAN_TRAINER, "serve", "--checkpoint", checkpoint, "--bind", "127.0.0.1:0", "--max-renders", "4"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto p = std::make_unique<RankProcess>(argv, std::map<std::string, std::string>{}, dir / name);
    const std::string port = waitForLine(*p, std::regex(R"(serving http://127\.0\.0\.1:(\d+)/gallery)"), 120);
    baseUrl = port.empty() ? "" : "http://127.0.0.1:" + port;
    return p;
}

nlohmann::json observe(const TempDir& dir, const std::string& baseUrl) {
    const std::string out = dir / "observe.json";
    const std::string cmd =
        kPython + " " + CliRunner::quote(kScripts + "/reference_api_client.py") + " observe " + CliRunner::quote(baseUrl) + " >" + CliRunner::quote(out);
    if (std::system(cmd.c_str()) != 0) return nullptr;
    return nlohmann::json::parse(CliRunner::slurp(out), nullptr, false);
}

class ServeReference : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new TempDir;
        // A reference-style checkpoint (torch.save'd dict, DDP "module." keys) from the reference's
        // own training step: both servers load this one file.
        const std::string make = kPython + " " + CliRunner::quote(kScripts + "/reference_interop.py") + " make " + CliRunner::quote(dir_->path()) +
                                 " --prefix >" + CliRunner::quote(*dir_ / "make.log") + " 2>&1";
        made_ = std::system(make.c_str()) == 0;
    }
    static void TearDownTestSuite() {
        delete dir_;
        dir_ = nullptr;
    }
    static std::string checkpoint() { return *dir_ / "reference.pt"; }

    static TempDir* dir_;
    static bool made_;
};
TempDir* ServeReference::dir_ = nullptr;
bool ServeReference::made_ = false;

}  // namespace

TEST_F(ServeReference, TheBlogsClientsSeeWhatTheReferenceApiSends) {
    ASSERT_TRUE(made_) << CliRunner::slurp(*dir_ / "make.log");
    TempDir tmp;
    RankProcess reference({kPython, kScripts + "/reference_api.py", "--checkpoint", checkpoint(), "--preset", "tiny-32", "--port", "0"}, {}, tmp / "reference");
    const std::string refPort = waitForLine(reference, std::regex(R"(port (\d+))"), 180);
    ASSERT_FALSE(refPort.empty()) << "the reference API did not start:\n" << reference.err();
    std::string oursUrl;
    auto ours = startServe(tmp, "ours", checkpoint(), {}, oursUrl);
    ASSERT_FALSE(oursUrl.empty()) << "serve did not start:\n" << ours->err();

    const nlohmann::json ref = observe(tmp, "http://127.0.0.1:" + refPort);
    const nlohmann::json our = observe(tmp, oursUrl);
    ASSERT_TRUE(ref.is_object()) << "observing the reference failed:\n" << reference.err();
    ASSERT_TRUE(our.is_object()) << "observing serve failed:\n" << ours->err();
    SCOPED_TRACE("reference: " + ref.dump() + "\nours: " + our.dump());

    // The stand-in behaves as the reference's code does (else the comparison proves nothing).
    EXPECT_EQ(ref["img"]["size"], nlohmann::json({4 * (32 + 4) + 4, 4 * (32 + 4) + 4}));
    EXPECT_EQ(ref["gif"]["frames"], 16);
    EXPECT_EQ(ref["gif"]["size"], nlohmann::json({32, 32}));
    EXPECT_EQ(ref["gif"]["durations"], nlohmann::json(std::vector<int>(16, 120)));
    EXPECT_EQ(ref["gif"]["loop"], 0);

    // What the page's <img> tags get: the same on both.
    for (const char* kind : {"img", "gif"}) {
        EXPECT_EQ(our[kind]["status"], 200) << kind;
        for (const char* key : {"status", "content_type", "format", "size", "acao"}) EXPECT_EQ(our[kind][key], ref[kind][key]) << kind << "." << key;
    }
    EXPECT_EQ(our["img"]["content_type"], "image/png");
    EXPECT_EQ(our["gif"]["content_type"], "image/gif");
    for (const char* key : {"frames", "durations", "loop"}) EXPECT_EQ(our["gif"][key], ref["gif"][key]) << "gif." << key;
    EXPECT_EQ(our["img"]["acao"], "*");

    // A script on another origin may read both images, with or without a preflight.
    for (const char* kind : {"img_fetch", "gif_fetch"}) {
        EXPECT_EQ(our[kind]["status"], 200) << kind;
        EXPECT_EQ(ref[kind]["cors_ok"], true) << kind;
        EXPECT_EQ(our[kind]["cors_ok"], true) << kind;
    }
    EXPECT_EQ(ref["preflight"]["ok"], true);
    EXPECT_EQ(our["preflight"]["ok"], true);

    // Health probes: 200 JSON with "Health": "OK" on / and /health.
    for (const char* path : {"/", "/health"}) {
        const auto& r = ref["health"][path];
        const auto& o = our["health"][path];
        EXPECT_EQ(r["status"], 200) << path;
        EXPECT_EQ(o["status"], 200) << path;
        EXPECT_EQ(o["content_type"], r["content_type"]) << path;
        EXPECT_EQ(r["json"]["Health"], "OK") << path;
        EXPECT_EQ(o["json"]["Health"], "OK") << path;
    }

    // Cache-busters: ignored by both, the bare request's image.
    for (const auto& [path, r] : ref["cache_buster"].items()) {
        EXPECT_EQ(r["status"], 200) << path;
        EXPECT_EQ(our["cache_buster"][path], r) << path;
    }

    // Our own parameters, given a bad value: a one-line 400 naming the parameter (the reference
    // reads no parameter, so it answers its default image instead; docs/serve.md).
    for (const auto& [path, o] : our["bad_known"].items()) {
        EXPECT_EQ(ref["bad_known"][path]["status"], 200) << path;
        EXPECT_EQ(o["status"], 400) << path;
        const std::string body = o["body"].is_string() ? o["body"].get<std::string>() : "";
        EXPECT_EQ(std::count(body.begin(), body.end(), '\n'), 1) << path << ": " << body;
        const std::string name = path.substr(path.find('?') + 1, path.find('=') - path.find('?') - 1);
        EXPECT_EQ(body.rfind(name + " must be", 0), 0u) << path << ": " << body;
    }

    ours->signal(SIGTERM);
    EXPECT_EQ(ours->wait(60), 0) << ours->err();
}

TEST_F(ServeReference, CorsFlagRestrictsOrTurnsItOff) {
    ASSERT_TRUE(made_) << CliRunner::slurp(*dir_ / "make.log");
    TempDir tmp;
    std::string url;
    auto off = startServe(tmp, "off", checkpoint(), {"--cors", "off"}, url);
    ASSERT_FALSE(url.empty()) << off->err();
    nlohmann::json o = observe(tmp, url);
    ASSERT_TRUE(o.is_object());
    EXPECT_EQ(o["img"]["status"], 200);
    EXPECT_TRUE(o["img"]["acao"].is_null()) << o["img"].dump();
    EXPECT_EQ(o["img_fetch"]["cors_ok"], false);
    EXPECT_EQ(o["preflight"]["ok"], false);
    off->signal(SIGTERM);
    EXPECT_EQ(off->wait(60), 0);

    // The client's page origin is https://blog.example.org: allowed when named, refused otherwise.
    for (const auto& [origin, allowed] : std::vector<std::pair<std::string, bool>>{{"https://blog.example.org", true}, {"https://other.example.org", false}}) {
        auto one = startServe(tmp, allowed ? "allowed" : "refused", checkpoint(), {"--cors", origin}, url);  // own log: no stale port
        ASSERT_FALSE(url.empty()) << one->err();
        o = observe(tmp, url);
        ASSERT_TRUE(o.is_object());
        EXPECT_EQ(o["img"]["acao"], origin);
        EXPECT_EQ(o["img_fetch"]["cors_ok"], allowed) << origin;
        EXPECT_EQ(o["preflight"]["ok"], allowed) << origin;
        one->signal(SIGINT);
        EXPECT_EQ(one->wait(60), 0);
    }

    // A page address instead of an origin: a one-line error saying what to give.
    CliRunner cli(tmp.path());
    const CliResult bad = cli.run({"serve", "--checkpoint", checkpoint(), "--bind", "127.0.0.1:0", "--cors", "https://blog.example.org/posts/"});
    EXPECT_NE(bad.code, 0);
    EXPECT_NE(bad.err.find("without a path"), std::string::npos) << bad.err;
    const CliResult bad2 = cli.run({"serve", "--checkpoint", checkpoint(), "--bind", "127.0.0.1:0", "--cors", "blog.example.org"});
    EXPECT_NE(bad2.code, 0);
    EXPECT_NE(bad2.err.find("CORS origin"), std::string::npos) << bad2.err;
}

TEST_F(ServeReference, SigtermAndSigintStopServeCleanly) {
    ASSERT_TRUE(made_) << CliRunner::slurp(*dir_ / "make.log");
    TempDir tmp;
    for (const auto& [sig, name] : std::vector<std::pair<int, std::string>>{{SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"}}) {
        std::string url;
        auto p = startServe(tmp, name, checkpoint(), {}, url);
        ASSERT_FALSE(url.empty()) << p->err();
        p->signal(sig);
        const auto code = p->wait(60);
        ASSERT_TRUE(code.has_value()) << name << ": serve did not stop";
        EXPECT_EQ(*code, 0) << name << "\n" << p->err();
        EXPECT_NE(p->out().find("stopped (" + name + ")"), std::string::npos) << p->out();
    }
}
