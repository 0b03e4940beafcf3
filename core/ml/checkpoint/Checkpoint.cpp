#include "ml/checkpoint/Checkpoint.h"

#include <algorithm>
#include <map>
#include <optional>

#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/torch.h>

#include "base/model/Presets.h"
#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/PickleValue.h"
#include "ml/checkpoint/TorchPickleReader.h"

namespace streetgan {
namespace {

using c10::IValue;
using c10::impl::GenericDict;
using c10::impl::GenericList;

const char* kNative = "streetgan/1";

GenericDict stateToIValue(const StateDict& state) {
    GenericDict d(c10::StringType::get(), c10::TensorType::get());
    for (const auto& [k, t] : state) d.insert(k, t.detach().to(torch::kCPU).contiguous());
    return d;
}

GenericDict optimToIValue(const OptimizerState& o) {
    GenericDict state(c10::IntType::get(), c10::AnyType::get());
    GenericList params(c10::AnyType::get());
    for (size_t i = 0; i < o.step.size(); ++i) {
        params.push_back(IValue(static_cast<int64_t>(i)));
        if (o.step[i] == 0) continue;
        GenericDict ps(c10::StringType::get(), c10::AnyType::get());
        // PyTorch keeps `step` as a tensor; float64 holds any realistic step count exactly.
        ps.insert("step", torch::tensor(static_cast<double>(o.step[i]), torch::kFloat64));
        ps.insert("exp_avg", o.expAvg[i].detach().to(torch::kCPU).contiguous());
        ps.insert("exp_avg_sq", o.expAvgSq[i].detach().to(torch::kCPU).contiguous());
        state.insert(IValue(static_cast<int64_t>(i)), ps);
    }
    GenericDict group(c10::StringType::get(), c10::AnyType::get());
    group.insert("lr", o.lr);
    group.insert("betas", c10::ivalue::Tuple::create(IValue(o.beta1), IValue(o.beta2)));
    group.insert("eps", o.eps);
    group.insert("weight_decay", o.weightDecay);
    group.insert("amsgrad", false);
    group.insert("maximize", false);
    group.insert("foreach", IValue());
    group.insert("capturable", false);
    group.insert("params", params);
    GenericList groups(c10::AnyType::get());
    groups.push_back(group);
    GenericDict out(c10::StringType::get(), c10::AnyType::get());
    out.insert("state", state);
    out.insert("param_groups", groups);
    return out;
}

// {"_G": [...], "_D": [...]} as the reference's resume path reads and appends to it. The lists
// hold Python floats (not a tensor): the reference calls .append on them.
GenericDict lossesToIValue(const LossHistory& h) {
    auto list = [](const std::vector<double>& v) {
        GenericList l(c10::AnyType::get());
        l.reserve(v.size());
        for (const double x : v) l.push_back(IValue(x));
        return l;
    };
    GenericDict d(c10::StringType::get(), c10::AnyType::get());
    d.insert("_G", list(h.g));
    d.insert("_D", list(h.d));
    return d;
}

StateDict readState(const PickleValue& v, const std::string& what, const std::string& path) {
    if (!v.isDict()) throw CheckpointError("checkpoint '" + path + "': " + what + " is not a dict of tensors");
    StateDict out;
    for (const auto& [k, t] : v.entries()) {
        if (!k.isString() || !t.isTensor()) continue;
        std::string name = k.asString();
        if (name.rfind("module.", 0) == 0) name = name.substr(7);  // DistributedDataParallel prefix
        out.emplace_back(name, t.asTensor());
    }
    return out;
}

int64_t asInteger(const PickleValue& v) {
    if (v.isInt()) return v.asInt();
    if (v.isFloat()) return static_cast<int64_t>(v.asDouble());
    if (v.isTensor()) return static_cast<int64_t>(v.asTensor().item<double>());
    throw CheckpointError("expected a number");
}

double asNumber(const PickleValue& v) {
    if (v.isFloat()) return v.asDouble();
    if (v.isInt()) return static_cast<double>(v.asInt());
    if (v.isTensor()) return v.asTensor().item<double>();
    throw CheckpointError("expected a number");
}

OptimizerState readOptim(const PickleValue& v, size_t paramCount, const std::string& what, const std::string& path) {
    const PickleValue* state = v.find("state");
    const PickleValue* groups = v.find("param_groups");
    if (!state || !groups || !state->isDict() || groups->items().empty())
        throw CheckpointError("checkpoint '" + path + "': " + what + " is not an optimizer state_dict (no state/param_groups)");
    OptimizerState o;
    const PickleValue& g = groups->items().front();
    if (const auto* lr = g.find("lr")) o.lr = asNumber(*lr);
    if (const auto* b = g.find("betas"); b && b->items().size() == 2) {
        o.beta1 = asNumber(b->items()[0]);
        o.beta2 = asNumber(b->items()[1]);
    }
    if (const auto* wd = g.find("weight_decay")) o.weightDecay = asNumber(*wd);
    if (const auto* eps = g.find("eps")) o.eps = asNumber(*eps);
    size_t n = paramCount;
    if (const auto* params = g.find("params")) n = params->items().size();
    o.step.assign(n, 0);
    o.expAvg.resize(n);
    o.expAvgSq.resize(n);
    for (const auto& [k, ps] : state->entries()) {
        if (!k.isInt()) continue;
        const int64_t i = k.asInt();
        if (i < 0 || static_cast<size_t>(i) >= n) throw CheckpointError("checkpoint '" + path + "': " + what + " state index out of range");
        const auto* step = ps.find("step");
        const auto* m = ps.find("exp_avg");
        const auto* v2 = ps.find("exp_avg_sq");
        if (!step || !m || !v2 || !m->isTensor() || !v2->isTensor())
            throw CheckpointError("checkpoint '" + path + "': " + what + " is not AdamW/Adam state (no exp_avg/exp_avg_sq)");
        o.step[static_cast<size_t>(i)] = asInteger(*step);
        o.expAvg[static_cast<size_t>(i)] = m->asTensor();
        o.expAvgSq[static_cast<size_t>(i)] = v2->asTensor();
    }
    return o;
}

// Numbers of a list; nullopt when `v` is not a list of numbers (0-d tensors count: code that
// appends err_G instead of err_G.item() writes those).
std::optional<std::vector<double>> numbers(const PickleValue& v) {
    if (!v.isList() && !v.isTuple()) return std::nullopt;
    std::vector<double> out;
    out.reserve(v.items().size());
    for (const PickleValue& x : v.items()) {
        if (x.isFloat() || x.isInt()) {
            out.push_back(x.asDouble());
        } else if (x.isTensor() && x.asTensor().numel() == 1 && !x.asTensor().is_complex()) {
            out.push_back(x.asTensor().item<double>());
        } else {
            return std::nullopt;
        }
    }
    return out;
}

// "losses": {"_G": [...], "_D": [...]} (gpu_dcgan.py, ours) or [G, D] (older reference scripts).
// Any other layout leaves the history empty instead of failing: the weights are what matter.
LossHistory readLosses(const PickleValue& v) {
    LossHistory h;
    std::optional<std::vector<double>> g, d;
    if (v.isDict()) {
        const PickleValue* pg = v.find("_G");
        const PickleValue* pd = v.find("_D");
        if (pg && pd) g = numbers(*pg), d = numbers(*pd);
    } else if ((v.isList() || v.isTuple()) && v.items().size() == 2) {
        g = numbers(v.items()[0]);
        d = numbers(v.items()[1]);
    }
    if (g && d) h.g = std::move(*g), h.d = std::move(*d);
    return h;
}

// Conv weights (4-d tensors) in layer order: main.<N>.weight sorted by N.
std::vector<torch::Tensor> convWeights(const StateDict& s) {
    std::map<int, torch::Tensor> byIndex;
    for (const auto& [k, t] : s) {
        if (t.dim() != 4 || k.rfind("main.", 0) != 0) continue;
        const auto dot = k.find('.', 5);
        if (dot == std::string::npos || k.substr(dot) != ".weight") continue;
        try {
            byIndex[std::stoi(k.substr(5, dot - 5))] = t;
        } catch (const std::exception&) {}
    }
    std::vector<torch::Tensor> out;
    for (auto& [i, t] : byIndex) out.push_back(t);
    return out;
}

void writeAtomically(const GenericDict& root, const std::string& path) {
    std::vector<char> bytes;
    try {
        bytes = torch::pickle_save(IValue(root));
    } catch (const c10::Error& e) {
        throw IoError("cannot serialise checkpoint '" + path + "': " + e.what_without_backtrace());
    }
    AtomicFile::write(path, bytes.data(), bytes.size());
}

}  // namespace

void Checkpoint::save(const CheckpointData& data, const std::string& path) {
    GenericDict root(c10::StringType::get(), c10::AnyType::get());
    root.insert("format", std::string(kNative));
    root.insert("epoch", data.epoch);
    root.insert("step", data.step);
    root.insert("G_state_dict", stateToIValue(data.generator));
    root.insert("D_state_dict", stateToIValue(data.discriminator));
    if (data.generatorOptim) root.insert("G_optim", optimToIValue(*data.generatorOptim));
    if (data.discriminatorOptim) root.insert("D_optim", optimToIValue(*data.discriminatorOptim));
    root.insert("losses", lossesToIValue(data.losses));
    GenericList imgList(c10::AnyType::get());  // empty in a run of ours: see Checkpoint.h
    for (const auto& grid : data.imgList) imgList.push_back(grid.detach().to(torch::kCPU).contiguous());
    root.insert("img_list", imgList);
    // Every key the reference's resume reads is present; no noise is None, not a missing key.
    root.insert("noise", data.fixedNoise.defined() ? IValue(data.fixedNoise.detach().to(torch::kCPU).contiguous()) : IValue());
    root.insert("config", data.configJson);
    if (data.rngState.defined()) root.insert("rng", data.rngState.detach().to(torch::kCPU).contiguous());
    root.insert("amp_scale", data.ampScale);
    root.insert("amp_growth", data.ampGrowth);
    if (!data.generatorEma.empty()) root.insert("G_ema_state_dict", stateToIValue(data.generatorEma));
    writeAtomically(root, path);
}

void Checkpoint::saveSlim(const CheckpointData& data, const std::string& path) {
    // The reference's key order (its torch.save call); only epoch and G_state_dict hold values.
    GenericDict root(c10::StringType::get(), c10::AnyType::get());
    root.insert("epoch", data.epoch);
    root.insert("D_state_dict", IValue());
    root.insert("G_state_dict", stateToIValue(data.generator));
    for (const char* key : {"D_optim", "G_optim", "losses", "img_list", "noise"}) root.insert(key, IValue());
    root.insert("G_source", data.generatorSource);
    writeAtomically(root, path);
}

CheckpointData Checkpoint::load(const std::string& path) {
    PickleValue root = TorchPickleReader::load(path);
    if (!root.isDict()) throw CheckpointError("checkpoint '" + path + "' is not a dict: not a StreetGAN or DCGAN checkpoint");
    const PickleValue* g = root.find("G_state_dict");
    if (!g || g->isNone()) throw CheckpointError("checkpoint '" + path + "' has no G_state_dict: not a StreetGAN or reference DCGAN checkpoint");
    CheckpointData out;
    try {
        const PickleValue* format = root.find("format");
        out.format = (format && format->isString()) ? format->asString() : "reference";
        if (out.format != kNative && out.format != "reference")
            throw CheckpointError("checkpoint '" + path + "' has format '" + out.format + "', which this version cannot read: update StreetGAN");
        out.generator = readState(*g, "G_state_dict", path);
        // A slim checkpoint's D_state_dict is None: a G-only checkpoint.
        if (const auto* d = root.find("D_state_dict"); d && !d->isNone()) out.discriminator = readState(*d, "D_state_dict", path);
        if (const auto* e = root.find("G_ema_state_dict"); e && !e->isNone()) out.generatorEma = readState(*e, "G_ema_state_dict", path);
        if (const auto* v = root.find("G_source"); v && v->isString()) out.generatorSource = v->asString();
        out.model = inferArchitecture(out.generator, out.discriminator, path);
        if (const auto* v = root.find("epoch"); v && !v->isNone()) out.epoch = asInteger(*v);
        if (const auto* v = root.find("step"); v && !v->isNone()) out.step = asInteger(*v);
        if (const auto* v = root.find("noise"); v && v->isTensor()) out.fixedNoise = v->asTensor().to(torch::kFloat32);
        if (const auto* v = root.find("config"); v && v->isString()) out.configJson = v->asString();
        if (const auto* v = root.find("rng"); v && v->isTensor()) out.rngState = v->asTensor();
        if (const auto* v = root.find("amp_scale"); v && !v->isNone()) out.ampScale = asNumber(*v);
        if (const auto* v = root.find("amp_growth"); v && !v->isNone()) out.ampGrowth = asInteger(*v);
        size_t gParams = 0, dParams = 0;
        for (const auto& [k, t] : out.generator) gParams += (k.find("running_") == std::string::npos && k.find("num_batches") == std::string::npos);
        for (const auto& [k, t] : out.discriminator) dParams += (k.find("running_") == std::string::npos && k.find("num_batches") == std::string::npos);
        if (const auto* v = root.find("G_optim"); v && v->isDict()) out.generatorOptim = readOptim(*v, gParams, "G_optim", path);
        if (const auto* v = root.find("D_optim"); v && v->isDict()) out.discriminatorOptim = readOptim(*v, dParams, "D_optim", path);
        if (const auto* v = root.find("losses")) out.losses = readLosses(*v);
        if (const auto* v = root.find("img_list"); v && v->isList())
            for (const auto& item : v->items())
                if (item.isTensor()) out.imgList.push_back(item.asTensor().to(torch::kFloat32));
        // The reference saves no step count; AdamW's per-parameter step is the optimiser steps
        // taken, so a resumed run continues the step count (and its data order) from there.
        if (out.format == "reference" && out.step == 0 && out.generatorOptim && !out.generatorOptim->empty())
            out.step = *std::max_element(out.generatorOptim->step.begin(), out.generatorOptim->step.end());
    } catch (const CheckpointError& e) {
        const std::string what = e.what();
        if (what.find(path) != std::string::npos) throw;
        throw CheckpointError("checkpoint '" + path + "' has an unexpected layout: " + what);
    } catch (const std::exception& e) {
        throw CheckpointError("checkpoint '" + path + "' has an unexpected layout: " + e.what());
    }
    if (out.fixedNoise.defined() && (out.fixedNoise.dim() < 2 || out.fixedNoise.size(1) != out.model.nz))
        throw CheckpointError("checkpoint '" + path + "': fixed noise has shape " + Checkpoint::shapeText(out.fixedNoise) +
                              " but the generator takes nz=" + std::to_string(out.model.nz));
    return out;
}

ModelConfig Checkpoint::inferArchitecture(const StateDict& g, const StateDict& d, const std::string& path) {
    auto gw = convWeights(g);
    if (gw.size() < 3) throw CheckpointError("checkpoint '" + path + "': G_state_dict has no DCGAN generator layers (main.N.weight): unsupported architecture");
    ModelConfig m;
    m.preset = "custom";
    const int stages = static_cast<int>(gw.size()) - 1;
    m.nz = gw.front().size(0);
    m.imgSize = int64_t{4} << stages;
    m.ngf = gw.front().size(1) >> (stages - 1);
    m.nc = gw.back().size(1);
    auto dw = convWeights(d);
    if (!dw.empty()) {
        m.ndf = dw.front().size(0);
    } else {
        // A G-only (slim) checkpoint does not say; the preset whose generator it is is the best
        // guess (so it is still recognised as that preset), else the default. It still samples.
        for (const std::string& name : Presets::names()) {
            const ModelConfig p = Presets::get(name);
            if (p.nz == m.nz && p.ngf == m.ngf && p.nc == m.nc && p.imgSize == m.imgSize) {
                m.ndf = p.ndf;
                break;
            }
        }
    }
    try {
        m.validate();
    } catch (const ConfigError& e) {
        throw CheckpointError("checkpoint '" + path + "' has an unsupported architecture: " + e.what());
    }
    return m;
}

std::string Checkpoint::shapeText(const torch::Tensor& t) {
    std::string s = "[";
    for (int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
    return s + "]";
}

StateDict Checkpoint::stateOf(const torch::nn::Module& module) {
    StateDict out;
    for (const auto& p : module.named_parameters(true)) out.emplace_back(p.key(), p.value().detach().to(torch::kCPU).clone());
    for (const auto& b : module.named_buffers(true)) out.emplace_back(b.key(), b.value().detach().to(torch::kCPU).clone());
    return out;
}

void Checkpoint::apply(torch::nn::Module& module, const StateDict& state, const std::string& what, const std::string& path) {
    std::map<std::string, const torch::Tensor*> given;
    for (const auto& [k, t] : state) given[k] = &t;
    torch::NoGradGuard noGrad;
    std::vector<std::pair<torch::Tensor, const torch::Tensor*>> copies;
    auto check = [&](const std::string& name, torch::Tensor& dst) {
        auto it = given.find(name);
        if (it == given.end()) throw CheckpointError("checkpoint '" + path + "' lacks " + what + " tensor " + name + ": it is for another architecture");
        const torch::Tensor& src = *it->second;
        if (src.sizes() != dst.sizes())
            throw CheckpointError("checkpoint '" + path + "' is for another architecture: " + what + " tensor " + name + " is " + Checkpoint::shapeText(src) +
                                  " in the checkpoint but " + Checkpoint::shapeText(dst) + " in the model");
        copies.emplace_back(dst, it->second);
        given.erase(it);
    };
    for (auto& p : module.named_parameters(true)) check(p.key(), p.value());
    for (auto& b : module.named_buffers(true)) check(b.key(), b.value());
    if (!given.empty())
        throw CheckpointError("checkpoint '" + path + "' is for another architecture: " + what + " tensor " + given.begin()->first +
                              " has no place in the model");
    for (auto& [dst, src] : copies) dst.copy_(*src);  // only once everything matched: no half-loaded model
}

}  // namespace streetgan
