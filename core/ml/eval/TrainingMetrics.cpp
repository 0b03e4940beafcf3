#include "ml/eval/TrainingMetrics.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <ATen/core/Generator.h>
#include <torch/torch.h>
#include <algorithm>
#include <chrono>
#include <future>
#include <limits>
#include <string>
#include <vector>

#include "base/run/QualityMetric.h"
#include "base/util/Errors.h"
#include "base/util/SeedHash.h"

namespace streetgan {
namespace {

MetricOptions optionsFrom(const TrainConfig& cfg) {
    MetricOptions o;
    o.metrics = cfg.metrics;
    o.features = cfg.metricFeatures;
    o.samples = cfg.metricSamples;
    o.seed = SeedHash::of(cfg.seed, 0x6d6574726963ULL);  // "metric": the same z at every checkpoint
    o.cacheDir = cfg.metricCacheDir;
    o.swdSamples = cfg.metricSwdSamples;
    return o;
}

std::mutex& hookMutex() {
    static std::mutex m;
    return m;
}
TrainingMetrics::BackgroundHook& hook() {
    static TrainingMetrics::BackgroundHook h;
    return h;
}

// A deep copy of G in eval mode on G's device. Constructing a Generator initialises its weights
// from torch's default generator, so its state is put back: training draws exactly as without.
std::shared_ptr<Generator> snapshot(const Generator& g) {
    auto cpu = at::detail::getDefaultCPUGenerator();
    const at::Tensor state = cpu.get_state();
    auto copy = std::make_shared<Generator>(g->config());
    cpu.set_state(state);
    const auto params = g->parameters();
    if (!params.empty()) (*copy)->to(params.front().device());
    torch::NoGradGuard noGrad;
    auto dstParams = (*copy)->named_parameters(true);
    for (const auto& p : g->named_parameters(true)) dstParams[p.key()].copy_(p.value());
    auto dstBuffers = (*copy)->named_buffers(true);
    for (const auto& b : g->named_buffers(true)) dstBuffers[b.key()].copy_(b.value());
    (*copy)->eval();
    return copy;
}

std::optional<int64_t> stepOf(const MetricEvent& e) { return e.step; }

}  // namespace

TrainingMetrics::TrainingMetrics(const TrainConfig& cfg, c10::Device device)
    : cfg_(cfg), every_(cfg.metricEveryCheckpoints), metrics_(optionsFrom(cfg), device) {}

TrainingMetrics::~TrainingMetrics() {
    if (!worker_.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(mu_);
        quit_ = true;
    }
    cancel_ = true;  // an evaluation still running is abandoned: the run is gone
    cv_.notify_all();
    worker_.join();
}

void TrainingMetrics::setBackgroundHookForTests(BackgroundHook h) {
    std::lock_guard<std::mutex> lock(hookMutex());
    hook() = std::move(h);
}

void TrainingMetrics::startWorker() {
    const int trainingThreads = at::get_num_threads();
    const int budget = std::max(1, trainingThreads / kThreadShare);
    std::promise<void> ready;
    std::future<void> started = ready.get_future();
    worker_ = std::thread([this, budget, &ready] {
#if AT_PARALLEL_OPENMP
        // OpenMP team sizes are per thread: ATen sets a thread's once, at its first parallel op,
        // from a global that set_num_threads also writes. Initialise this thread, then set its own.
        at::internal::lazy_init_num_threads();
        at::set_num_threads(budget);
#else
        (void)budget;  // a native or TBB pool is shared: no per-thread budget to give
#endif
        ready.set_value();
        work();
    });
    started.wait();
#if AT_PARALLEL_OPENMP
    at::set_num_threads(trainingThreads);  // the global back (this thread's own count is unchanged)
#endif
}

void TrainingMetrics::work() {
    torch::NoGradGuard noGrad;  // grad mode is per thread
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait(lock, [&] { return quit_ || next_.has_value(); });
            if (quit_) return;
            job = std::move(*next_);
            next_.reset();
            running_ = true;
            runningStep_ = job.step;
        }
        BackgroundHook h;
        {
            std::lock_guard<std::mutex> lock(hookMutex());
            h = hook();
        }
        if (h) h(job.step, cancel_);
        MetricEvent e = evaluateEvent(*job.g, job.step, &cancel_);
        job.g.reset();
        {
            std::lock_guard<std::mutex> lock(mu_);
            done_.push_back(std::move(e));
            running_ = false;
        }
        cv_.notify_all();
    }
}

