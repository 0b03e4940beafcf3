#include "ml/train/TrainStep.h"

#include <optional>

#include <torch/torch.h>

#include "base/util/Errors.h"
#include "ml/dist/DistributedContext.h"
#include "ml/dist/GradientSync.h"
#include "ml/model/FusedBnAct.h"
#include "ml/model/WeightInit.h"
#include "ml/train/AutocastGuard.h"
#include "ml/train/DeviceBatch.h"
#include "ml/train/R1Penalty.h"

namespace streetgan {
namespace {

// The L2 norm of a model's gradients as the optimiser used them: after the optimiser's step, as
// GradScaler unscales them in place and the distributed sync averaged them (an overflow an fp16
// step skipped shows as inf). On the device: no host synchronisation.
torch::Tensor gradientNorm(const std::vector<torch::Tensor>& params) {
    std::vector<torch::Tensor> grads;
    for (const auto& p : params)
        if (p.grad().defined()) grads.push_back(p.grad());
    if (grads.empty()) return torch::zeros({}, params.empty() ? torch::TensorOptions() : params.front().options());
    return torch::stack(at::_foreach_norm(grads)).norm();
}

}  // namespace

TrainStep::TrainStep(const TrainConfig& cfg, torch::Device device)
    : cfg_(cfg), device_(device), g_(cfg.model), d_(cfg.model), augment_(cfg.diffAugment, cfg.seed), upload_(device) {
    WeightInit::dcgan(*g_);
    WeightInit::dcgan(*d_);
    g_->to(device_);
    d_->to(device_);
    if (cfg.channelsLast) {
        torch::NoGradGuard noGrad;
        for (auto* m : {static_cast<torch::nn::Module*>(g_.get()), static_cast<torch::nn::Module*>(d_.get())})
            for (auto& p : m->parameters())
                if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
    }
    auto opts = torch::optim::AdamWOptions(cfg.lr).betas({cfg.betas[0], cfg.betas[1]}).weight_decay(cfg.weightDecay).eps(cfg.eps);
    optG_ = std::make_unique<torch::optim::AdamW>(g_->parameters(), opts);
    optD_ = std::make_unique<torch::optim::AdamW>(d_->parameters(), torch::optim::AdamWOptions(opts).lr(cfg.lrD > 0 ? cfg.lrD : cfg.lr));
    if (FusedAdamW::available(device_)) {
        fusedG_ = std::make_unique<FusedAdamW>();
        fusedD_ = std::make_unique<FusedAdamW>();
    }
    if (cfg.amp == "fp16") {
        if (!device_.is_cuda()) throw ConfigError("amp fp16 needs a CUDA device (loss scaling runs on the GPU): use --amp bf16 or off on CPU");
        scaler_ = std::make_unique<GradScaler>(device_);
        autocast_ = true;
        autocastDtype_ = c10::kHalf;
    } else if (cfg.amp == "bf16") {
        autocast_ = true;
        autocastDtype_ = c10::kBFloat16;
    }
    if (cfg.ema > 0) ema_.emplace(g_, cfg.emaDecay(cfg.batch));  // one rank; setDistributed sets a distributed run's
    if (cfg.cudaGraph) {
        graph_ = std::make_unique<StepGraph>(device_);  // throws where there is no CUDA
        // The host-side optimiser and the scaler's host check cannot be captured; the fused path has neither.
        if (!fusedG_) throw ConfigError("--cuda-graph needs ATen's fused AdamW (LibTorch 2.x on CUDA): leave out --cuda-graph");
    }
    if (cfg.fusedBnAct && FusedBnAct::available(device_)) {  // elsewhere the modules run as they are
        g_->setFusedBnAct(true);
        // R1's penalty differentiates D's gradient again (create_graph), which the fused kernels
        // do not: D keeps its modules in a run with R1.
        d_->setFusedBnAct(cfg.r1Gamma <= 0);
    }
    acc_ = torch::zeros({static_cast<int64_t>(TrainingScalar::stepMeanCount())}, torch::TensorOptions().dtype(torch::kFloat32).device(device_));
}

TrainStep::~TrainStep() = default;

void TrainStep::setDistributed(DistributedContext& dist) {
    if (graph_) throw ConfigError("--cuda-graph does not combine with a distributed run (launch, torchrun) yet: leave out --cuda-graph");
    dist_ = &dist;
    if (ema_) ema_->setDecay(cfg_.emaDecay(cfg_.batch * dist.worldSize()));  // ema_kimg counts the images of all ranks
    broadcastState();
    syncG_ = std::make_unique<GradientSync>(g_->parameters(), dist);
    syncD_ = std::make_unique<GradientSync>(d_->parameters(), dist);
}

void TrainStep::broadcastState() {
    if (!dist_) return;
    dist_->broadcastModule(*g_, "broadcast of G from rank 0");
    dist_->broadcastModule(*d_, "broadcast of D from rank 0");
    if (ema_) dist_->broadcastModule(*ema_->generator(), "broadcast of G_ema from rank 0");
}

void TrainStep::step(const Batch& batch, double instanceStd) {
    const DeviceBatch in = upload_.upload(batch, cfg_.channelsLast, instanceStd);
    if (graph_)
        updateGraphed(in);
    else
        update(in);
    if (ema_) ema_->update(g_, steps_);
    ++steps_;
    ++accSteps_;
}

void TrainStep::updateGraphed(const DeviceBatch& in) {
    if (graphWarmup_ < kGraphWarmupSteps) {
        ++graphWarmup_;
        graph_->runEager([&] { update(in); });
        return;
    }
    // The captured kernels hold the learning rate and the inputs' shapes: a change captures again.
    auto sameShape = [](const torch::Tensor& a, const torch::Tensor& b) {
        return a.defined() == b.defined() && (!a.defined() || (a.sizes() == b.sizes() && a.strides() == b.strides()));
    };
    const bool noiseChanged = in.noiseReal.defined() && !graphIn_.noiseReal.defined();  // undefined later: zeros below
    if (!graph_->captured() || learningRate() != graphLr_ || !graphIn_.real.defined() || !sameShape(in.real, graphIn_.real) ||
        !sameShape(in.noise, graphIn_.noise) || noiseChanged) {
        // Fixed inputs allocated outside the capture's memory pool, in the batch's layout.
        graphIn_.real = in.real.clone();
        graphIn_.noise = in.noise.clone();
        graphIn_.noiseReal = in.noiseReal.defined() ? in.noiseReal.clone() : torch::Tensor();
        graphIn_.noiseFake = in.noiseFake.defined() ? in.noiseFake.clone() : torch::Tensor();
        graph_->capture([&] { update(graphIn_); });
        graphLr_ = learningRate();
    } else {
        graphIn_.real.copy_(in.real);
        graphIn_.noise.copy_(in.noise);
        if (graphIn_.noiseReal.defined()) {  // instance noise that has decayed to 0 is left undefined
            if (in.noiseReal.defined()) {
                graphIn_.noiseReal.copy_(in.noiseReal);
                graphIn_.noiseFake.copy_(in.noiseFake);
            } else {
                graphIn_.noiseReal.zero_();
                graphIn_.noiseFake.zero_();
            }
        }
    }
    graph_->replay();
}

void TrainStep::update(const DeviceBatch& in) {
    namespace F = torch::nn::functional;
    auto real = in.real;
    const auto& noise = in.noise;
    const auto& noiseReal = in.noiseReal;
    const auto& noiseFake = in.noiseFake;
    const int64_t B = real.size(0);
    if (!realTarget_.defined() || realTarget_.size(0) != B) {
        auto o = torch::TensorOptions().dtype(torch::kFloat32).device(device_);
        realTarget_ = torch::full({B}, cfg_.realLabel, o);
        fakeTarget_ = torch::full({B}, cfg_.fakeLabel, o);
        genTarget_ = torch::ones({B}, o);  // G is trained against label 1, smoothing or not
    }
    if (noiseReal.defined()) real = real + noiseReal;
    const bool augment = augment_.enabled();
    if (augment) augment_.beginStep(steps_, dist_ ? dist_->rank() : 0, device_);
    // DiffAugment on D's every input; in fp32 outside autocast (its ops are cheap and elementwise).
    auto forD = [&](const torch::Tensor& x) { return augment ? augment_.apply(x) : x; };
    const bool r1Due = cfg_.r1Gamma > 0 && steps_ % cfg_.r1Every == 0;
    auto backward = [&](const torch::Tensor& loss) {
        if (scaler_)
            scaler_->scale(loss).backward();
        else
            loss.backward();
    };
    auto stepOpt = [&](torch::optim::AdamW& opt, FusedAdamW* fused) {
        if (fused)  // an overflow skips the step on the device: no host synchronisation
            fused->step(opt, scaler_ ? std::optional<torch::Tensor>(scaler_->unscale(opt)) : std::nullopt);
        else if (scaler_)
            scaler_->step(opt);
        else
            opt.step();
    };

    // D: real, then fake.detach(), in one mixed-precision region and one backward pass: D's weights
    // are cast to the low precision once for both passes (the autocast cache lives as long as the
    // region), and the two losses' gradients are summed by one backward instead of accumulated by
    // two. The same gradients (the sum is linear; BatchNorm still normalises each pass's batch on
    // its own). An R1 step keeps the passes apart: its penalty is a backward pass of its own, in fp32.
    d_->zero_grad(/*set_to_none=*/true);
    torch::Tensor outReal, errReal, fake, outFake, errFake;
    std::optional<AutocastGuard> region;
    region.emplace(device_.type(), autocastDtype_, autocast_);
    outReal = d_->forward(forD(real));
    errReal = F::binary_cross_entropy_with_logits(outReal.to(torch::kFloat32), realTarget_);
    if (r1Due) {
        region.reset();
        backward(errReal);
        backward(R1Penalty::compute(d_, forD(real), cfg_.r1Gamma, cfg_.r1Every));  // fp32: no autocast here
        region.emplace(device_.type(), autocastDtype_, autocast_);
    }
    fake = g_->forward(noise);
    auto fakeDetached = noiseFake.defined() ? fake.detach() + noiseFake : fake.detach();
    outFake = d_->forward(forD(fakeDetached));
    errFake = F::binary_cross_entropy_with_logits(outFake.to(torch::kFloat32), fakeTarget_);
    region.reset();
    if (syncD_) syncD_->arm();  // D's last backward pass of this update: .grad holds real + fake
    backward(r1Due ? errFake : errReal + errFake);
    if (syncD_) syncD_->finish();
    stepOpt(*optD_, fusedD_.get());
    const torch::Tensor gradNormD = gradientNorm(d_->parameters());

    // G: through the updated D, against label 1. D's parameters take no gradient in this pass: the
    // next update starts D from zero gradients, so computing them (a weight-gradient convolution
    // per layer, 8% of naive-64's work) was thrown away; only the gradient with respect to D's
    // input, which G needs, is computed.
    g_->zero_grad(true);
    const auto dParams = d_->parameters();
    for (const auto& p : dParams) p.requires_grad_(false);
    torch::Tensor out, errG;
    {
        AutocastGuard ac(device_.type(), autocastDtype_, autocast_);
        auto fakeIn = noiseFake.defined() ? fake + noiseFake : fake;
        out = d_->forward(forD(fakeIn));
        errG = F::binary_cross_entropy_with_logits(out.to(torch::kFloat32), genTarget_);
    }
    if (syncG_) syncG_->arm();
    backward(errG);
    for (const auto& p : dParams) p.requires_grad_(true);  // not restored if the step throws: the run ends then
    if (syncG_) syncG_->finish();
    stepOpt(*optG_, fusedG_.get());
    const torch::Tensor gradNormG = gradientNorm(g_->parameters());
    if (scaler_) scaler_->update();

    torch::NoGradGuard noGrad;
    using S = TrainingScalar::Key;
    std::array<torch::Tensor, TrainingScalar::kCount> v;
    v[TrainingScalar::index(S::LossD)] = errReal.detach() + errFake.detach();
    v[TrainingScalar::index(S::LossG)] = errG.detach();
    v[TrainingScalar::index(S::DX)] = torch::sigmoid(outReal.detach().to(torch::kFloat32)).mean();
    v[TrainingScalar::index(S::DGz1)] = torch::sigmoid(outFake.detach().to(torch::kFloat32)).mean();
    v[TrainingScalar::index(S::DGz2)] = torch::sigmoid(out.detach().to(torch::kFloat32)).mean();
    v[TrainingScalar::index(S::GradNormD)] = gradNormD;
    v[TrainingScalar::index(S::GradNormG)] = gradNormG;
    accumulate(v);
}

// The step's value of each StepMean scalar, in the table's order, into the accumulator (no host
// synchronisation: drain() makes the one per log interval).
void TrainStep::accumulate(const std::array<torch::Tensor, TrainingScalar::kCount>& values) {
    std::vector<torch::Tensor> parts;
    parts.reserve(TrainingScalar::stepMeanCount());
    for (const TrainingScalar::Spec& s : TrainingScalar::all()) {
        if (s.source != TrainingScalar::Source::StepMean) continue;
        const torch::Tensor& t = values[TrainingScalar::index(s.key)];
        if (!t.defined()) throw std::logic_error(std::string("TrainStep measures no value of the step-averaged scalar '") + s.field + "'");
        parts.push_back(t.to(torch::kFloat32).reshape({}));
    }
    acc_.add_(torch::stack(parts));
}

StepMetrics TrainStep::drain() {
    StepMetrics m;
    m.steps = accSteps_;
    if (accSteps_ == 0) return m;
    auto host = acc_.to(torch::kCPU, torch::kFloat64);  // the one synchronisation per log interval
    auto a = host.accessor<double, 1>();
    const double n = static_cast<double>(accSteps_);
    int64_t k = 0;
    for (const TrainingScalar::Spec& s : TrainingScalar::all())
        if (s.source == TrainingScalar::Source::StepMean) m.means[s.key] = a[k++] / n;
    acc_.zero_();
    accSteps_ = 0;
    return m;
}

torch::Tensor TrainStep::sample(const torch::Tensor& z) {
    torch::NoGradGuard noGrad;
    Generator& g = drawingGenerator();
    const bool wasTraining = g->is_training();
    g->eval();
    auto out = g->forward(z.to(device_)).to(torch::kCPU, torch::kFloat32);
    if (wasTraining) g->train();
    return out;
}

// G's rate, and D's unless the run gives D its own (--lr-d: two time-scale updates), which stays.
void TrainStep::setLearningRate(double lr) {
    for (auto* opt : {optG_.get(), optD_.get()})
        for (auto& group : opt->param_groups())
            static_cast<torch::optim::AdamWOptions&>(group.options()).lr(opt == optD_.get() && cfg_.lrD > 0 ? cfg_.lrD : lr);
}

double TrainStep::learningRate() const { return static_cast<const torch::optim::AdamWOptions&>(optG_->param_groups().at(0).options()).lr(); }

void TrainStep::capture(CheckpointData& out) {
    out.model = cfg_.model;
    out.generator = Checkpoint::stateOf(*g_);
    out.discriminator = Checkpoint::stateOf(*d_);
    if (ema_) out.generatorEma = Checkpoint::stateOf(*ema_->generator());
    if (fusedG_) fusedG_->syncSteps(*optG_);
    if (fusedD_) fusedD_->syncSteps(*optD_);
    out.generatorOptim = OptimizerState::capture(*optG_);
    out.discriminatorOptim = OptimizerState::capture(*optD_);
    if (scaler_) {
        out.ampScale = scaler_->scaleValue();
        out.ampGrowth = scaler_->growthTracker();
    }
}

void TrainStep::restore(const CheckpointData& in, const std::string& path) {
    if (in.generatorOnly())
        throw CheckpointError("checkpoint '" + path +
                              "' holds only the generator (a slim checkpoint: D_state_dict is None): training cannot resume from it; "
                              "resume from a full checkpoint (checkpoints/checkpoint_N.pt)");
    Checkpoint::apply(*g_, in.generator, "G", path);
    Checkpoint::apply(*d_, in.discriminator, "D", path);
    if (ema_) {
        // A checkpoint without G_ema (the reference's, or a run trained with --ema 0) starts it at G.
        if (in.generatorEma.empty())
            ema_->copyFrom(g_);
        else
            Checkpoint::apply(*ema_->generator(), in.generatorEma, "G_ema", path);
    }
    steps_ = in.step;
    if (in.generatorOptim) in.generatorOptim->restore(*optG_, "checkpoint '" + path + "': G");
    if (in.discriminatorOptim) in.discriminatorOptim->restore(*optD_, "checkpoint '" + path + "': D");
    if (scaler_ && in.ampScale > 0) scaler_->load(in.ampScale, in.ampGrowth);
    if (fusedG_) fusedG_->reset();
    if (fusedD_) fusedD_->reset();
    if (graph_) {  // new optimiser step tensors (made lazily, so in eager steps): warm up and capture again
        graph_->reset();
        graphWarmup_ = 0;
    }
}

}  // namespace streetgan
