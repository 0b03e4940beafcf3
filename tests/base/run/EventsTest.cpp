// The event schema: every kind round-trips through JSON and through a line of text; the reader
// on torn, non-JSON, non-object, empty and unknown-kind lines; escapes (a UTF-16 surrogate pair);
// the attach protocol's lines; the strict scan and nlohmann's SAX path agree; EventLog's typed
// append writes what the reader reads back.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/run/EventLog.h"
#include "base/run/Events.h"
#include "base/run/SystemMonitor.h"
#include "support/TempDir.h"

using namespace streetgan;
using nlohmann::json;
using streetgan::test::TempDir;

namespace {

// Text -> typed -> JSON, and JSON -> typed -> JSON, must give the JSON written.
void expectRoundTrip(const Event& event) {
    const json j = toJson(event);
    EXPECT_EQ(toJson(eventFromJson(j)), j) << j.dump();
    EventReader reader;
    const std::string line = j.dump();
    const ParsedEvent parsed = reader.read(line);
    ASSERT_TRUE(parsed.ok()) << line << ": " << parsed.error;
    EXPECT_EQ(parsed.event.index(), event.index()) << line;
    EXPECT_EQ(toJson(parsed.event), j) << line;
    EXPECT_EQ(kindOf(parsed.event), kindOf(event));
}

std::vector<Event> oneOfEachKind() {
    StatusEvent status;
    status.t = 1700000000.25;
    status.state = RunState::kRunning;
    status.step = 0;
    status.totalSteps = 100;
    status.pid = 4242;
    status.device = "cuda:0";
    status.data = "synthetic";
    status.resumedFrom = "";

    DataEvent data;
    data.t = 1.5;
    data.source = "folder /data (12 images)";
    data.images = 12;
    data.stepsPerEpoch = 3;
    data.skipped = {{"unreadable", 2}, {"too small", 1}};

    MetricsEvent metrics;
    metrics.t = 2.5;
    metrics.step = 40;
    metrics.epoch = 1;
    metrics.totalSteps = 100;
    metrics.lossD = 1.25;
    metrics.lossG = -0.002;
    metrics.dX = 0.7;
    metrics.dGz1 = 0.31;
    metrics.dGz2 = 0.22;
    metrics.lr = 0.0002;
    metrics.imgPerS = 812.5;
    metrics.dataWait = 0.25;
    metrics.worldSize = 2;

    SystemEvent system;
    system.t = 3.5;
    system.step = 40;
    system.cpuPercent = 195.5;
    system.rssMb = 900.25;
    system.readMbS = 12.5;
    system.gpuUtil = 97;
    system.gpuMemMb = 4096.5;
    system.gpuMemTotalMb = 24576;
    system.energyJ = 5400.5;
    system.powerW = 250.25;
    system.energySource = "CPU package (RAPL, all processes on the host) + GPU (NVML)";

    CheckpointEvent checkpoint;
    checkpoint.t = 4.5;
    checkpoint.step = 40;
    checkpoint.epoch = 1;
    checkpoint.path = "checkpoints/checkpoint_1.pt";

    SampleEvent sample;
    sample.t = 5.5;
    sample.step = 40;
    sample.epoch = 1;
    sample.path = "samples/step_40.png";

    MetricEvent metric;
    metric.t = 6.5;
    metric.step = 40;
    metric.fid = 31.5;
    metric.kid = 0.012;
    metric.kidStd = 0.001;
    metric.kidSubsets = 100;
    metric.kidSubsetSize = 1000;
    metric.precision = kNoValue;  // unavailable: null
    metric.recall = kNoValue;
    metric.prUnavailable = "precision/recall need more than k = 3 samples in each set";
    metric.features = "/models/inception.pt";
    metric.featuresSha256 = "ab12";
    metric.featureDim = 2048;
    metric.samples = 2000;
    metric.realSamples = 1900;
    metric.realCache = "hit";
    metric.timing = MetricTiming{1.5, 2.5, 0.5};
    metric.seconds = 4.5;
    metric.warnings = {"corrupt cache file: recomputed"};

    ControlEvent control;
    control.t = 7.5;
    control.cmd = "set-lr";
    control.step = 40;
    control.value = 0.0001;

    ErrorEvent error;
    error.t = 8.5;
    error.step = 40;
    error.message = "rejected control command: \"fly\" is not a command";

    UnknownEvent unknown;
    unknown.kind = "future-kind";
    unknown.fields = {{"kind", "future-kind"}, {"t", 9.5}, {"nested", {{"a", json::array({1, "two", nullptr})}}}};

    return {status, data, metrics, system, checkpoint, sample, metric, control, error, unknown};
}

}  // namespace