void TrainingMetrics::submit(const Generator& g, int64_t step) {
    Job job{snapshot(g), step};
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (next_) {
            // Replaced before it started: recorded, so the log says why this checkpoint has no numbers.
            const std::string running = running_ ? "the evaluation of step " + std::to_string(runningStep_) : std::string("an earlier evaluation");
            const std::string reason = "skipped: " + running + " was still running when a newer checkpoint (step " + std::to_string(step) + ") came due";
            MetricEvent skipped = FeatureMetrics::unavailable(cfg_.metrics, reason).get<MetricEvent>();
            skipped.step = next_->step;
            fillDefaults(skipped);
            done_.push_back(std::move(skipped));
        }
        next_ = std::move(job);
    }
    if (!worker_.joinable()) startWorker();
    cv_.notify_all();
}

std::vector<MetricEvent> TrainingMetrics::poll() {
    std::lock_guard<std::mutex> lock(mu_);
    if (done_.empty()) return {};
    // Events leave in step order: a skipped step's waits for the earlier step still running.
    int64_t limit = std::numeric_limits<int64_t>::max();
    if (running_) limit = runningStep_;
    std::vector<MetricEvent> out, keep;
    for (auto& e : done_) (stepOf(e).value_or(0) <= limit ? out : keep).push_back(std::move(e));
    done_ = std::move(keep);
    std::stable_sort(out.begin(), out.end(), [](const MetricEvent& a, const MetricEvent& b) { return a.step.value_or(0) < b.step.value_or(0); });
    return out;
}

std::vector<MetricEvent> TrainingMetrics::finish(const std::atomic<bool>* stop) {
    {
        std::unique_lock<std::mutex> lock(mu_);
        while (running_ || next_) {
            if (stop && stop->load()) cancel_ = true;  // evaluations return at once, "cancelled"
            cv_.wait_for(lock, std::chrono::milliseconds(100));
        }
    }
    return poll();
}

bool TrainingMetrics::busy() const {
    std::lock_guard<std::mutex> lock(mu_);
    return running_ || next_.has_value();
}

MetricEvent TrainingMetrics::evaluateEvent(Generator& g, int64_t step, const std::atomic<bool>* cancel) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::string> warnings;
    MetricCallbacks cb;
    cb.warn = [&](const std::string& w) { warnings.push_back(w); };
    cb.cancel = cancel;
    nlohmann::json body;
    try {
        bool onlyFeatureMetrics = true;
        for (const auto& m : cfg_.metrics) onlyFeatureMetrics = onlyFeatureMetrics && QualityMetric::find(m)->needs == QualityMetric::Needs::FeatureModel;
        const std::string problem = onlyFeatureMetrics ? metrics_.featureModelProblem() : std::string();
        if (!problem.empty()) {
            body = FeatureMetrics::unavailable(cfg_.metrics, problem);  // nothing to compute: the data set stays closed
        } else {
            if (!real_) real_ = FeatureMetrics::realSource(cfg_.data, cfg_);
            if (auto r = metrics_.evaluate(g, *real_, cb))
                body = std::move(*r);
            else
                body = FeatureMetrics::unavailable(cfg_.metrics, "cancelled: the run is stopping");
        }
    } catch (const std::exception& e) {
        body = FeatureMetrics::unavailable(cfg_.metrics, e.what());
    }
    MetricEvent event = body.get<MetricEvent>();  // FeatureMetrics' members; any it adds later stay in `extra`
    event.step = step;
    fillDefaults(event);
    event.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    event.warnings = std::move(warnings);
    return event;
}

void TrainingMetrics::fillDefaults(MetricEvent& e) const {
    const auto asked = [&](const char* m) { return std::find(cfg_.metrics.begin(), cfg_.metrics.end(), m) != cfg_.metrics.end(); };
    if (QualityMetric::anyNeedsFeatures(cfg_.metrics)) {
        if (!e.samples) e.samples = cfg_.metricSamples;
        if (!e.features) e.features = cfg_.metricFeatures;
    }
    if (asked(QualityMetric::kSwd) && !e.swdSamples) e.swdSamples = cfg_.metricSwdSamples;
}

nlohmann::json TrainingMetrics::evaluate(Generator& g, int64_t step, const std::atomic<bool>* cancel) { return toJson(evaluateEvent(g, step, cancel)); }

}  // namespace streetgan
