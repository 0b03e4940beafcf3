#include "ml/eval/FeatureExtractor.h"

#include <filesystem>

#include <ATen/ATen.h>
#include <torch/script.h>

#include "base/util/ContentHash.h"
#include "base/util/Errors.h"

namespace streetgan {

struct FeatureExtractor::Impl {
    torch::jit::Module module;
};

FeatureExtractor::FeatureExtractor(const std::string& path, c10::Device device) : impl_(std::make_unique<Impl>()), path_(path), device_(device) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw ConfigError("feature model '" + path + "' does not exist: pass a TorchScript feature network such as clean-fid's inception-2015-12-05.pt");
    try {
        impl_->module = torch::jit::load(path, device);
    } catch (const std::exception& e) {
        std::string why = e.what();
        why = why.substr(0, why.find('\n'));
        throw ConfigError("feature model '" + path + "' is not a TorchScript module (" + why +
                          "): save one with torch.jit.save, e.g. clean-fid's inception-2015-12-05.pt");
    }
    impl_->module.eval();
    const auto method = impl_->module.find_method("forward");
    if (!method) throw ConfigError("feature model '" + path + "' has no forward method: it must map images (N, 3, H, W) to features (N, D)");
    const auto& args = method->function().getSchema().arguments();
    // args[0] is self, args[1] the images; any further argument must have a default value.
    if (args.size() < 2) throw ConfigError("feature model '" + path + "': forward takes no input; it must map images (N, 3, H, W) to features (N, D)");
    for (size_t i = 2; i < args.size(); ++i) {
        if (args[i].name() == "return_features")
            byKeyword_ = true;
        else if (!args[i].default_value())
            throw ConfigError("feature model '" + path + "': forward needs argument '" + args[i].name() +
                              "' besides the images; export a module whose forward(x) or forward(x, return_features=True) gives features");
    }
    sha256_ = ContentHash::sha256File(path);
}

FeatureExtractor::~FeatureExtractor() = default;

at::Tensor FeatureExtractor::features(const at::Tensor& images, int batch) {
    if (!images.defined() || images.dim() != 4 || images.size(0) < 1 || images.size(1) != 3)
        throw DataError("feature model '" + path_ + "': images must be (N, 3, H, W) with N >= 1");
    if (batch < 1) throw ConfigError("feature batch size must be at least 1 (got " + std::to_string(batch) + ")");
    torch::NoGradGuard noGrad;
    auto forward = impl_->module.get_method("forward");
    const int64_t n = images.size(0);
    at::Tensor out;
    for (int64_t s = 0; s < n; s += batch) {
        const int64_t b = std::min<int64_t>(batch, n - s);
        at::Tensor x = images.narrow(0, s, b).to(device_, at::kFloat).contiguous();
        c10::IValue result;
        try {
            if (byKeyword_)
                result = forward({x}, {{"return_features", true}});
            else
                result = forward({x});
        } catch (const std::exception& e) {
            std::string why = e.what();
            throw DataError("feature model '" + path_ + "' failed on a batch of " + std::to_string(b) + " images " + std::to_string(x.size(2)) + "x" +
                            std::to_string(x.size(3)) + ": " + why.substr(0, why.find('\n')));
        }
        if (!result.isTensor())
            throw DataError("feature model '" + path_ + "' returned a " + result.tagKind() + ", not a tensor: it must return features (N, D)");
        at::Tensor f = result.toTensor();
        if (f.dim() < 2 || f.size(0) != b)
            throw DataError("feature model '" + path_ + "' returned shape " + std::string(c10::str(f.sizes())) + " for " + std::to_string(b) +
                            " images: it must return features (N, D)");
        f = f.reshape({b, -1}).to(at::kCPU, at::kFloat);
        if (!out.defined()) {
            dim_ = f.size(1);
            out = at::empty({n, dim_}, at::TensorOptions().dtype(at::kFloat));
        } else if (f.size(1) != dim_) {
            throw DataError("feature model '" + path_ + "' returned " + std::to_string(f.size(1)) + " features per image after " + std::to_string(dim_) +
                            " earlier: its output length must not depend on the batch");
        }
        out.narrow(0, s, b).copy_(f);
    }
    if (!at::isfinite(out).all().item<bool>())
        throw DataError("feature model '" + path_ + "' returned NaN or infinite features: check the model and its input range [0, 255]");
    return out;
}

at::Tensor FeatureExtractor::toNetworkInput(const at::Tensor& tanhImages) { return tanhImages.to(at::kFloat).add(1.0).mul_(127.5).round_().clamp_(0.0, 255.0); }

at::Tensor FeatureExtractor::fromBytes(const at::Tensor& nhwcBytes) { return nhwcBytes.permute({0, 3, 1, 2}).to(at::kFloat).contiguous(); }

}  // namespace streetgan