TEST(Events, EveryKindRoundTrips) {
    for (const Event& e : oneOfEachKind()) expectRoundTrip(e);
}

TEST(Events, KindsAndFieldsAreWrittenAsTheRunDirectoryContractSays) {
    const auto all = oneOfEachKind();
    const std::vector<std::string> kinds = {"status", "data", "metrics", "system", "checkpoint", "sample", "metric", "control", "error", "future-kind"};
    for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(toJson(all[i])["kind"], kinds[i]);
    const json metrics = toJson(all[2]);
    for (const char* k : {"t", "step", "epoch", "total_steps", "loss_d", "loss_g", "d_x", "d_g_z1", "d_g_z2", "lr", "img_per_s", "data_wait", "world_size"})
        EXPECT_TRUE(metrics.contains(k)) << k;
    EXPECT_EQ(metrics["step"], 40);
    EXPECT_TRUE(metrics["step"].is_number_integer());
    const json metric = toJson(all[6]);
    EXPECT_TRUE(metric["precision"].is_null());
    EXPECT_EQ(metric["timing"]["real_features"], 1.5);
    EXPECT_EQ(metric["warnings"][0], "corrupt cache file: recomputed");
    // Optional fields are left out, the GPU readings are null when unknown, a NaN loss is null.
    StatusEvent failed;
    failed.state = RunState::kFailed;
    EXPECT_EQ(toJson(failed), (json{{"kind", "status"}, {"state", "failed"}}));
    const json system = toJson(SystemEvent{});
    EXPECT_TRUE(system["gpu_util"].is_null() && system["gpu_mem_mb"].is_null() && system["gpu_mem_total_mb"].is_null());
    EXPECT_FALSE(system.contains("t"));
    EXPECT_TRUE(toJson(MetricsEvent{})["loss_d"].is_null());
    EXPECT_FALSE(toJson(MetricEvent{}).contains("warnings"));
    EXPECT_FALSE(toJson(MetricEvent{}).contains("fid"));
}

TEST(Events, UnknownFieldsAndUnexpectedTypesAreKept) {
    const std::string line = R"({"kind":"metrics","step":"five","loss_d":0.5,"future":{"x":[1,2]},"note":"hi","t":12})";
    EventReader reader;
    const ParsedEvent parsed = reader.read(line);
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    const auto* m = std::get_if<MetricsEvent>(&parsed.event);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->lossD, 0.5);
    EXPECT_FALSE(m->step.has_value());
    EXPECT_TRUE(std::isnan(m->lossG));
    EXPECT_EQ(m->t, 12.0);
    EXPECT_EQ(m->extra["step"], "five");
    EXPECT_EQ(m->extra["note"], "hi");
    EXPECT_EQ(m->extra["future"]["x"][1], 2);
    const json back = toJson(parsed.event);
    EXPECT_EQ(back["step"], "five");
    EXPECT_EQ(back["future"], (json{{"x", {1, 2}}}));
}

TEST(Events, EveryMemberOfEveryKindReadsBackWhateverItsValue) {
    // The schema's table drives reading and writing: whatever value a line gives a member (its
    // own type, another, null, nested), each way in (JSON, the strict scan, nlohmann's SAX) reads
    // it into the same event, which writes the member back as the line had it. The one exception
    // is "t": null in a known kind, which reads as "no time" and is then left out.
    const std::vector<json> values = {
        nullptr, "text", 1.5, -3, 7, true, json::array({1, "a"}), json::array({"w"}), json::object({{"a", 1}}), json::object({{"x", "y"}}), json::object()};
    EventReader reader;
    for (const Event& e : oneOfEachKind()) {
        const json written = toJson(e);
        for (auto member = written.begin(); member != written.end(); ++member) {
            if (member.key() == "kind") continue;
            for (const json& v : values) {
                json line = written;
                line[member.key()] = v;
                json expected = line;
                if (member.key() == "t" && v.is_null() && !std::holds_alternative<UnknownEvent>(e)) expected.erase("t");
                const ParsedEvent strict = reader.read(line.dump());
                const ParsedEvent sax = reader.read(line.dump(1));  // spaces: not the strict scan's form
                ASSERT_TRUE(strict.ok() && sax.ok()) << line.dump();
                EXPECT_EQ(strict.event.index(), e.index()) << line.dump();
                EXPECT_EQ(toJson(strict.event), expected) << line.dump();
                EXPECT_EQ(toJson(sax.event), expected) << line.dump();
                EXPECT_EQ(toJson(eventFromJson(line)), expected) << line.dump();
            }
        }
    }
}

