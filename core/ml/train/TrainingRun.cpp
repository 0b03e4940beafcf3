#include "ml/train/TrainingRun.h"

#include <unistd.h>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/daemon/TrainControl.h"
#include "base/follow/RunStatus.h"
#include "base/run/QualityMetric.h"
#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "base/util/Paths.h"
#include "base/util/SeedHash.h"
#include "base/util/Version.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/dataset/DataSources.h"
#include "ml/dist/DistributedContext.h"
#include "ml/export/ImageGrid.h"
#include "ml/util/DeviceChoice.h"

namespace streetgan {
namespace {

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string hostName() {
    char buf[256] = {};
    ::gethostname(buf, sizeof buf - 1);
    return buf;
}

// Fixed progress noise: a function of the seed alone, so every run with a seed shows the same z.
torch::Tensor fixedNoise(const TrainConfig& cfg) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(SeedHash::of(cfg.seed, 0x6669786564ULL));
    return torch::randn({cfg.fixedNoiseCount, cfg.model.nz, 1, 1}, gen);
}

}  // namespace

TrainingRun::TrainingRun(const TrainConfig& cfg, bool resume, DistributedContext* dist, TrainControl* control, RunOutput& out, const std::atomic<bool>& stop,
                         bool& stoppedByCommand, const RequeueSignal& requeue, bool& requeued)
    : cfg_(cfg),
      resume_(resume),
      dist_(dist),
      control_(control),
      out_(out),
      stop_(stop),
      stoppedByCommand_(stoppedByCommand),
      requeue_(requeue),
      requeued_(requeued),
      root_(out.root()),
      world_(dist ? dist->worldSize() : 1) {}

TrainingRun::~TrainingRun() = default;

int64_t TrainingRun::execute() {
    prepare();
    resumeFromCheckpoint();
    if (dist_) step_->setDistributed(*dist_);  // rank 0's parameters and buffers to all, then averaged gradients
    writeRunJson();
    announceStart();
    trainLoop();
    return finish();
}

int64_t TrainingRun::epochOf(int64_t stepsDone) const { return epochBase_ + (stepsDone == 0 ? int64_t{0} : (stepsDone - 1) / stepsPerEpoch_); }

StatusEvent TrainingRun::status(const char* state) const {
    StatusEvent e;
    e.state = state;
    e.step = done_;
    e.totalSteps = total_;
    return e;
}

void TrainingRun::prepare() {
    device_ = dist_ ? DistributedContext::rankDevice(cfg_.device, dist_->env()) : DeviceChoice::select(cfg_.device);
    if (cfg_.threads > 0) torch::set_num_threads(cfg_.threads);
    if (device_.is_cuda()) at::globalContext().setBenchmarkCuDNN(true);

    // Photos are read decoded or through a packed cache of them, as --data-path chooses (said on
    // stderr and in the data event).
    source_ = DataSources::openForTraining(
        cfg_.data, cfg_, device_.is_cuda(), static_cast<int>(world_),
        [this](const std::string& line) {
            if (!root_) return;
            std::fprintf(stderr, "%s\n", line.c_str());
            if (dataPathNote_.empty()) dataPathNote_ = line;
        },
        &stop_);
    LoaderOptions lo;
    lo.batch = cfg_.batch;
    lo.imgSize = static_cast<int>(cfg_.model.imgSize);
    lo.nz = cfg_.model.nz;
    lo.seed = cfg_.seed;
    lo.threads = cfg_.loaderThreads;
    lo.prefetch = cfg_.prefetch;
    lo.pinMemory = device_.is_cuda();
    lo.deviceSide = device_.is_cuda();  // uint8 over PCIe, normalised and noise drawn on the GPU
    // A GPU should not wait for pickling and fsync; on the CPU the write is a small share of a
    // step's time, and writing in line keeps the events in step order.
    if (device_.is_cuda() && root_) writer_.emplace();
    lo.instanceNoise = cfg_.instanceNoise > 0;
    lo.rank = dist_ ? dist_->rank() : 0;  // --batch is per rank: the global batch is batch x world size
    lo.worldSize = world_;
    loader_.emplace(source_, lo);
    if (root_)
        loaderAdvice_.emplace(LoaderAdvice::Setup{DataSources::packCommand(cfg_.data, cfg_), source_->decodesPhotos(), cfg_.loaderThreads,
                                                  static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))});
    stepsPerEpoch_ = loader_->stepsPerEpoch();
    total_ = cfg_.totalSteps(stepsPerEpoch_);

    torch::manual_seed(cfg_.seed);
    step_.emplace(cfg_, device_);
    noise_ = fixedNoise(cfg_);
}

