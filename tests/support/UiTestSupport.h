// Shared helpers of the Qt Test suites: settings in a temporary folder, recorded run
// directories (events.jsonl as the trainer writes it, sample PNGs), polling waits.
#pragma once

#include <unistd.h>
#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdio>
#include <functional>

namespace streetgan::test {

/// The deadline of a GUI test's wait on a worker, a child process or a remote host: generous, since
/// a wait ends as soon as its condition holds. On 2 cores running four suites beside a busy loop a
/// first render (a child loading LibTorch and a checkpoint) took over 30 s.
constexpr int kWaitMs = 120000;

/// Points QSettings at `dir` and a per-process organisation, so no test touches ~/.config.
/// This process's children (from /proc/PID/stat's parent field) whose command line contains
/// `needle` (every child when empty).
inline QList<pid_t> childPids(const QByteArray& needle = {}) {
    QList<pid_t> out;
    QDirIterator it("/proc");
    while (it.hasNext()) {
        const QString p = it.next();
        bool ok = false;
        const pid_t pid = QFileInfo(p).fileName().toInt(&ok);
        if (!ok) continue;
        QFile stat(p + "/stat"), cmd(p + "/cmdline");
        if (!stat.open(QIODevice::ReadOnly) || !cmd.open(QIODevice::ReadOnly)) continue;
        const QByteArray s = stat.readAll();
        const QList<QByteArray> fields = s.mid(s.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1 && fields[1].toInt() == ::getpid() && (needle.isEmpty() || cmd.readAll().contains(needle))) out << pid;
    }
    return out;
}

/// Points QSettings and the XDG config folder at `dir`, and the XDG data and cache folders at
/// `dir`/data and `dir`/cache: the app's default runs folder and the demo's copy live there, never
/// in the real home. A suite may point XDG_DATA_HOME elsewhere afterwards.
inline void isolateSettings(const QString& dir) {
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir);
    QCoreApplication::setOrganizationName(QString("StreetGAN-test-%1").arg(QCoreApplication::applicationPid()));
    QCoreApplication::setApplicationName("StreetGAN Studio test");
    qputenv("XDG_CONFIG_HOME", dir.toLocal8Bit());
    qputenv("XDG_DATA_HOME", (dir + "/data").toLocal8Bit());
    qputenv("XDG_CACHE_HOME", (dir + "/cache").toLocal8Bit());
}

/// Stops every trainer daemon of a run directory under `root` (a failed test must not leave a
/// long run training): `streetgan-trainer control DIR stop` where a control socket exists.
inline void stopRunsUnder(const QString& root, const QString& trainer) {
    QDirIterator it(root, {"control.sock"}, QDir::System | QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString dir = QFileInfo(it.next()).absolutePath();
        QProcess::execute(trainer, {"control", dir, "stop"});
    }
}

/// The options of a real tiny run (tiny-32, synthetic data, batch 8, CPU, one thread): `steps`
/// steps, a checkpoint every `checkpointEvery`, metrics every `logEvery`, no samples. For `train`
/// and `start --detach` alike.
inline QStringList tinyRunOptions(const QString& runDir, int steps, int checkpointEvery, int logEvery = 2, int syntheticImages = 32) {
    return {"--run-dir",
            runDir,
            "--preset",
            "tiny-32",
            "--data",
            "synthetic",
            "--synthetic-images",
            QString::number(syntheticImages),
            "--steps",
            QString::number(steps),
            "--batch",
            "8",
            "--device",
            "cpu",
            "--threads",
            "1",
            "--loader-threads",
            "1",
            "--log-every",
            QString::number(logEvery),
            "--sample-every",
            "0",
            "--checkpoint-every",
            QString::number(checkpointEvery)};
}

/// Trains a real tiny run with `trainer` (tinyRunOptions) in the foreground.
/// Returns "" on success, else the trainer's stderr (for QVERIFY2).
inline QString trainTinyRun(const QString& trainer, const QString& runDir, int steps, int checkpointEvery, int logEvery = 2, int syntheticImages = 32) {
    QProcess train;
    train.start(trainer, QStringList{"train"} + tinyRunOptions(runDir, steps, checkpointEvery, logEvery, syntheticImages));
    if (!train.waitForFinished(60000)) return "the trainer did not finish within 60 s";
    return train.exitCode() == 0 ? QString() : QString::fromLocal8Bit(train.readAllStandardError()) + " (exit " + QString::number(train.exitCode()) + ")";
}

