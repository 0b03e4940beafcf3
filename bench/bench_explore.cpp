// The explore worker's interactive latency (not a test, asserts nothing): the app's RenderClient
// asks `streetgan-trainer explore-worker` for one frame of a walk at a time, as the scrubber does,
// and waits for it: request -> pipe -> LatentSession::latents + FrameRenderer -> pipe -> QImage.
//   bench_explore --checkpoint CK [--size 128] [--frames 200] [--segment 200] [--edit] [--device cpu]
// --segment: frames per segment of the 4-keyframe walk; --edit changes the session's truncation
// with every request, as a slider drag does (the worker computes the latents of the frame asked
// for, not the walk's: issue 44 item 4).
// Prints one JSON line: median / p90 / min round-trip ms over the frames (after 5 warm-up frames),
// the worker's own render ms (median), the first request's ms (process start + load) and the
// precision the worker rendered in (its reply's "precision": explore-worker --precision auto).
// The trainer is found like the app finds it (TrainerLocator: $STREETGAN_TRAINER, ...).
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "common/JsonFields.h"
#include "common/RenderClient.h"

using namespace streetgan::ui;
using nlohmann::json;

namespace {

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addOptions({{"checkpoint", "checkpoint", "path"},
                  {"size", "frame edge", "px", "128"},
                  {"frames", "frames measured", "n", "200"},
                  {"device", "worker device", "d", "cpu"},
                  {"segment", "frames per segment", "n", "200"},
                  {"edit", "edit the session with every request"}});
    p.process(app);
    const QString ck = p.value("checkpoint");
    const int size = p.value("size").toInt(), count = p.value("frames").toInt();
    // A walk of 4 seed keyframes; request i asks for frame i (mod the walk).
    json keys = json::array();
    for (int s : {2, 20, 28, 46}) keys.push_back({{"seed", s}});
    json session{{"keyframes", keys}, {"frames_per_segment", p.value("segment").toInt()}, {"size", size}, {"truncation", 0.9}};
    const bool edit = p.isSet("edit");
    const int walk = 4 * p.value("segment").toInt();

    RenderClient client(p.value("device"));
    std::vector<double> roundTrip, workerMs;
    double firstMs = 0;
    QString precision = "fp32";  // workers before issue 44 item 4 did not say
    int sent = 0;
    const int warmup = 5;
    QElapsedTimer timer;
    auto next = [&] {
        if (edit) session["truncation"] = 0.5 + (sent % 100) / 200.0;
        timer.start();
        client.latest("bench", {{"op", "frames"}, {"checkpoint", ck}, {"session", session}, {"from", sent % walk}, {"count", 1}});
        ++sent;
    };
    QObject::connect(&client, &RenderClient::finished, &app, [&](qint64, const json& h, const QByteArray& payload) {
        const QList<QImage> images = RenderClient::images(h, payload);
        const double ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        if (!JsonFields::flag(h, "ok") || images.size() != 1) {
            std::fprintf(stderr, "bench_explore: %s\n", qPrintable(JsonFields::text(h, "error", "no image")));
            app.exit(1);
            return;
        }
        if (sent == 1) firstMs = ms;
        precision = JsonFields::text(h, "precision", precision);
        if (sent > warmup) {
            roundTrip.push_back(ms);
            workerMs.push_back(JsonFields::number(h, "ms"));
        }
        if (static_cast<int>(roundTrip.size()) >= count) {
            app.exit(0);
            return;
        }
        next();
    });
    QTimer::singleShot(0, &app, next);
    const int rc = app.exec();
    if (rc != 0) return rc;
    std::printf(
        "{\"checkpoint\":\"%s\",\"walk_frames\":%d,\"edit\":%s,\"size\":%d,\"frames\":%zu,\"round_trip_ms_median\":%.2f,\"round_trip_ms_p90\":%.2f,"
        "\"round_trip_ms_min\":%.2f,\"worker_ms_median\":%.2f,\"first_request_ms\":%.1f,\"fps_at_median\":%.1f,\"precision\":\"%s\"}\n",
        qPrintable(ck), walk, edit ? "true" : "false", size, roundTrip.size(), percentile(roundTrip, 0.5), percentile(roundTrip, 0.9),
        percentile(roundTrip, 0.0), percentile(workerMs, 0.5), firstMs, 1000.0 / percentile(roundTrip, 0.5), qPrintable(precision));
    return 0;
}