void TrainingRun::resumeFromCheckpoint() {
    RunDirectory* const dir = out_.dir();
    std::optional<std::string> latest;
    std::string resumeCopy;  // a non-root rank's temporary copy of rank 0's checkpoint
    if (resume_ && root_) latest = dir->latestCheckpoint();
    if (resume_ && dist_) {
        // Rank 0's checkpoint travels as bytes: the ranks restore the same state wherever they run.
        std::string bytes = latest ? AtomicFile::read(*latest) : std::string();
        std::string name = latest.value_or("");
        dist_->broadcastBytes(bytes, "broadcast of the resume checkpoint");
        dist_->broadcastBytes(name, "broadcast of the resume checkpoint");
        if (!root_ && !bytes.empty()) {
            const std::string tmpDir = Paths::tempDir();
            std::string tmpl = tmpDir + "/streetgan-resume-XXXXXX";
            const int fd = ::mkstemp(tmpl.data());
            if (fd < 0)
                throw IoError("cannot create a temporary file in " + tmpDir + " for rank " + std::to_string(dist_->rank()) + "'s copy of " + name +
                              ": free space there or set TMPDIR");
            ::close(fd);
            AtomicFile::write(tmpl, bytes);
            resumeCopy = tmpl;
            latest = name;
        }
    }
    if (resume_) {
        if (latest) {
            const std::string& readFrom = resumeCopy.empty() ? *latest : resumeCopy;
            CheckpointData ck = Checkpoint::load(readFrom);
            if (!resumeCopy.empty()) {
                std::remove(resumeCopy.c_str());
                resumeCopy.clear();
            }
            step_->restore(ck, *latest);
            // The run trains at the rate its settings give (run.json, or --lr on this resume), not
            // at the one the checkpoint's optimiser state holds: a changed rate takes effect here
            // and is recorded as a change at this step (announceStart).
            step_->setLearningRate(cfg_.lr);
            done_ = ck.step;
            losses_ = std::move(ck.losses);    // the history continues
            imgList_ = std::move(ck.imgList);  // the reference's grids too, appended to at each checkpoint
            epochBase_ = 0;
            epochBase_ = std::max<int64_t>(0, ck.epoch - epochOf(ck.step));  // the epoch count never runs backwards
            if (ck.fixedNoise.defined()) noise_ = ck.fixedNoise;
            if (ck.rngState.defined()) {
                auto cpuGen = at::detail::getDefaultCPUGenerator();
                cpuGen.set_state(ck.rngState);
            }
            resumedFrom_ = *latest;
        }
        // Also without a checkpoint (killed before its first one): that process may have logged
        // steps that this fresh start recomputes.
        if (root_) loggedUpTo_ = RunStatus::read(dir->root()).step;
    }
    if (root_) {
        keeper_.emplace(*dir, cfg_);
        if (resume_ && !resumedFrom_.empty()) keeper_->resume(resumedFrom_, done_);
        // Temporary files of writes that a kill interrupted (each as large as a checkpoint). We hold
        // the run lock: no other trainer writes here.
        for (const std::string& d : {dir->root(), dir->checkpointsDir(), dir->samplesDir()}) AtomicFile::removeStaleTemporaries(d);
    }
}

void TrainingRun::writeRunJson() {
    RunDirectory* const dir = out_.dir();
    nlohmann::json runJson = root_ && dir->hasRunJson() ? dir->readRunJson() : nlohmann::json::object();
    if (!runJson.contains("start_time")) runJson["start_time"] = EventLog::now();
    runJson["version"] = Version::text();
    runJson["host"] = hostName();
    if (!resumedFrom_.empty() && runJson.contains("config")) changedOnResume_ = TrainConfig::changes(runJson["config"], cfg_.toJson());
    runJson["config"] = cfg_.toJson();
    runJson["data_source"] = source_->describe();
    runJson["device"] = device_.str();
    runJson["world_size"] = world_;
    if (dist_) runJson["distributed"] = {{"backend", dist_->backend()}, {"global_batch", cfg_.batch * world_}};
    runJson["total_steps"] = total_;
    runJson["steps_per_epoch"] = stepsPerEpoch_;
    if (!resumedFrom_.empty()) {
        nlohmann::json entry = {{"t", EventLog::now()}, {"step", done_}, {"checkpoint", resumedFrom_}};
        if (!changedOnResume_.empty()) entry["changed"] = changedOnResume_;
        runJson["resumes"].push_back(std::move(entry));
    }
    if (root_) dir->writeRunJson(runJson);
}