struct RecordedRun {
    int metrics = 0, samples = 0, system = 0;
};

/// Writes a finished run: a running status, a data event, `metrics` metrics events (data_wait
/// `wait`), a system event every 50 steps, a sample grid (real PNG) every `sampleEvery` steps,
/// and a final status `finalState` ("" for none: a run that looks alive but is not).
inline RecordedRun writeRun(const QString& dir, int metrics, int sampleEvery = 100, double wait = 0.05, const QString& finalState = "finished") {
    QDir().mkpath(dir + "/samples");
    RecordedRun r;
    FILE* f = std::fopen(QString(dir + "/events.jsonl").toLocal8Bit().constData(), "w");
    const double t0 = 1.75e9;
    std::fprintf(f, "{\"device\":\"cpu\",\"kind\":\"status\",\"pid\":1,\"state\":\"running\",\"step\":0,\"t\":%.6f,\"total_steps\":%d}\n", t0, metrics);
    std::fprintf(f, "{\"images\":6400,\"kind\":\"data\",\"source\":\"synthetic\",\"steps_per_epoch\":100,\"t\":%.6f}\n", t0);
    for (int i = 1; i <= metrics; ++i) {
        std::fprintf(f,
                     "{\"d_g_z1\":0.3,\"d_g_z2\":0.2,\"d_x\":0.7,\"data_wait\":%.3f,\"epoch\":%d,\"img_per_s\":%.1f,\"kind\":\"metrics\","
                     "\"loss_d\":%.6f,\"loss_g\":%.6f,\"lr\":0.0002,\"step\":%d,\"t\":%.6f,\"total_steps\":%d,\"grad_norm_d\":%.4f,\"grad_norm_g\":%.4f}\n",
                     wait, (i - 1) / 100, 500.0 + i % 7, 1.0 + std::sin(i / 30.0) * 0.3, 2.0 + std::cos(i / 40.0) * 0.5, i, t0 + i * 0.1, metrics,
                     3.0 + std::sin(i / 20.0), 5.0 + std::cos(i / 25.0));
        ++r.metrics;
        if (i % 50 == 0) {
            std::fprintf(f, "{\"cpu_percent\":87.5,\"kind\":\"system\",\"read_mb_s\":42.5,\"rss_mb\":1234,\"step\":%d,\"t\":%.6f}\n", i, t0 + i * 0.1);
            ++r.system;
        }
        if (sampleEvery > 0 && i % sampleEvery == 0) {
            QImage img(64, 64, QImage::Format_RGB32);
            img.fill(QColor::fromHsv((i / sampleEvery * 40) % 360, 200, 200));
            img.save(QString("%1/samples/step_%2.png").arg(dir).arg(i));
            std::fprintf(f, "{\"epoch\":%d,\"kind\":\"sample\",\"path\":\"samples/step_%d.png\",\"step\":%d,\"t\":%.6f}\n", (i - 1) / 100, i, i, t0 + i * 0.1);
            ++r.samples;
        }
    }
    if (!finalState.isEmpty())
        std::fprintf(f, "{\"kind\":\"status\",\"state\":\"%s\",\"step\":%d,\"t\":%.6f,\"total_steps\":%d}\n", qPrintable(finalState), metrics,
                     t0 + metrics * 0.1 + 1, metrics);
    std::fclose(f);
    QFile run(dir + "/run.json");
    run.open(QIODevice::WriteOnly);
    run.write("{\"config\":{\"preset\":\"tiny-32\"},\"version\":\"test\"}\n");
    return r;
}

/// Copies `from` to `to` `piece` bytes a write, flushed after each: a file that a trainer writes
/// while it is followed. False when either cannot be opened.
inline bool writeInPieces(const QString& from, const QString& to, int piece) {
    QFile in(from), out(to);
    if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly)) return false;
    const QByteArray bytes = in.readAll();
    for (qsizetype at = 0; at < bytes.size(); at += piece) {
        out.write(bytes.mid(at, piece));
        out.flush();
    }
    return true;
}

}  // namespace streetgan::test