TEST(Events, ReaderReportsTornNonJsonAndOtherLinesWithoutThrowing) {
    EventReader reader;
    EXPECT_EQ(reader.read(R"({"kind":"metrics","step":1,"loss_d":0.)").status, LineStatus::Torn);
    EXPECT_EQ(reader.read(R"({"kind":"metr)").status, LineStatus::Torn);
    EXPECT_EQ(reader.read("{").status, LineStatus::Torn);
    const ParsedEvent bad = reader.read("not json");
    EXPECT_EQ(bad.status, LineStatus::NotJson);
    EXPECT_FALSE(bad.error.empty());
    EXPECT_EQ(reader.read("").status, LineStatus::NotJson);
    EXPECT_EQ(reader.read("   ").status, LineStatus::NotJson);
    EXPECT_EQ(reader.read(R"({"kind":"status"} trailing)").status, LineStatus::NotJson);
    EXPECT_EQ(reader.read(R"({"kind":"status",})").status, LineStatus::NotJson);
    EXPECT_EQ(reader.read("[1,2]").status, LineStatus::NotObject);
    EXPECT_EQ(reader.read("42").status, LineStatus::NotObject);
    EXPECT_EQ(reader.read(R"("text")").status, LineStatus::NotObject);
    // Leading zeros are not JSON; the strict scan must not accept what nlohmann refuses.
    EXPECT_EQ(reader.read(R"({"kind":"metrics","step":012})").status, LineStatus::NotJson);
    // The reader is usable after bad lines.
    EXPECT_TRUE(reader.read(R"({"kind":"status","state":"paused"})").ok());

    const ParsedEvent unknown = reader.read(R"({"kind":"telemetry","step":9,"t":3.5,"deep":{"a":[{"b":null}]}})");
    ASSERT_TRUE(unknown.ok());
    const auto* u = std::get_if<UnknownEvent>(&unknown.event);
    ASSERT_NE(u, nullptr);
    EXPECT_EQ(u->kind, "telemetry");
    EXPECT_EQ(u->fields["deep"]["a"][0], (json{{"b", nullptr}}));
    const EventStamp stamp = stampOf(unknown.event);
    EXPECT_EQ(stamp.t, 3.5);
    EXPECT_EQ(stamp.step, 9);

    const ParsedEvent kindless = reader.read(R"({"step":3,"loss_d":0.5})");
    ASSERT_TRUE(kindless.ok());
    ASSERT_TRUE(std::holds_alternative<UnknownEvent>(kindless.event));
    EXPECT_EQ(std::get<UnknownEvent>(kindless.event).kind, "");
    EXPECT_EQ(std::get<UnknownEvent>(kindless.event).fields["loss_d"], 0.5);
}

TEST(Events, EscapesIncludingSurrogatePairsDecode) {
    EventReader reader;
    // U+1F600 as a UTF-16 surrogate pair, then an é, a quote and a newline.
    const ParsedEvent parsed = reader.read(R"({"kind":"error","message":"bad \ud83d\ude00 \u00e9 \"q\"\nend","t":1})");
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    const auto* e = std::get_if<ErrorEvent>(&parsed.event);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->message, "bad \xF0\x9F\x98\x80 \xC3\xA9 \"q\"\nend");
    // Raw UTF-8 (what EventLog writes) reads the same.
    const ParsedEvent raw = reader.read("{\"kind\":\"checkpoint\",\"path\":\"checkpoints/\xC3\xA9t\xC3\xA9.pt\",\"step\":1}");
    ASSERT_TRUE(raw.ok());
    EXPECT_EQ(std::get<CheckpointEvent>(raw.event).path, "checkpoints/\xC3\xA9t\xC3\xA9.pt");
    // A lone high surrogate is not JSON.
    EXPECT_EQ(reader.read(R"({"kind":"error","message":"\ud83d"})").status, LineStatus::NotJson);
}