void TrainingRun::announceStart() {
    if (root_) tb_.emplace(out_.dir()->tbDir());
    StatusEvent running = status(RunState::kRunning);
    running.pid = ::getpid();
    running.device = device_.str();
    running.data = source_->describe();
    running.resumedFrom = resumedFrom_;
    out_.emit(running, true);
    // What this resume changed, at the step it resumed from: the learning rate as the set-lr
    // command records it (the dashboard's rate follows either way), every other setting by name.
    for (const auto& [key, change] : changedOnResume_.items()) {
        ControlEvent ev;
        ev.step = done_;
        ev.cmd = key == "lr" ? "set-lr" : "set";
        if (key == "lr") ev.value = change["to"].get<double>();
        ev.extra = {{"by", "resume"}, {"from", change["from"]}};
        if (key != "lr") {
            ev.extra["option"] = key;
            ev.extra["to"] = change["to"];
        }
        out_.emit(ev);
    }

    lastSkipped_ = source_->skipped();
    DataEvent data;
    data.source = source_->describe();
    data.images = source_->size();
    data.stepsPerEpoch = stepsPerEpoch_;
    data.skipped = lastSkipped_;
    if (!dataPathNote_.empty()) data.extra["data_path"] = {{"mode", cfg_.dataPath}, {"message", dataPathNote_}};
    out_.emit(data);
    metrics_.emplace(cfg_, device_);

    loader_->start(done_);
    system_.emplace(device_.is_cuda() ? device_.index() < 0 ? 0 : device_.index() : -1, device_.str());
    lastSystem_ = Clock::time_point{};  // none yet: periodicWork writes one after the first step
    resetInterval();
}

void TrainingRun::trainLoop() {
    paused_ = false;
    stoppedByCommand_ = false;
    while (done_ < total_ && (dist_ || !stop_.load())) {
        pollMetrics();
        applyControl();
        if (agreeToStop()) break;
        if (paused_) {
            if (control_) control_->waitForCommand(std::chrono::milliseconds(200));
            continue;
        }
        trainOneStep();
        periodicWork();
    }
}

void TrainingRun::trainOneStep() {
    const auto w0 = Clock::now();
    Batch batch = loader_->next();
    intervalWait_ += seconds(Clock::now() - w0);
    double inst = cfg_.instanceNoise;
    if (inst > 0 && cfg_.instanceNoiseSteps > 0) inst *= std::max(0.0, 1.0 - static_cast<double>(done_) / static_cast<double>(cfg_.instanceNoiseSteps));
    step_->step(batch, inst);
    ++done_;
    intervalImages_ += batch.size();
}

void TrainingRun::logSystem(int64_t stepsDone) {
    SystemEvent sys = system_->sample();
    sys.step = stepsDone;
    out_.emit(sys);
    lastSystem_ = Clock::now();
}

void TrainingRun::periodicWork() {
    if (done_ % cfg_.logEvery == 0) logMetrics(done_);
    if (!root_) return;
    emitWrittenCheckpoints(false);
    // A system reading after the first step too, not only every 2 s: a run shorter than that has
    // one (finish() writes the last).
    if (lastSystem_ == Clock::time_point{}) logSystem(done_);
    if (cfg_.sampleEvery > 0 && done_ % cfg_.sampleEvery == 0) sample(done_);
    if ((cfg_.checkpointEvery > 0 && done_ % cfg_.checkpointEvery == 0) || done_ % stepsPerEpoch_ == 0) checkpoint(done_, done_ == total_);
}

