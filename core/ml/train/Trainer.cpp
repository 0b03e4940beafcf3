#include "ml/train/Trainer.h"

#include <unistd.h>

#include <ATen/CPUGeneratorImpl.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <torch/torch.h>

#include "ml/data/BatchLoader.h"
#include "ml/data/DataSources.h"
#include "ml/dist/DistributedContext.h"
#include "ml/eval/TrainingMetrics.h"
#include "ml/export/ImageGrid.h"
#include "ml/checkpoint/Checkpoint.h"
#include "base/run/EventLog.h"
#include "base/run/RunDirectory.h"
#include "base/run/SystemMonitor.h"
#include "base/tensorboard/TensorBoardWriter.h"
#include "base/daemon/TrainControl.h"
#include "ml/train/TrainStep.h"
#include "base/util/Errors.h"
#include "base/util/AtomicFile.h"
#include "base/util/Paths.h"
#include "base/util/SeedHash.h"

namespace streetgan {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

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

Trainer::Trainer(TrainConfig cfg, std::string runDir, bool resume, TrainObserver* observer)
    : cfg_(std::move(cfg)), runDir_(std::move(runDir)), resume_(resume), observer_(observer) {
    cfg_.validate();
}

torch::Device Trainer::selectDevice(const std::string& name) {
    if (name == "cpu") return torch::kCPU;
    if (name == "auto") return torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    if (!torch::cuda::is_available())
        throw ConfigError("device '" + name + "' requested but no CUDA device is available to this build: use --device cpu or auto");
    torch::Device d(name);
    if (d.has_index() && d.index() >= static_cast<int>(torch::cuda::device_count()))
        throw ConfigError("device '" + name + "' does not exist: this machine has " + std::to_string(torch::cuda::device_count()) + " CUDA devices");
    return d;
}

int64_t Trainer::run(const std::atomic<bool>& stop) {
    // Only rank 0 (or the single process) touches the run directory; the other ranks may run on
    // machines that cannot even see it.
    const bool root = !dist_ || dist_->isRoot();
    const int64_t world = dist_ ? dist_->worldSize() : 1;
    std::optional<RunDirectory> dirStore;
    std::optional<EventLog> events;
    if (root) {
        dirStore.emplace(runDir_, /*create=*/true);
        events.emplace(dirStore->events());
    }
    RunDirectory* const dir = root ? &*dirStore : nullptr;
    auto emit = [&](nlohmann::json e, bool durable = false) {
        if (!root) return;
        e["t"] = EventLog::now();
        events->append(e, durable);
        if (observer_) observer_->onEvent(e);
    };

    try {
        torch::Device device = selectDevice(cfg_.device);
        // One GPU per local rank unless the device names its index.
        if (dist_ && device.is_cuda() && cfg_.device.find(':') == std::string::npos)
            device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(dist_->env().localRank));
        if (cfg_.threads > 0) torch::set_num_threads(cfg_.threads);
        if (device.is_cuda()) at::globalContext().setBenchmarkCuDNN(true);

        auto source = DataSources::open(cfg_.data, cfg_);
        LoaderOptions lo;
        lo.batch = cfg_.batch;
        lo.imgSize = static_cast<int>(cfg_.model.imgSize);
        lo.nz = cfg_.model.nz;
        lo.seed = cfg_.seed;
        lo.threads = cfg_.loaderThreads;
        lo.prefetch = cfg_.prefetch;
        lo.pinMemory = device.is_cuda();
        lo.instanceNoise = cfg_.instanceNoise > 0;
        lo.rank = dist_ ? dist_->rank() : 0;  // --batch is per rank: the global batch is batch x world size
        lo.worldSize = world;
        BatchLoader loader(source, lo);
        const int64_t stepsPerEpoch = loader.stepsPerEpoch();
        const int64_t total = cfg_.totalSteps(stepsPerEpoch);

        torch::manual_seed(cfg_.seed);
        TrainStep trainer(cfg_, device);
        torch::Tensor noise = fixedNoise(cfg_);
        int64_t done = 0;
        std::string resumedFrom;
        std::optional<std::string> latest;
        std::string resumeCopy;  // a non-root rank's temporary copy of rank 0's checkpoint
        if (resume_ && root) latest = dir->latestCheckpoint();
        if (resume_ && dist_) {
            // Rank 0's checkpoint travels as bytes: the ranks restore the same state wherever they run.
            std::string bytes = latest ? AtomicFile::read(*latest) : std::string();
            std::string name = latest.value_or("");
            dist_->broadcastBytes(bytes, "broadcast of the resume checkpoint");
            dist_->broadcastBytes(name, "broadcast of the resume checkpoint");
            if (!root && !bytes.empty()) {
                const std::string tmpDir = Paths::tempDir();
                std::string tmpl = tmpDir + "/streetgan-resume-XXXXXX";
                const int fd = ::mkstemp(tmpl.data());
                if (fd < 0) throw IoError("cannot create a temporary file in " + tmpDir + " for rank " + std::to_string(dist_->rank()) + "'s copy of " + name + ": free space there or set TMPDIR");
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
                trainer.restore(ck, *latest);
                done = ck.step;
                if (ck.fixedNoise.defined()) noise = ck.fixedNoise;
                if (ck.rngState.defined()) {
                    auto cpuGen = at::detail::getDefaultCPUGenerator();
                    cpuGen.set_state(ck.rngState);
                }
                resumedFrom = *latest;
            }
        }

        if (dist_) trainer.setDistributed(*dist_);  // rank 0's parameters and buffers to all, then averaged gradients

        nlohmann::json runJson = root && dir->hasRunJson() ? dir->readRunJson() : nlohmann::json::object();
        if (!runJson.contains("start_time")) runJson["start_time"] = EventLog::now();
        runJson["version"] = STREETGAN_VERSION;
        runJson["host"] = hostName();
        runJson["config"] = cfg_.toJson();
        runJson["data_source"] = source->describe();
        runJson["device"] = device.str();
        runJson["world_size"] = world;
        if (dist_) runJson["distributed"] = {{"backend", dist_->backend()}, {"global_batch", cfg_.batch * world}};
        runJson["total_steps"] = total;
        runJson["steps_per_epoch"] = stepsPerEpoch;
        if (!resumedFrom.empty()) runJson["resumes"].push_back({{"t", EventLog::now()}, {"step", done}, {"checkpoint", resumedFrom}});
        if (root) dir->writeRunJson(runJson);

        std::optional<TensorBoardWriter> tb;
        if (root) tb.emplace(dir->tbDir());
        emit({{"kind", "status"}, {"state", "running"}, {"step", done}, {"total_steps", total}, {"pid", ::getpid()}, {"device", device.str()},
              {"data", source->describe()}, {"resumed_from", resumedFrom}},
             true);

        std::map<std::string, int64_t> lastSkipped = source->skipped();
        emit({{"kind", "data"}, {"source", source->describe()}, {"images", source->size()}, {"steps_per_epoch", stepsPerEpoch}, {"skipped", lastSkipped}});
        int64_t lastCheckpointStep = -1, lastSampleStep = -1;
        TrainingMetrics metrics(cfg_, device);  // FID/KID/PR every N checkpoints (off by default)
        int64_t checkpointsWritten = 0;
        auto epochOf = [&](int64_t stepsDone) { return stepsDone == 0 ? int64_t{0} : (stepsDone - 1) / stepsPerEpoch; };
        auto checkpoint = [&](int64_t stepsDone) {
            CheckpointData ck;
            trainer.capture(ck);
            ck.configJson = cfg_.toJson().dump();
            ck.epoch = epochOf(stepsDone);
            ck.step = stepsDone;
            ck.fixedNoise = noise;
            ck.rngState = at::detail::getDefaultCPUGenerator().get_state();
            const std::string path = dir->checkpointPath(ck.epoch);
            Checkpoint::save(ck, path);
            lastCheckpointStep = stepsDone;
            emit({{"kind", "checkpoint"}, {"step", stepsDone}, {"epoch", ck.epoch}, {"path", "checkpoints/" + path.substr(path.rfind('/') + 1)}}, true);
            if (metrics.due(++checkpointsWritten)) {
                nlohmann::json m = metrics.evaluate(trainer.generator(), stepsDone, &stop);
                for (const char* k : {"fid", "kid", "precision", "recall"})
                    if (m.contains(k) && m[k].is_number()) tb->addScalar(std::string("metrics/") + k, m[k].get<float>(), stepsDone, EventLog::now());
                tb->flush();
                emit(std::move(m));
            }
        };
        auto sample = [&](int64_t stepsDone) {
            auto grid = ImageGrid::makeGrid(trainer.sample(noise), 8, 2, true);
            const std::string png = ImageGrid::encodePng(grid);
            const std::string path = dir->samplePath(stepsDone);
            AtomicFile::write(path, png);
            const double t = EventLog::now();
            tb->addImage("samples/fixed_noise", png, static_cast<int>(grid.size(1)), static_cast<int>(grid.size(2)), 3, stepsDone, t);
            tb->flush();
            lastSampleStep = stepsDone;
            emit({{"kind", "sample"}, {"step", stepsDone}, {"epoch", epochOf(stepsDone)}, {"path", "samples/step_" + std::to_string(stepsDone) + ".png"}});
        };

        loader.start(done);
        // Process and GPU load for the dashboard, at most every few seconds (with the metrics).
        SystemMonitor system(device.is_cuda() ? device.index() < 0 ? 0 : device.index() : -1);
        auto lastSystem = Clock::now();
        auto intervalStart = Clock::now();
        double intervalWait = 0;
        int64_t intervalImages = 0;
        auto logMetrics = [&](int64_t stepsDone) {
            StepMetrics m = trainer.drain();
            if (m.steps == 0) return;
            if (dist_) {
                // Losses and D outputs averaged over the ranks; images summed: the global throughput.
                auto t = torch::tensor({m.lossD, m.lossG, m.dX, m.dGz1, m.dGz2, static_cast<double>(intervalImages)}, torch::kFloat64);
                dist_->allreduceSum(t, "allreduce of the logged metrics");
                auto a = t.accessor<double, 1>();
                const double w = static_cast<double>(world);
                m.lossD = a[0] / w, m.lossG = a[1] / w, m.dX = a[2] / w, m.dGz1 = a[3] / w, m.dGz2 = a[4] / w;
                intervalImages = static_cast<int64_t>(a[5]);
            }
            if (!root) {
                intervalStart = Clock::now();
                intervalWait = 0;
                intervalImages = 0;
                return;
            }
            const double elapsed = std::max(1e-9, seconds(Clock::now() - intervalStart));
            const double wall = EventLog::now();
            nlohmann::json e = {{"kind", "metrics"}, {"step", stepsDone}, {"epoch", epochOf(stepsDone)}, {"loss_d", m.lossD}, {"loss_g", m.lossG},
                                {"d_x", m.dX}, {"d_g_z1", m.dGz1}, {"d_g_z2", m.dGz2}, {"lr", trainer.learningRate()},
                                {"img_per_s", static_cast<double>(intervalImages) / elapsed}, {"data_wait", std::min(1.0, intervalWait / elapsed)},
                                {"total_steps", total}};
            if (dist_) e["world_size"] = world;
            for (const char* k : {"loss_d", "loss_g", "d_x", "d_g_z1", "d_g_z2", "lr", "img_per_s", "data_wait"})
                tb->addScalar(k, e[k].get<float>(), stepsDone, wall);
            tb->flush();
            emit(e);
            if (seconds(Clock::now() - lastSystem) >= 2.0) {
                nlohmann::json sys = system.sample();
                sys["step"] = stepsDone;
                emit(sys);
                lastSystem = Clock::now();
            }
            if (auto skipped = source->skipped(); skipped != lastSkipped) {  // bad images found while reading
                emit({{"kind", "data"}, {"step", stepsDone}, {"skipped", skipped}});
                lastSkipped = std::move(skipped);
            }
            intervalStart = Clock::now();
            intervalWait = 0;
            intervalImages = 0;
        };

        // Commands from the control socket, applied between steps; each leaves an event.
        bool paused = false;
        stoppedByCommand_ = false;
        Clock::time_point pausedAt;
        auto applyControl = [&]() {
            if (!control_) return;
            for (const ControlRequest& r : control_->take()) {
                if (!r.rejected.empty()) {
                    emit({{"kind", "error"}, {"step", done}, {"message", "rejected control command: " + r.rejected}});
                    continue;
                }
                nlohmann::json ev = {{"kind", "control"}, {"cmd", r.cmd}, {"step", done}};
                if (r.cmd == "set-lr") ev["value"] = r.value;
                emit(ev);
                if (r.cmd == "pause" && !paused) {
                    paused = true;
                    pausedAt = Clock::now();
                    emit({{"kind", "status"}, {"state", "paused"}, {"step", done}, {"total_steps", total}}, true);
                } else if (r.cmd == "resume" && paused) {
                    paused = false;
                    intervalStart += Clock::now() - pausedAt;  // the pause is not training time
                    emit({{"kind", "status"}, {"state", "running"}, {"step", done}, {"total_steps", total}}, true);
                } else if (r.cmd == "stop") {
                    stoppedByCommand_ = true;
                } else if (r.cmd == "checkpoint-now") {
                    checkpoint(done);
                } else if (r.cmd == "sample-now") {
                    sample(done);
                } else if (r.cmd == "set-lr") {
                    trainer.setLearningRate(r.value);
                }
            }
        };

        // Distributed: the ranks agree each step on stop (a signal on any rank, or rank 0's stop
        // command), pause and the learning rate, all from one allreduce of four numbers.
        auto agreeToStop = [&]() {
            if (!dist_) return stoppedByCommand_;
            auto t = torch::zeros({4}, torch::kFloat64);
            auto a = t.accessor<double, 1>();
            a[0] = stop.load() ? 1 : 0;
            if (root) {
                a[1] = stoppedByCommand_ ? 1 : 0;
                a[2] = paused ? 1 : 0;
                a[3] = trainer.learningRate();
            }
            dist_->allreduceSum(t, "agreement on the next step");
            if (!root) {
                stoppedByCommand_ = a[1] > 0;
                paused = a[2] > 0;
                if (a[3] != trainer.learningRate()) trainer.setLearningRate(a[3]);
            }
            return a[0] > 0 || a[1] > 0;
        };

        while (done < total && (dist_ || !stop.load())) {
            applyControl();
            if (agreeToStop()) break;
            if (paused) {
                if (control_) control_->waitForCommand(std::chrono::milliseconds(200));
                continue;
            }
            const auto w0 = Clock::now();
            Batch batch = loader.next();
            intervalWait += seconds(Clock::now() - w0);
            double inst = cfg_.instanceNoise;
            if (inst > 0 && cfg_.instanceNoiseSteps > 0)
                inst *= std::max(0.0, 1.0 - static_cast<double>(done) / static_cast<double>(cfg_.instanceNoiseSteps));
            trainer.step(batch, inst);
            ++done;
            intervalImages += batch.real.size(0);
            if (done % cfg_.logEvery == 0) logMetrics(done);
            if (!root) continue;
            if (cfg_.sampleEvery > 0 && done % cfg_.sampleEvery == 0) sample(done);
            if ((cfg_.checkpointEvery > 0 && done % cfg_.checkpointEvery == 0) || done % stepsPerEpoch == 0) checkpoint(done);
        }
        loader.stop();
        logMetrics(done);
        if (root && lastSampleStep != done) sample(done);
        if (root && lastCheckpointStep != done) checkpoint(done);
        const bool stopped = done < total;
        emit({{"kind", "status"}, {"state", stopped ? "stopped" : "finished"}, {"step", done}, {"total_steps", total}}, true);
        return done;
    } catch (const std::exception& e) {
        try {
            emit({{"kind", "error"}, {"message", e.what()}}, true);
            emit({{"kind", "status"}, {"state", "failed"}}, true);
        } catch (...) {
            // the event log itself failed (e.g. full disk): the original error is what matters
        }
        throw;
    }
}

}  // namespace streetgan