TEST(Events, StrictScanAndNlohmannReadTheSame) {
    // The same events written compactly (the strict scan) and with spaces and an escaped key
    // character (nlohmann's SAX path) read the same.
    EventReader reader;
    for (const Event& e : oneOfEachKind()) {
        const json j = toJson(e);
        const ParsedEvent compact = reader.read(j.dump());
        const ParsedEvent spaced = reader.read(j.dump(2));
        std::string escaped = j.dump();
        const size_t at = escaped.find("\"kind\"");
        escaped.replace(at, 6, "\"\\u006bind\"");
        const ParsedEvent viaSax = reader.read(escaped);
        ASSERT_TRUE(compact.ok() && spaced.ok() && viaSax.ok()) << escaped << ": " << viaSax.error;
        EXPECT_EQ(toJson(compact.event), j);
        EXPECT_EQ(toJson(spaced.event), j);
        EXPECT_EQ(toJson(viaSax.event), j);
    }
    // Numbers are typed as nlohmann types them.
    const ParsedEvent big = reader.read(R"({"kind":"status","state":"running","pid":18446744073709551615,"step":-0,"t":1e2})");
    ASSERT_TRUE(big.ok());
    const auto& s = std::get<StatusEvent>(big.event);
    EXPECT_FALSE(s.pid.has_value());  // does not fit int64: kept as read
    EXPECT_EQ(s.extra["pid"], 18446744073709551615ULL);
    EXPECT_EQ(s.step, 0);
    EXPECT_EQ(s.t, 100.0);
}

TEST(Events, AttachProtocolLines) {
    EventReader reader;
    const std::string eventLine = attachEventJson(10, 52, toJson(oneOfEachKind()[2])).dump();
    ParsedAttachLine a = reader.readAttach(eventLine);
    ASSERT_TRUE(a.ok()) << a.error;
    EXPECT_EQ(a.line.type, AttachLine::Type::Event);
    EXPECT_EQ(a.line.offset, 10u);
    EXPECT_EQ(a.line.end, 52u);
    EXPECT_EQ(toJson(a.line.event), toJson(oneOfEachKind()[2]));

    // An event with a nested member and an escape (nlohmann's path) inside the wrapper.
    a = reader.readAttach(R"({"end":99,"event":{"kind":"data","skipped":{"bad":1},"source":"caf\u00e9","t":2},"offset":50})");
    ASSERT_TRUE(a.ok()) << a.error;
    EXPECT_EQ(a.line.type, AttachLine::Type::Event);
    const auto& data = std::get<DataEvent>(a.line.event);
    EXPECT_EQ(data.skipped.at("bad"), 1);
    EXPECT_EQ(data.source, "caf\xC3\xA9");
    EXPECT_EQ(a.line.end, 99u);

    a = reader.readAttach(attachLiveJson(52, "running").dump());
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a.line.type, AttachLine::Type::Live);
    EXPECT_EQ(a.line.offset, 52u);
    EXPECT_EQ(a.line.state, "running");

    a = reader.readAttach(attachEndJson(99, "finished").dump());
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a.line.type, AttachLine::Type::End);
    EXPECT_EQ(a.line.offset, 99u);
    EXPECT_EQ(a.line.state, "finished");

    a = reader.readAttach(attachReplyJson({{"ok", true}, {"cmd", "pause"}}).dump());
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a.line.type, AttachLine::Type::Reply);
    EXPECT_EQ(a.line.reply["cmd"], "pause");

    a = reader.readAttach(R"({"offset":-1,"end":3,"event":{}})");
    ASSERT_TRUE(a.ok());
    EXPECT_FALSE(a.line.offset.has_value());  // the relay decides what a bad offset means
    EXPECT_EQ(reader.readAttach(R"({"something":"else"})").status, LineStatus::NotProtocol);
    EXPECT_EQ(reader.readAttach("not json").status, LineStatus::NotJson);
    EXPECT_EQ(reader.readAttach(R"({"offset":0,"end":57,"event":{"kind":"metr)").status, LineStatus::Torn);
}

TEST(Events, EventLogWritesTypedEventsTheReaderReadsBack) {
    TempDir dir;
    const std::string path = dir.file("events.jsonl");
    {
        EventLog log(path);
        for (const Event& e : oneOfEachKind()) log.append(e);
        MetricsEvent unstamped;
        unstamped.step = 1;
        log.append(Event(unstamped));
    }
    std::ifstream in(path);
    EventReader reader;
    const auto expected = oneOfEachKind();
    size_t n = 0;
    for (std::string line; std::getline(in, line); ++n) {
        const ParsedEvent parsed = reader.read(line);
        ASSERT_TRUE(parsed.ok()) << line;
        if (n < expected.size())
            EXPECT_EQ(toJson(parsed.event), toJson(expected[n])) << line;
        else
            EXPECT_GT(stampOf(parsed.event).t, 1.6e9);  // stamped by the log
    }
    EXPECT_EQ(n, expected.size() + 1);
}