void TrainingRun::logMetrics(int64_t stepsDone) {
    StepMetrics m = step_->drain();
    if (m.steps == 0) return;
    if (dist_) {
        // Losses and D outputs averaged over the ranks; images summed: the global throughput.
        std::vector<double> sums;
        for (const TrainingScalar::Spec& s : TrainingScalar::all())
            if (s.source == TrainingScalar::Source::StepMean) sums.push_back(m.means[s.key]);
        sums.push_back(static_cast<double>(intervalImages_));
        auto t = torch::tensor(sums, torch::kFloat64);
        dist_->allreduceSum(t, "allreduce of the logged metrics");
        auto a = t.accessor<double, 1>();
        const double w = static_cast<double>(world_);
        int64_t k = 0;
        for (const TrainingScalar::Spec& s : TrainingScalar::all())
            if (s.source == TrainingScalar::Source::StepMean) m.means[s.key] = a[k++] / w;
        intervalImages_ = static_cast<int64_t>(a[k]);
    }
    if (!root_) {
        resetInterval();
        return;
    }
    const double elapsed = std::max(1e-9, seconds(Clock::now() - intervalStart_));
    const double wall = EventLog::now();
    MetricsEvent e = std::move(m.means);
    e.step = stepsDone;
    e.epoch = epochOf(stepsDone);
    e.lr = step_->learningRate();
    e.imgPerS = static_cast<double>(intervalImages_) / elapsed;
    e.dataWait = std::min(1.0, intervalWait_ / elapsed);
    e.totalSteps = total_;
    if (dist_) e.worldSize = world_;
    losses_.append(e.lossG, e.lossD);
    if (stepsDone <= loggedUpTo_) {  // logged by the process this run resumes after (see loggedUpTo_)
        resetInterval();
        return;
    }
    // the TensorBoard tags are the event's field names; a scalar written only when measured is
    // left out of TensorBoard too when it is not
    for (const TrainingScalar::Spec& s : TrainingScalar::all())
        if (s.written == TrainingScalar::Written::Always || !std::isnan(e[s.key])) tb_->addScalar(s.field, static_cast<float>(e[s.key]), stepsDone, wall);
    tb_->flush();
    out_.emit(e);
    adviseOnLoader(stepsDone, elapsed);
    if (seconds(Clock::now() - lastSystem_) >= 2.0) logSystem(stepsDone);
    if (auto skipped = source_->skipped(); skipped != lastSkipped_) {  // bad images found while reading
        DataEvent data;
        data.step = stepsDone;
        data.skipped = skipped;
        out_.emit(data);
        lastSkipped_ = std::move(skipped);
    }
    resetInterval();
}

void TrainingRun::adviseOnLoader(int64_t stepsDone, double elapsed) {
    // This rank's images: intervalImages_ is the global count in a distributed run.
    const auto advice = loaderAdvice_->observe(elapsed, intervalWait_, static_cast<double>(intervalImages_) / static_cast<double>(world_));
    if (!advice) return;
    std::fprintf(stderr, "%s\n", advice->message.c_str());
    DataEvent data;
    data.step = stepsDone;
    data.skipped = source_->skipped();
    data.extra["loader_advice"] = {
        {"data_wait", advice->dataWait},        {"images_per_s", advice->imagesPerS},      {"step_images_per_s", advice->stepImagesPerS},
        {"loader_threads", cfg_.loaderThreads}, {"threads_needed", advice->threadsNeeded}, {"message", advice->message}};
    out_.emit(data);
}

void TrainingRun::resetInterval() {
    intervalStart_ = Clock::now();
    intervalWait_ = 0;
    intervalImages_ = 0;
}

void TrainingRun::sample(int64_t stepsDone) {
    auto grid = ImageGrid::makeGrid(step_->sample(noise_), 8, 2, true);
    const std::string png = ImageGrid::encodePng(grid);
    const std::string path = out_.dir()->samplePath(stepsDone);
    AtomicFile::write(path, png);
    const double t = EventLog::now();
    tb_->addImage("samples/fixed_noise", png, static_cast<int>(grid.size(1)), static_cast<int>(grid.size(2)), 3, stepsDone, t);
    tb_->flush();
    lastSampleStep_ = stepsDone;
    SampleEvent e;
    e.step = stepsDone;
    e.epoch = epochOf(stepsDone);
    e.path = "samples/step_" + std::to_string(stepsDone) + ".png";
    out_.emit(e);
}

