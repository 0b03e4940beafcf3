// One open run, local or remote, and everything that feeds it: a local run is read from its
// events.jsonl by a RunFileLoader and then followed by a LocalAttachWorker from the offset
// reached; a remote run is followed by a RemoteAttachWorker over SSH. Both write into one
// EventBuffer, which a kFrameMs timer drains into the RunSeries on the GUI thread (so views update
// at most 10 times a second, never once per event). GUI thread; owns its worker threads.
#pragma once

#include <QElapsedTimer>
#include <QImage>
#include <QObject>
#include <QString>
#include <QTimer>

#include <map>
#include <memory>
#include <optional>

#include "base/remote/SshOptions.h"
#include "events/RunSeries.h"

class QThread;

namespace streetgan::ui {

class EventBuffer;
class RunFileLoader;
class LocalAttachWorker;
class RemoteAttachWorker;
class RunFileFetcher;

class RunSession : public QObject {
    Q_OBJECT
public:
    /// The frame budget of everything a followed run updates (plots, panels, the sidebar): one
    /// drain per kFrameMs. PlotJuggler replots every 40 ms; a training curve moves slowly, and at
    /// 100 ms a run logging every step costs the app well under half the CPU (issue 48: the plots'
    /// replots were most of it), while a drain still takes the whole backlog, so catching up is
    /// not slower.
    static constexpr int kFrameMs = 100;
    /// A local run directory (followed in-process); `trainer`: the streetgan-trainer binary.
    RunSession(QString runDir, QString trainer, QObject* parent = nullptr);
    /// A remote run (`runDir` on the host `ssh` names, callbacks set); `hostLabel` for titles.
    RunSession(QString runDir, SshOptions ssh, QString remoteTrainer, QString hostLabel, QObject* parent = nullptr);
    ~RunSession() override;

    /// Starts reading and following (call once, after connecting to the signals).
    void start();
    /// Stops following; the data read stays.
    void stop();

    RunSeries& series() { return series_; }
    const RunSeries& series() const { return series_; }
    /// The run's tags with no metric of their own (a TensorBoard run's other tags), each as a
    /// series of its own whose values are in its Metric::LossD column (so that a PlotPanel of that
    /// one metric draws it: ScalarsPanel). By tag.
    const std::map<QString, std::unique_ptr<RunSeries>>& tagSeries() const { return tagSeries_; }
    QString runDir() const { return runDir_; }
    QString title() const { return title_; }
    bool isRemote() const { return ssh_.has_value(); }
    QString hostLabel() const { return hostLabel_; }
    /// The run's key across the app (RunPalette::key): the sidebar's check boxes, the plots, alerts.
    QString runKey() const;
    /// pause | resume | stop | checkpoint-now | sample-now | set-lr (with value). Sent while a
    /// local run's backlog still loads, it goes once the follower starts.
    void sendCommand(const QString& cmd, std::optional<double> value = {});
    /// Loads a run file as an image on a worker; answers with imageReady(jobId, ...).
    quint64 requestImage(const QString& relativePath);
    /// Another trainer's TensorBoard run (the attach stream's live line says so).
    bool isTensorBoard() const { return tensorBoard_; }
    /// The img_list grids of a TensorBoard run's newest checkpoint (absolute paths of cached PNGs,
    /// for requestImage; step = index in img_list), and that checkpoint relative to the run.
    const std::vector<RunFileRef>& checkpointGrids() const { return checkpointGrids_; }
    QString gridsCheckpoint() const { return gridsCheckpoint_; }
    /// Looks for the newest checkpoint's grids: a local run's are extracted at once (and looked
    /// for again every 30 s while it is followed), a remote run's checkpoint is offered
    /// (checkpointGridsOffered) until this is called with `download` set.
    void loadCheckpointGrids(bool download = false);
    /// Drains the buffer now (tests, benchmarks); the timer does it every kFrameMs.
    void drainNow();
    bool loading() const { return loading_; }
    /// Whether the trainer was seen alive while following: an attach live line said running or
    /// paused (the trainer held the run lock then). A run whose trainer was gone when it was
    /// opened never is, so its end (finished yesterday, crashed long ago) is history, not news
    /// (RunAlerts notifies only what it sees happen).
    bool trainerSeenAlive() const { return trainerSeenAlive_; }

signals:
    /// New data in series(): metrics rows from `fromRow` on are new or rewritten (RunSeries
    /// downsamples its tail; maybe none: other events).
    void appended(qsizetype fromRow);
    void connectionChanged(const QString& text, bool healthy);
    void loadProgress(qint64 done, qint64 total);
    void loaded(qint64 lines, double seconds);
    void errorOccurred(const QString& what, const QString& todo);
    void replyReceived(const QString& json);
    void imageReady(quint64 jobId, const QString& relativePath, const QString& localPath, const QImage& image);
    void imageFailed(quint64 jobId, const QString& message);
    /// A remote file download in progress (bytes).
    void downloadProgress(qint64 done, qint64 total);
    /// New values of `tag` in tagSeries(): rows from `fromRow` on are new or rewritten.
    void scalarsAppended(const QString& tag, qsizetype fromRow);
    /// checkpointGrids() changed (a newer checkpoint's grids).
    void checkpointGridsChanged();
    /// A remote TensorBoard run's newest checkpoint, to download for its grids (`size` bytes).
    void checkpointGridsOffered(const QString& checkpoint, qint64 size);
    /// Why there are no grids: no checkpoint, no img_list in it, a failed export or download.
    void checkpointGridsFailed(const QString& message);

private:
    void initThreads();
    QString makeTitle() const;
    void onConnection(int state, const QString& message);
    void startAttach(qint64 offset);
    void appendScalars(const std::vector<ScalarPoint>& points);

    QString runDir_, trainer_, hostLabel_, title_;
    std::optional<SshOptions> ssh_;
    std::shared_ptr<EventBuffer> buffer_;
    RunSeries series_;
    std::map<QString, std::unique_ptr<RunSeries>> tagSeries_;
    QTimer drainTimer_;
    QThread* thread_ = nullptr;      // loader + local attach, or remote attach
    QThread* fileThread_ = nullptr;  // images
    RunFileLoader* loader_ = nullptr;
    LocalAttachWorker* localAttach_ = nullptr;
    /// Commands sent while a local run's backlog still loads (no attach yet): sent once it starts.
    QList<QByteArray> pendingCommands_;
    RemoteAttachWorker* remoteAttach_ = nullptr;
    RunFileFetcher* fetcher_ = nullptr;
    quint64 loadJob_ = 0, imageJob_ = 0;
    bool loading_ = false, started_ = false;
    bool trainerSeenAlive_ = false;
    bool tensorBoard_ = false;
    std::vector<RunFileRef> checkpointGrids_;
    QString gridsCheckpoint_;
    QTimer gridsTimer_;
    quint64 gridsJob_ = 0;
};

}  // namespace streetgan::ui