// ---------------------------------------------------------------------------------------------
// The system event's energy and "unavailable" members, and SystemMonitor's RAPL and NVML paths.
// (SystemMonitor's cases live here, in the base run suite, until it has a test file of its own.)

TEST(Events, SystemEnergyAndUnavailableRoundTripAndOldLinesStillRead) {
    SystemEvent e;
    e.t = 10;
    e.step = 3;
    e.cpuPercent = 50;
    e.rssMb = 100;
    e.readMbS = 0;
    e.unavailable = {{EventField::kUnavailableGpu, "this run trains on the CPU"},
                     {EventField::kUnavailableCpuEnergy, "RAPL energy counters are not readable (root only)"}};
    expectRoundTrip(e);
    const json j = toJson(e);
    EXPECT_EQ(j["unavailable"]["gpu"], "this run trains on the CPU");
    EXPECT_FALSE(j.contains("energy_j"));  // not measured: absent, not 0
    EXPECT_FALSE(j.contains("power_w"));
    // A line of a trainer before the energy readings: no energy, no reasons, nothing in extra.
    const auto old = std::get<SystemEvent>(eventFromJson(json::parse(
        R"({"cpu_percent":87.5,"gpu_mem_mb":null,"gpu_mem_total_mb":null,"gpu_util":null,"kind":"system","read_mb_s":1.5,"rss_mb":12,"step":4,"t":1.5})")));
    EXPECT_EQ(old.cpuPercent, 87.5);
    EXPECT_FALSE(old.energyJ);
    EXPECT_TRUE(old.unavailable.empty());
    EXPECT_TRUE(old.extra.is_null());
    // An "unavailable" that is not an object of strings is kept as read.
    const json odd = json::parse(R"({"kind":"system","unavailable":{"gpu":3},"energy_j":null})");
    const auto kept = std::get<SystemEvent>(eventFromJson(odd));
    EXPECT_TRUE(kept.unavailable.empty());
    EXPECT_EQ(kept.extra["unavailable"]["gpu"], 3);
    EXPECT_EQ(toJson(kept), toJson(eventFromJson(toJson(kept))));
    EXPECT_TRUE(toJson(kept)["energy_j"].is_null());
}

TEST(SystemMonitor, RaplCounterWrapArithmetic) {
    EXPECT_EQ(SystemMonitor::raplDelta(100, 250, 1000), 150u);
    EXPECT_EQ(SystemMonitor::raplDelta(900, 50, 1000), 150u);  // 100 to the range, 50 past 0
    EXPECT_EQ(SystemMonitor::raplDelta(0, 0, 1000), 0u);
    const uint64_t range = 262143328850ull;  // a real package's max_energy_range_uj
    EXPECT_EQ(SystemMonitor::raplDelta(range - 10, 5, range), 15u);
    EXPECT_EQ(SystemMonitor::raplDelta(5000, 7, 0), 7u);  // no range known: what the counter says
}

namespace {
void writeText(const std::string& path, const std::string& text) { std::ofstream(path) << text << "\n"; }
}  // namespace