void TrainingRun::checkpoint(int64_t stepsDone, bool runEnd) {
    CheckpointData ck;
    step_->capture(ck);
    ck.configJson = cfg_.toJson().dump();
    ck.epoch = epochOf(stepsDone);
    ck.step = stepsDone;
    ck.fixedNoise = noise_;
    ck.losses = losses_;
    if (!imgList_.empty()) {  // a reference history: its grids go on, one more per checkpoint
        imgList_.push_back(ImageGrid::makeGrid(step_->sample(noise_), 8, 2, true).to(torch::kCPU).contiguous());
        ck.imgList = imgList_;
    }
    ck.rngState = at::detail::getDefaultCPUGenerator().get_state();
    const std::string path = keeper_->pathFor(ck.epoch, stepsDone, runEnd || stepsDone % stepsPerEpoch_ == 0);
    lastCheckpointStep_ = stepsDone;
    CheckpointEvent e;
    e.step = stepsDone;
    e.epoch = ck.epoch;
    e.path = CheckpointKeeper::relative(path);
    // Quality metrics on a copy of G_ema (G with --ema 0) in the background (TrainingMetrics):
    // logged when done (pollMetrics). The keeper knows first, so pruning spares the file.
    const bool evaluate = metrics_->due(++checkpointsWritten_);
    keeper_->written(stepsDone, ck.epoch, path, evaluate);
    if (writer_) {  // the event once the file is durable (emitWrittenCheckpoints)
        writing_.push_back(e);
        writer_->submit(std::move(ck), path, stepsDone);
    } else {
        Checkpoint::save(ck, path);
        out_.emit(e, true);
        keeper_->prune();
    }
    if (evaluate) metrics_->submit(step_->drawingGenerator(), stepsDone);
}

void TrainingRun::emitWrittenCheckpoints(bool wait) {
    if (!writer_) return;
    const std::vector<int64_t> written = wait ? writer_->finish() : writer_->poll();
    for (int64_t step : written) {
        CheckpointEvent e = std::move(writing_.front());
        writing_.pop_front();
        e.step = step;  // the same: the writer's tag is the checkpoint's step
        out_.emit(e, true);
    }
    if (!written.empty()) keeper_->prune();
}

void TrainingRun::pollMetrics() {
    if (!root_ || !metrics_) return;
    for (MetricEvent& m : metrics_->poll()) logMetricEvent(std::move(m));
}

void TrainingRun::logMetricEvent(MetricEvent m) {
    const int64_t stepsDone = m.step.value_or(done_);  // the step G was copied at, not the current one
    // TensorBoard gets the metrics that were computed; an unavailable one is null, not a number.
    namespace F = EventField;
    const std::pair<const char*, std::optional<double>> scalars[] = {{F::kFid, m.fidUnavailable ? std::nullopt : m.fid},
                                                                     {F::kKid, m.kidUnavailable ? std::nullopt : m.kid},
                                                                     {F::kPrecision, m.prUnavailable ? std::nullopt : m.precision},
                                                                     {F::kRecall, m.prUnavailable ? std::nullopt : m.recall}};
    for (const auto& [name, value] : scalars)
        if (value) tb_->addScalar(std::string("metrics/") + name, static_cast<float>(*value), stepsDone, EventLog::now());
    if (m.swd && !m.swdUnavailable) {  // metrics/swd and metrics/swd_<resolution>
        tb_->addScalar(std::string("metrics/") + F::kSwd, static_cast<float>(*m.swd), stepsDone, EventLog::now());
        for (const auto& [res, value] : m.swdLevels)
            tb_->addScalar(std::string("metrics/") + F::kSwd + "_" + res, static_cast<float>(value), stepsDone, EventLog::now());
    }
    // The figures of the other metrics (dc, vendi...: QualityMetric's rows) travel in `extra`.
    if (m.extra.is_object())
        for (const QualityMetric::Spec& q : QualityMetric::all())
            for (const char* figure : q.figures)
                if (const auto it = m.extra.find(figure); it != m.extra.end() && it->is_number())
                    tb_->addScalar(std::string("metrics/") + figure, it->get<float>(), stepsDone, EventLog::now());
    tb_->flush();
    // Its checkpoint may still be on the writer's thread (an evaluation faster than the write):
    // best.pt is made from the durable file.
    if (std::any_of(writing_.begin(), writing_.end(), [&](const CheckpointEvent& w) { return w.step <= stepsDone; })) emitWrittenCheckpoints(true);
    out_.emit(m);  // a copy: the keeper reads it next
    if (std::optional<BestEvent> best = keeper_->measured(m)) out_.emit(*best, true);
    keeper_->prune();  // the checkpoint is no longer awaited
}

