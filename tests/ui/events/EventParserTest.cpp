// The event parsers and the hand-over buffer: fields, kinds (checkpoint metrics as scalar tags),
// torn and non-JSON lines, protocol lines and offsets.
#include <QTest>
#include <cmath>
#include <map>
#include <string>
#include <thread>

#include <random>
#include "dashboard/MinMaxPyramid.h"
#include "events/EventBuffer.h"
#include "events/EventLineParser.h"
#include "events/RunSeries.h"

using namespace streetgan::ui;

namespace {
// JSON written with single quotes (readable in C++ source); a backslash-escaped quote stays as is.
std::string q(const char* text) {
    std::string s(text);
    for (size_t i = 0; i < s.size(); ++i)
        if (s[i] == '\'' && (i == 0 || s[i - 1] != '\\')) s[i] = '"';
    return s;
}
}  // namespace

class EventParserTest : public QObject {
    Q_OBJECT
private slots:
    void metricsLine() {
        EventLineParser p;
        EventBatch b;
        QVERIFY(p.parseEvent(q("{'d_g_z1':0.31,'d_g_z2':0.22,'d_x':0.7,'data_wait':0.25,'epoch':3,'img_per_s':812.5,'kind':'metrics','loss_d':1.25,'loss_g':-"
                               "2e-3,'lr':0.0002,'step':42,'t':1700000000.5,'total_steps':100}"),
                             b));
        QCOMPARE(b.metrics.size(), size_t{1});
        QCOMPARE(b.metrics.step[0], 42.0);
        QCOMPARE(b.metrics.epoch[0], 3.0);
        QCOMPARE(b.metrics.t[0], 1700000000.5);
        QCOMPARE(b.metrics[Metric::LossD][0], 1.25);
        QCOMPARE(b.metrics[Metric::LossG][0], -2e-3);
        QCOMPARE(b.metrics[Metric::DGz1][0], 0.31);
        QCOMPARE(b.metrics[Metric::DataWait][0], 0.25);
        QCOMPARE(b.metrics[Metric::ImgPerS][0], 812.5);
        QCOMPARE(b.totalSteps, int64_t{100});
        QCOMPARE(b.lastStep, int64_t{42});
    }
    void checkpointMetricsBecomeScalarTags() {
        // The dashboard's Scalars tab plots them under TensorBoard's tags; null values are no points.
        EventLineParser p;
        EventBatch b;
        QVERIFY(p.parseEvent(q("{'kind':'metric','step':40,'t':9.5,'swd':30.5,'swd_levels':{'64':20.0,'32':31.5,'16':40.0},'fid':null,"
                               "'fid_unavailable':'no feature model','kid':0.25}"),
                             b));
        QCOMPARE(b.metrics.size(), size_t{0});
        std::map<std::string, double> got;
        for (const auto& s : b.scalars) {
            QCOMPARE(s.step, 40.0);
            QCOMPARE(s.t, 9.5);
            got[s.tag] = s.value;
        }
        const std::map<std::string, double> want = {
            {"metrics/swd", 30.5}, {"metrics/swd_64", 20.0}, {"metrics/swd_32", 31.5}, {"metrics/swd_16", 40.0}, {"metrics/kid", 0.25}};
        QCOMPARE(got, want);
    }
    void missingFieldIsNaN() {
        EventLineParser p;
        EventBatch b;
        QVERIFY(p.parseEvent(q("{'kind':'metrics','step':1,'loss_d':0.5, 't': 3}"), b));
        QVERIFY(std::isnan(b.metrics[Metric::LossG][0]));
        QCOMPARE(b.metrics[Metric::LossD][0], 0.5);
    }
    void otherKinds() {
        EventLineParser p;
        EventBatch b;
        QVERIFY(p.parseEvent(q("{'kind':'status','state':'running','device':'cuda:0','step':0,'total_steps':10,'resumed_from':'','t':1}"), b));
        QVERIFY(p.parseEvent(q("{'kind':'data','skipped':{'bad.jpg':1,'x':[1,{'y':'}'}]},'steps_per_epoch':250,'t':2}"), b));
        QVERIFY(p.parseEvent(q("{'kind':'sample','path':'samples/step_5.png','step':5,'t':3}"), b));
        QVERIFY(p.parseEvent(q("{'kind':'checkpoint','path':'checkpoints/checkpoint_0.pt','step':5,'epoch':0,'t':3}"), b));
        QVERIFY(p.parseEvent(q("{'kind':'system','cpu_percent':55.5,'gpu_util':98,'gpu_mem_mb':4096,'rss_mb':900,'read_mb_s':12.5,'step':5,'t':4}"), b));
        QVERIFY(p.parseEvent(q("{'kind':'error','message':'rejected \\\"set-lr\\\": \\u00e9 bad\\nvalue','t':5}"), b));
        QVERIFY(p.parseEvent(q("{'kind':'status','state':'paused','step':5,'t':6}"), b));
        QCOMPARE(b.metrics.size(), size_t{0});
        QCOMPARE(b.state, std::string("paused"));
        QCOMPARE(b.device, std::string("cuda:0"));
        QCOMPARE(b.stepsPerEpoch, int64_t{250});
        QCOMPARE(b.loaderAdvice, std::string());  // a data event without advice
        QVERIFY(p.parseEvent(q("{'kind':'data','loader_advice':{'data_wait':0.31,'threads_needed':6,'message':'data: the loader holds the step back: give "
                               "--loader-threads 6'},'step':9,'t':7}"),
                             b));
        QCOMPARE(b.loaderAdvice, std::string("the loader holds the step back: give --loader-threads 6"));
        QCOMPARE(b.samples.size(), size_t{1});
        QCOMPARE(b.samples[0].path, std::string("samples/step_5.png"));
        QCOMPARE(b.checkpoints.size(), size_t{1});
        QCOMPARE(b.system.size(), size_t{1});
        QCOMPARE(b.system[0].gpuUtil, 98.0);
        QVERIFY(std::isnan(SystemSample{}.gpuUtil));
        QCOMPARE(b.errors.size(), size_t{1});
        QCOMPARE(QString::fromStdString(b.errors[0]), QString::fromUtf8("rejected \"set-lr\": \xc3\xa9 bad\nvalue"));
        QCOMPARE(b.firstT, 1.0);
    }
    void surrogatePairEscapesDecode() {
        // U+1F600 written as a UTF-16 surrogate pair (what a writer with ensure_ascii emits):
        // one 4-byte UTF-8 character, not two broken 3-byte ones.
        EventLineParser p;
        EventBatch b;
        QVERIFY(p.parseEvent(q("{'kind':'error','message':'grinning \\ud83d\\ude00 done','t':5}"), b));
        QVERIFY(p.parseEvent(q("{'kind':'sample','path':'samples/\\ud83d\\ude00.png','step':7,'t':6}"), b));
        QCOMPARE(b.errors.size(), size_t{1});
        QCOMPARE(b.errors[0], std::string("grinning \xF0\x9F\x98\x80 done"));
        QCOMPARE(QString::fromStdString(b.errors[0]), QString::fromUtf8("grinning \xF0\x9F\x98\x80 done"));
        QCOMPARE(b.samples.size(), size_t{1});
        QCOMPARE(b.samples[0].path, std::string("samples/\xF0\x9F\x98\x80.png"));
        // The same inside an attach protocol line.
        EventBatch c;
        QVERIFY(p.parseProtocol(q("{'end':90,'event':{'kind':'error','message':'\\ud83d\\ude00','t':1},'offset':40}"), c));
        QCOMPARE(c.errors.size(), size_t{1});
        QCOMPARE(c.errors[0], std::string("\xF0\x9F\x98\x80"));
        QCOMPARE(c.endOffset, int64_t{90});
    }
    void badLinesAreSkipped() {
        EventLineParser p;
        EventBatch b;
        QVERIFY(!p.parseEvent("{\"kind\":\"metrics\",\"step\":1,\"loss_d\":0.", b));
        QVERIFY(!p.parseEvent("not json", b));
        QVERIFY(!p.parseEvent("", b));
        QCOMPARE(p.badLines(), int64_t{3});
        QCOMPARE(b.metrics.size(), size_t{0});
    }
    void chunkStopsAtTornLine() {
        EventLineParser p;
        EventBatch b;
        const std::string a = "{\"kind\":\"metrics\",\"step\":1,\"loss_d\":1}\n";
        const std::string c = "{\"kind\":\"metrics\",\"step\":2,\"loss_d\":2}\n";
        const std::string data = a + c + "{\"kind\":\"metr";
        const size_t used = p.parseEventChunk(data, 100, b);
        QCOMPARE(used, a.size() + c.size());
        QCOMPARE(b.endOffset, int64_t(100 + a.size() + c.size()));
        QCOMPARE(b.metrics.size(), size_t{2});
    }
    void protocolLines() {
        EventLineParser p;
        EventBatch b;
        QVERIFY(p.parseProtocol(q("{'offset':0,'end':57,'event':{'kind':'metrics','step':7,'loss_d':0.5,'t':9}}"), b));
        QVERIFY(p.parseProtocol(q("{'live':true,'offset':57,'state':'running'}"), b));
        QVERIFY(p.parseProtocol(q("{'reply':{'ok':true,'cmd':'pause'}}"), b));
        QCOMPARE(b.metrics.size(), size_t{1});
        QCOMPARE(b.endOffset, int64_t{57});
        QVERIFY(b.live);
        QCOMPARE(b.liveState, std::string("running"));
        QVERIFY(b.state.empty());  // the live line's state is not a status event
        QCOMPARE(b.replies.size(), size_t{1});
        QVERIFY(!b.ended);
        QVERIFY(p.parseProtocol(q("{'end':true,'offset':99,'state':'finished'}"), b));
        QVERIFY(b.ended);
        QCOMPARE(b.endState, std::string("finished"));
        QCOMPARE(b.endOffset, int64_t{99});
        QVERIFY(!p.parseProtocol(q("{'something':'else'}"), b));
    }
    void attachStateAfterAnOffset() {
        EventLineParser p;
        // events read from the file say running; attach from the end then ends with "new": crashed
        RunSeries crashed;
        EventBatch a;
        p.parseEvent(q("{'kind':'status','state':'running','t':1}"), a);
        crashed.append(std::move(a));
        EventBatch b;
        p.parseProtocol(q("{'live':true,'offset':9,'state':'new'}"), b);
        p.parseProtocol(q("{'end':true,'offset':9,'state':'new'}"), b);
        crashed.append(std::move(b));
        QCOMPARE(crashed.state(), std::string("crashed"));
        // a finished run stays finished
        RunSeries finished;
        EventBatch c;
        p.parseEvent(q("{'kind':'status','state':'finished','t':1}"), c);
        p.parseProtocol(q("{'live':true,'offset':9,'state':'new'}"), c);
        p.parseProtocol(q("{'end':true,'offset':9,'state':'new'}"), c);
        finished.append(std::move(c));
        QCOMPARE(finished.state(), std::string("finished"));
    }
    void bufferMergesAcrossThreads() {
        EventBuffer buffer;
        std::thread producer([&] {
            EventLineParser p;
            for (int i = 0; i < 1000; ++i) {
                EventBatch b;
                p.parseEvent("{\"kind\":\"metrics\",\"step\":" + std::to_string(i) + ",\"loss_d\":1,\"t\":1}", b);
                buffer.append(std::move(b));
            }
        });
        RunSeries series;
        while (series.rows() < 1000) {
            if (buffer.hasPending()) series.append(buffer.take());
            if (series.rows() < 1000) std::this_thread::yield();
        }
        producer.join();
        QCOMPARE(series.rows(), size_t{1000});
        for (size_t i = 0; i < 1000; ++i) QCOMPARE(series.x(XAxisMode::Step, i), double(i));
    }
    void pyramidKeepsExtremes() {
        std::vector<float> v(100003);
        std::mt19937 rng(3);
        std::normal_distribution<float> d;
        for (auto& x : v) x = d(rng);
        v[777] = 50;
        v[90001] = -50;
        v[5] = std::numeric_limits<float>::quiet_NaN();
        MinMaxPyramid p;
        p.update(v.data(), 50000);  // grows incrementally
        p.update(v.data(), v.size());
        std::vector<std::pair<size_t, float>> pts;
        p.forEachPoint(v.data(), 0, v.size(), 1000, [&](size_t row, float value) { pts.emplace_back(row, value); });
        QVERIFY(pts.size() <= 1100);
        QVERIFY(pts.size() >= 500);
        float lo = 0, hi = 0;
        for (size_t i = 0; i < pts.size(); ++i) {
            lo = std::min(lo, pts[i].second);
            hi = std::max(hi, pts[i].second);
            if (i > 0) QVERIFY(pts[i].first >= pts[i - 1].first);
        }
        QCOMPARE(hi, 50.f);
        QCOMPARE(lo, -50.f);
        QCOMPARE(pts.back().first, v.size() - 1);
        pts.clear();
        p.forEachPoint(v.data(), 100, 300, 1000, [&](size_t row, float value) { pts.emplace_back(row, value); });
        QCOMPARE(pts.size(), size_t{200});  // few rows: the raw rows
        QCOMPARE(pts[0].second, v[100]);
    }
    // A learning rate halved at a step, drawn from its coarse levels: the points never go back up
    // (a block's extremes come in their own order, not min then max).
    void pyramidDrawsAFallAsAFall() {
        std::vector<float> v(100000);
        for (size_t i = 0; i < v.size(); ++i) v[i] = i < 51234 ? 2e-4f : (i < 80001 ? 1e-4f : 5e-5f);
        MinMaxPyramid p;
        p.update(v.data(), 30000);
        p.update(v.data(), v.size());
        for (size_t from : {size_t{0}, size_t{7}}) {  // whole blocks, and partial ones at both ends
            std::vector<float> drawn;
            p.forEachPoint(v.data(), from, v.size() - from, 300, [&](size_t, float value) { drawn.push_back(value); });
            QVERIFY(drawn.size() < 700);
            for (size_t i = 1; i < drawn.size(); ++i) QVERIFY2(drawn[i] <= drawn[i - 1], qPrintable(QString("point %1 goes up").arg(i)));
        }
    }
};

QTEST_GUILESS_MAIN(EventParserTest)
#include "EventParserTest.moc"