TEST(SystemMonitor, RaplEnergyFromPackagesWithWrapAndNoSubdomainTwice) {
    TempDir root;
    for (const char* d : {"intel-rapl:0", "intel-rapl:1", "intel-rapl:0:0", "intel-rapl-mmio:0"}) std::filesystem::create_directories(root.path() / d);
    writeText(root / "intel-rapl:0/energy_uj", "999000000");
    writeText(root / "intel-rapl:0/max_energy_range_uj", "1000000000");
    writeText(root / "intel-rapl:1/energy_uj", "5000000");
    writeText(root / "intel-rapl:1/max_energy_range_uj", "1000000000");
    writeText(root / "intel-rapl:0:0/energy_uj", "123000000");  // cores: part of package 0
    writeText(root / "intel-rapl:0:0/max_energy_range_uj", "1000000000");
    writeText(root / "intel-rapl-mmio:0/energy_uj", "777000000");  // the same package again
    writeText(root / "intel-rapl-mmio:0/max_energy_range_uj", "1000000000");
    SystemMonitor m(-1, "cpu", root.path().string());
    EXPECT_EQ(m.unavailable().count(EventField::kUnavailableCpuEnergy), 0u);
    EXPECT_EQ(m.unavailable().at(EventField::kUnavailableGpu), "this run trains on the CPU");
    SystemEvent first = m.sample();
    ASSERT_TRUE(first.energyJ);
    EXPECT_EQ(*first.energyJ, 0.0);
    EXPECT_NE(first.energySource.value_or("").find("RAPL"), std::string::npos);
    // package 0 wraps: 1 J to the range, 2 J past 0; package 1 +4 J; the subdomains moved too
    writeText(root / "intel-rapl:0/energy_uj", "2000000");
    writeText(root / "intel-rapl:1/energy_uj", "9000000");
    writeText(root / "intel-rapl:0:0/energy_uj", "923000000");
    writeText(root / "intel-rapl-mmio:0/energy_uj", "977000000");
    SystemEvent second = m.sample();
    ASSERT_TRUE(second.energyJ);
    EXPECT_NEAR(*second.energyJ, 7.0, 1e-9);
    ASSERT_TRUE(second.powerW);
    EXPECT_GT(*second.powerW, 0.0);
    EXPECT_TRUE(std::isfinite(second.cpuPercent));
    EXPECT_GT(second.rssMb, 0.0);
    EXPECT_TRUE(std::isfinite(second.readMbS));  // /proc/self/io
    EXPECT_EQ(second.unavailable, m.unavailable());
}

TEST(SystemMonitor, NoRaplAndNoNvmlSayWhy) {
    TempDir root;  // empty: no intel-rapl domain
    SystemMonitor m(0, "cuda:0", root.path().string(), "libnvidia-ml-not-here.so.1");
    EXPECT_FALSE(m.hasGpu());
    const SystemEvent e = m.sample();
    EXPECT_FALSE(e.energyJ);
    EXPECT_FALSE(e.gpuUtil);
    EXPECT_NE(e.unavailable.at(EventField::kUnavailableCpuEnergy).find("no RAPL energy counters"), std::string::npos);
    EXPECT_NE(e.unavailable.at(EventField::kUnavailableGpu).find("no NVIDIA driver (NVML, libnvidia-ml-not-here.so.1) on "), std::string::npos);
    EXPECT_EQ(e.unavailable.at(EventField::kUnavailableGpuEnergy), e.unavailable.at(EventField::kUnavailableGpu));
    // a device that is no NVIDIA GPU is named
    SystemMonitor mps(-1, "mps", root.path().string());
    EXPECT_EQ(mps.unavailable().at(EventField::kUnavailableGpu), "this run trains on mps, not an NVIDIA GPU");
}

TEST(SystemMonitor, UnreadableRaplCountersAreRootOnly) {
    // As on Linux since 2020: energy_uj mode 0400, owned by root. Taking the read permission away
    // stops a non-root reader; as root the check runs in a child that drops to nobody.
    TempDir root;
    std::filesystem::create_directories(root.path() / "intel-rapl:0");
    writeText(root / "intel-rapl:0/energy_uj", "1000");
    writeText(root / "intel-rapl:0/max_energy_range_uj", "1000000");
    ASSERT_EQ(::chmod((root / "intel-rapl:0/energy_uj").c_str(), 0), 0);
    ASSERT_EQ(::chmod(root.path().c_str(), 0755), 0);
    const auto reason = [&] {
        SystemMonitor m(-1, "cpu", root.path().string());
        const SystemEvent e = m.sample();
        return e.energyJ ? std::string("measured") : e.unavailable.at(EventField::kUnavailableCpuEnergy);
    };
    const std::string expected = "RAPL energy counters are not readable (root only)";
    if (::geteuid() != 0) {
        EXPECT_EQ(reason(), expected);
        return;
    }
    int pipe[2];
    ASSERT_EQ(::pipe(pipe), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::close(pipe[0]);
        const std::string r = ::setgid(65534) == 0 && ::setuid(65534) == 0 ? reason() : std::string("setuid failed");
        const ssize_t n = ::write(pipe[1], r.data(), r.size());
        ::_exit(n == static_cast<ssize_t>(r.size()) ? 0 : 1);
    }
    ::close(pipe[1]);
    std::string got;
    char buf[256];
    for (ssize_t n; (n = ::read(pipe[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
    ::close(pipe[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_EQ(got, expected);
}
