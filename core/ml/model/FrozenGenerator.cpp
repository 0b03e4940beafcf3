#include "ml/model/FrozenGenerator.h"

#include <string>

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>

#include "base/util/Errors.h"
#include "ml/util/ShapeText.h"
#include "ml/util/TorchCompat.h"

namespace streetgan {
FrozenGenerator::FrozenGenerator(const Generator& g, Precision precision)
    : cfg_(g->config()), compute_(precision == Precision::BFloat16 ? at::kBFloat16 : at::kFloat) {
    c10::InferenceMode guard;
    std::vector<std::shared_ptr<torch::nn::Module>> mods;
    for (const auto& child : g->children())
        for (const auto& m : child->children()) mods.push_back(m);
    auto bad = [](const std::string& why) { throw ConfigError("frozen generator: " + why + "; expected the DCGAN layout of model/Generator.h"); };
    for (size_t i = 0; i < mods.size(); ++i) {
        auto* conv = mods[i]->as<torch::nn::ConvTranspose2dImpl>();
        if (!conv) bad("layer " + std::to_string(i) + " is not a transposed convolution");
        const auto& o = conv->options;
        at::Tensor w = conv->weight.detach().to(at::kCPU, at::kFloat).clone();  // (Cin, Cout, k, k)
        Layer layer;
        layer.outChannels = w.size(1);
        const auto* pad = TorchCompat::getIf<torch::ExpandingArray<2>>(&o.padding());
        if (!pad) bad("layer " + std::to_string(i) + " uses 'valid' or 'same' padding");
        layer.stride = o.stride()->at(0);
        layer.padding = (*pad)->at(0);
        if (o.stride()->at(0) != o.stride()->at(1) || (*pad)->at(0) != (*pad)->at(1) || o.groups() != 1 || o.dilation()->at(0) != 1 ||
            o.dilation()->at(1) != 1 || o.output_padding()->at(0) != 0 || o.output_padding()->at(1) != 0)
            bad("layer " + std::to_string(i) + " has an unsupported stride, padding, dilation or groups");
        if (conv->bias.defined()) layer.bias = conv->bias.detach().to(at::kCPU, at::kFloat).clone();
        if (i + 1 < mods.size()) {
            if (auto* bn = mods[i + 1]->as<torch::nn::BatchNorm2dImpl>()) {
                const at::Tensor mean = bn->running_mean.detach().to(at::kCPU, at::kFloat);
                const at::Tensor var = bn->running_var.detach().to(at::kCPU, at::kFloat);
                const at::Tensor gamma = bn->weight.defined() ? bn->weight.detach().to(at::kCPU, at::kFloat) : at::ones_like(mean);
                const at::Tensor beta = bn->bias.defined() ? bn->bias.detach().to(at::kCPU, at::kFloat) : at::zeros_like(mean);
                const at::Tensor scale = gamma / at::sqrt(var + bn->options.eps());
                w = w * scale.view({1, -1, 1, 1});
                at::Tensor b = beta - mean * scale;
                layer.bias = layer.bias.defined() ? layer.bias * scale + b : b;
                ++i;
            }
        }
        if (i + 1 < mods.size()) {
            if (mods[i + 1]->as<torch::nn::ReLUImpl>()) {
                layer.activation = Layer::Activation::Relu;
                ++i;
            } else if (mods[i + 1]->as<torch::nn::TanhImpl>()) {
                layer.activation = Layer::Activation::Tanh;
                ++i;
            }
        }
        const int64_t k = w.size(2);
        layer.kernel = k;
        if (layers_.empty() && layer.stride == 1 && layer.padding == 0 && w.size(3) == k) {
            layer.kind = Layer::Kind::Dense;  // on a 1x1 input: z (N, nz) @ (nz, Cout*k*k)
            layer.weight = w.reshape({w.size(0), -1}).to(compute_).contiguous();
        } else if (layer.stride == 2 && layer.padding == 1 && k == 4 && w.size(3) == 4 && layer.outChannels > 8) {
            layer.kind = Layer::Kind::Phases;
            // Output row 2m + a takes input rows (m - 1 + a, m + a) with kernel rows kmap[a].
            const int64_t kmap[2][2] = {{3, 1}, {2, 0}};
            for (int a = 0; a < 2; ++a)
                for (int b = 0; b < 2; ++b) {
                    at::Tensor rows = at::stack({w.select(2, kmap[a][0]), w.select(2, kmap[a][1])}, 2);        // (Cin, Cout, 2, k)
                    at::Tensor taps = at::stack({rows.select(3, kmap[b][0]), rows.select(3, kmap[b][1])}, 3);  // (Cin, Cout, 2, 2)
                    layer.phases.push_back(taps.permute({1, 0, 2, 3}).to(compute_).contiguous());
                }
        } else {
            layer.kind = Layer::Kind::Transposed;  // stays float32
            layer.weight = w.contiguous();
        }
        if (layer.kind != Layer::Kind::Transposed && layer.bias.defined()) layer.bias = layer.bias.to(compute_);
        layers_.push_back(std::move(layer));
    }
    if (layers_.empty()) bad("the generator has no layers");
    if (compute_ != at::kFloat) {
        if (at::hasMKLDNN()) {
            try {
                for (Layer& l : layers_)
                    for (const at::Tensor& p : l.phases) l.packed.push_back(at::mkldnn_reorder_conv2d_weight(p.to_mkldnn(), {0, 0}, {1, 1}, {1, 1}, 1));
                forward(at::zeros({1, cfg_.nz}));
                for (Layer& l : layers_) l.phases.clear();  // forward() reads the packed copies only
            } catch (const c10::Error&) {
                for (Layer& l : layers_) l.packed.clear();  // this LibTorch's oneDNN cannot: conv2d below
            }
        }
        try {
            forward(at::zeros({1, cfg_.nz}));
        } catch (const c10::Error& e) {
            throw ConfigError(std::string("frozen generator: this CPU cannot run bfloat16 convolutions (") + e.what_without_backtrace() +
                              "); use float32 precision");
        }
    }
}

at::Tensor FrozenGenerator::forward(const at::Tensor& zIn) const {
    if (!zIn.defined() || !(zIn.dim() == 2 || (zIn.dim() == 4 && zIn.size(2) == 1 && zIn.size(3) == 1)) || zIn.size(1) != cfg_.nz)
        throw DataError("frozen generator: expected z shaped (N, " + std::to_string(cfg_.nz) + ") or (N, " + std::to_string(cfg_.nz) + ", 1, 1), got " +
                        (zIn.defined() ? shapeText(zIn) : std::string("an undefined tensor")));
    c10::InferenceMode guard;
    const int64_t n = zIn.size(0);
    at::Tensor x = zIn.to(at::kCPU, compute_).reshape({n, cfg_.nz, 1, 1});
    for (const Layer& l : layers_) {
        if (l.kind == Layer::Kind::Transposed && x.scalar_type() != at::kFloat) x = x.to(at::kFloat);
        switch (l.kind) {
            case Layer::Kind::Dense: {
                x = at::mm(x.reshape({n, -1}), l.weight).view({n, l.outChannels, l.kernel, l.kernel});
                if (l.bias.defined()) x.add_(l.bias.view({1, -1, 1, 1}));
                break;
            }
            case Layer::Kind::Phases: {
                const int64_t h = x.size(2), w = x.size(3);
                const at::Tensor xp = at::constant_pad_nd(x, {1, 1, 1, 1}, 0);
                at::Tensor y = at::empty({n, l.outChannels, h, 2, w, 2}, x.options());
                for (size_t a = 0; a < 2; ++a)
                    for (size_t b = 0; b < 2; ++b) {
                        const auto ia = static_cast<int64_t>(a), ib = static_cast<int64_t>(b);
                        const at::Tensor window = xp.narrow(2, ia, h + 1).narrow(3, ib, w + 1);
                        const size_t p = a * 2 + b;
                        y.select(5, ib).select(3, ia).copy_(l.packed.empty()
                                                                ? at::conv2d(window, l.phases[p], l.bias)
                                                                : at::mkldnn_convolution(window.contiguous(), l.packed[p], l.bias, {0, 0}, {1, 1}, {1, 1}, 1));
                    }
                x = y.view({n, l.outChannels, 2 * h, 2 * w});
                break;
            }
            case Layer::Kind::Transposed:
                x = at::conv_transpose2d(x, l.weight, l.bias, l.stride, l.padding);
                break;
        }
        if (l.activation == Layer::Activation::Relu)
            x.clamp_min_(0);
        else if (l.activation == Layer::Activation::Tanh)
            x.tanh_();
    }
    return x.scalar_type() == at::kFloat ? x : x.to(at::kFloat);
}

}  // namespace streetgan
