// A user-supplied TorchScript feature network for FID, KID and precision/recall.
//
// Two interfaces are recognised from the module's forward schema:
//  - clean-fid's / StyleGAN2-ADA's inception-2015-12-05.pt: forward(img, return_features=False, ...)
//    takes float NCHW RGB in [0, 255] of any size, resizes to 299 itself, and with
//    return_features=True returns the (N, 2048) pool features. Detected by an argument named
//    "return_features", which is then passed as a keyword.
//  - any module whose plain forward(x) returns (N, D) features (or (N, D, 1, 1): flattened). It
//    receives the same input: float32 NCHW RGB in [0, 255] at the images' own size; resizing and
//    normalisation are the module's business.
// Images reach the network as callers give them (see toNetworkInput for the generator's Tanh
// output); features come back as float32 (N, D) on the CPU.
//
// Thread contract: not thread-safe (a TorchScript module has one owner thread at a time); distinct
// instances may run on distinct threads. Ownership: the instance owns its module.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

namespace streetgan {

class FeatureExtractor {
public:
    /// Loads `path` with torch::jit::load onto `device` in eval mode and hashes the file.
    /// Throws ConfigError naming the path when it does not exist, is not TorchScript, or its
    /// forward needs arguments other than the images.
    FeatureExtractor(const std::string& path, c10::Device device);
    ~FeatureExtractor();
    FeatureExtractor(const FeatureExtractor&) = delete;
    FeatureExtractor& operator=(const FeatureExtractor&) = delete;

    /// Features of `images`: float (N, 3, H, W) in [0, 255], any device; N >= 1. Runs the network
    /// without autograd in batches of `batch` images; returns float32 (N, D) on the CPU. Throws
    /// DataError when the module fails or returns anything but N rows of finite features.
    at::Tensor features(const at::Tensor& images, int batch = 50);

    /// Generator output x in [-1, 1] (N, 3, H, W) -> what real images look like to the network:
    /// round((x + 1) * 127.5) clamped to 0..255 (8-bit quantised like decoded photos), float32.
    static at::Tensor toNetworkInput(const at::Tensor& tanhImages);
    /// 8-bit HWC RGB images (N, H, W, 3) uint8 -> float32 (N, 3, H, W) in [0, 255].
    static at::Tensor fromBytes(const at::Tensor& nhwcBytes);

    const std::string& path() const { return path_; }
    /// SHA-256 of the model file (64 hex digits): the feature space's identity in cache keys.
    const std::string& sha256() const { return sha256_; }
    /// True for the clean-fid interface (return_features keyword), false for plain forward(x).
    bool returnsFeaturesByKeyword() const { return byKeyword_; }
    /// Feature length D, known after the first features() call (0 before).
    int64_t dim() const { return dim_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string path_, sha256_;
    bool byKeyword_ = false;
    int64_t dim_ = 0;
    c10::Device device_;
};

}  // namespace streetgan