void TrainingRun::applyControl() {
    if (!control_) return;
    for (const ControlRequest& r : control_->take()) {
        if (!r.rejected.empty()) {
            ErrorEvent error;
            error.step = done_;
            error.message = "rejected control command: " + r.rejected;
            out_.emit(error);
            continue;
        }
        ControlEvent ev;
        ev.cmd = r.cmd;
        ev.step = done_;
        if (r.cmd == "set-lr") ev.value = r.value;
        out_.emit(ev);
        if (r.cmd == "pause" && !paused_) {
            paused_ = true;
            pausedAt_ = Clock::now();
            out_.emit(status(RunState::kPaused), true);
        } else if (r.cmd == "resume" && paused_) {
            paused_ = false;
            intervalStart_ += Clock::now() - pausedAt_;  // the pause is not training time
            out_.emit(status(RunState::kRunning), true);
        } else if (r.cmd == "stop") {
            stoppedByCommand_ = true;
        } else if (r.cmd == "checkpoint-now") {
            checkpoint(done_);
        } else if (r.cmd == "sample-now") {
            sample(done_);
        } else if (r.cmd == "set-lr") {
            step_->setLearningRate(r.value);
            // run.json says the rate the run trains at: a resume continues at this one.
            RunDirectory* const dir = out_.dir();
            if (root_ && dir && dir->hasRunJson()) {
                nlohmann::json runJson = dir->readRunJson();
                runJson["config"]["lr"] = r.value;
                dir->writeRunJson(runJson);
            }
        }
    }
}

bool TrainingRun::agreeToStop() {
    if (!dist_) return stoppedByCommand_;
    auto t = torch::zeros({5}, torch::kFloat64);
    auto a = t.accessor<double, 1>();
    a[0] = stop_.load() ? 1 : 0;
    a[4] = requeue_.signal && requeue_.signal->load() ? 1 : 0;
    if (root_) {
        a[1] = stoppedByCommand_ ? 1 : 0;
        a[2] = paused_ ? 1 : 0;
        a[3] = step_->learningRate();
    }
    dist_->allreduceSum(t, "agreement on the next step");
    if (!root_) {
        stoppedByCommand_ = a[1] > 0;
        paused_ = a[2] > 0;
        if (a[3] != step_->learningRate()) step_->setLearningRate(a[3]);
    }
    requeueAgreed_ = a[4] > 0;
    return a[0] > 0 || a[1] > 0;
}

int64_t TrainingRun::finish() {
    loader_->stop();
    logMetrics(done_);
    // The last system reading (the energy up to here), unless one was written just now: a reading
    // of a few milliseconds would show a meaningless CPU % as the run's last. Before the final
    // sample and checkpoint: the checkpoint stays the last event before the final status.
    if (root_ && system_ && seconds(Clock::now() - lastSystem_) >= 0.5) logSystem(done_);
    if (root_ && lastSampleStep_ != done_) sample(done_);
    if (root_ && lastCheckpointStep_ != done_) checkpoint(done_, /*runEnd=*/true);
    emitWrittenCheckpoints(true);
    // The evaluations still running or waiting: awaited, or cancelled on a stop signal (their
    // events then say "cancelled: the run is stopping"), before the final status.
    if (root_) {
        if (metrics_->busy() && !stop_.load()) std::fprintf(stderr, "waiting for the last checkpoint's quality metrics (Ctrl-C or SIGTERM cancels them)\n");
        for (MetricEvent& m : metrics_->finish(&stop_)) logMetricEvent(std::move(m));
    }
    const bool stopped = done_ < total_;
    // Slurm's warning (on any rank, agreed with the stop; alone, this process's own): rank 0 has
    // written the checkpoint above and requeues the job before it says so. A stop command at
    // the same step wins: the user asked for the run to end.
    const bool requeue = stopped && !stoppedByCommand_ && (dist_ ? requeueAgreed_ : requeue_.signal && requeue_.signal->load());
    if (requeue) {
        if (root_ && requeue_.requeue) requeue_.requeue();
        StatusEvent e = status(RunState::kRequeued);
        e.extra = {{"reason", RequeueSignal::kReason}};
        out_.emit(e, true);
        requeued_ = true;
        return done_;
    }
    out_.emit(status(stopped ? RunState::kStopped : RunState::kFinished), true);
    return done_;
}

}  // namespace streetgan
