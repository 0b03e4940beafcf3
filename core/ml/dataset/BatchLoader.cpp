#include "ml/dataset/BatchLoader.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>
#include <algorithm>

#include "base/util/Errors.h"
#include "base/util/SeedHash.h"
#include "ml/dataset/Augmentation.h"

namespace streetgan {

BatchLoader::BatchLoader(std::shared_ptr<const ImageSource> source, LoaderOptions options) : source_(std::move(source)), opt_(options) {
    const int64_t perRank = source_->size() / opt_.worldSize;
    stepsPerEpoch_ = perRank / opt_.batch;
    if (stepsPerEpoch_ < 1)
        throw DataError("data source " + source_->describe() + " has fewer images per rank than one batch of " + std::to_string(opt_.batch) +
                        ": lower --batch or add images");
}

BatchLoader::~BatchLoader() { stop(); }

std::shared_ptr<const std::vector<int64_t>> BatchLoader::permutation(int64_t epoch) const {
    std::lock_guard<std::mutex> lock(permMutex_);
    auto it = perms_.find(epoch);
    if (it != perms_.end()) return it->second;
    auto perm = std::make_shared<std::vector<int64_t>>(static_cast<size_t>(source_->size()));
    for (size_t i = 0; i < perm->size(); ++i) (*perm)[i] = static_cast<int64_t>(i);
    if (opt_.shuffle) {
        // Fisher-Yates with our own generator: identical on every platform.
        uint64_t state = SeedHash::of(opt_.seed, 0x73687566666c65ULL, static_cast<uint64_t>(epoch));
        for (size_t i = perm->size(); i > 1; --i) {
            state = SeedHash::mix(state);
            const size_t j = static_cast<size_t>(state % i);
            std::swap((*perm)[i - 1], (*perm)[j]);
        }
    }
    perms_[epoch] = perm;
    while (perms_.size() > 2) perms_.erase(perms_.begin());  // workers span at most two epochs
    return perm;
}

Batch BatchLoader::make(int64_t step) const {
    Batch b;
    b.step = step;
    b.epoch = step / stepsPerEpoch_;
    const int64_t inEpoch = step % stepsPerEpoch_;
    const int S = opt_.imgSize;
    const int64_t B = opt_.batch;
    auto floatOpts = torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(opt_.pinMemory);
    auto perm = permutation(b.epoch);
    const int64_t plane = static_cast<int64_t>(S) * S;
    const double noiseStd = source_->noiseStd();
    uint64_t noiseSeed = SeedHash::of(opt_.seed, 0x6e6f697365ULL, static_cast<uint64_t>(step));
    // Each rank draws its own z (rank 0 keeps the single-process stream): the same z on every
    // rank would train G on copies of one fake batch.
    if (opt_.rank > 0) noiseSeed = SeedHash::of(noiseSeed, 0x72616e6bULL, static_cast<uint64_t>(opt_.rank));
    // z in both forms, here on the loader's thread: a few hundred kB, and the same values for a seed
    // on every device (a CPU and a GPU run of one seed see the same images and the same z).
    auto gen = at::make_generator<at::CPUGeneratorImpl>(noiseSeed);
    b.noise = torch::randn({B, opt_.nz, 1, 1}, gen, floatOpts);
    if (opt_.deviceSide) {
        // The images' pixels as the source gives them, straight into the pinned batch.
        b.realU8 = torch::empty({B, S, S, 3}, torch::TensorOptions().dtype(torch::kUInt8).pinned_memory(opt_.pinMemory));
        uint8_t* out = b.realU8.data_ptr<uint8_t>();
        for (int64_t i = 0; i < B; ++i) {
            const int64_t index = (*perm)[static_cast<size_t>((inEpoch * B + i) * opt_.worldSize + opt_.rank)];
            source_->load(index, S, SeedHash::of(opt_.seed, static_cast<uint64_t>(b.epoch), static_cast<uint64_t>(index)), out + i * 3 * plane);
        }
        b.deviceSeed = noiseSeed;
        b.augNoiseStd = noiseStd;
        return b;
    }
    b.real = torch::empty({B, 3, S, S}, floatOpts);
    std::vector<uint8_t> rgb(static_cast<size_t>(S) * S * 3);
    float* out = b.real.data_ptr<float>();
    // Rank r takes positions r, r + W, r + 2W, ... of the epoch's order.
    for (int64_t i = 0; i < B; ++i) {
        const int64_t pos = (inEpoch * B + i) * opt_.worldSize + opt_.rank;
        const int64_t index = (*perm)[static_cast<size_t>(pos)];
        const uint64_t augmentSeed = SeedHash::of(opt_.seed, static_cast<uint64_t>(b.epoch), static_cast<uint64_t>(index));
        source_->load(index, S, augmentSeed, rgb.data());
        float* dst = out + i * 3 * plane;
        for (int64_t p = 0; p < plane; ++p) {
            dst[p] = rgb[p * 3] * (2.0f / 255.0f) - 1.0f;
            dst[plane + p] = rgb[p * 3 + 1] * (2.0f / 255.0f) - 1.0f;
            dst[2 * plane + p] = rgb[p * 3 + 2] * (2.0f / 255.0f) - 1.0f;
        }
        if (noiseStd > 0) Augmentation::addNoise(dst, 3 * plane, noiseStd, augmentSeed);
    }
    if (opt_.instanceNoise) {
        b.instanceReal = torch::randn({B, 3, S, S}, gen, floatOpts);
        b.instanceFake = torch::randn({B, 3, S, S}, gen, floatOpts);
    }
    return b;
}

void BatchLoader::start(int64_t first) {
    stop();
    stopping_ = false;
    nextToClaim_ = nextToDeliver_ = first;
    {
        std::lock_guard<std::mutex> lock(announceMutex_);
        announced_ = first;
    }
    done_.clear();
    error_ = nullptr;
    for (int t = 0; t < opt_.threads; ++t) workers_.emplace_back([this] { work(); });
}

void BatchLoader::announce(int64_t step) {
    const int64_t window = source_->prefetchWindow();
    if (window <= 0) return;
    // Whole steps, the one claimed included; in chunks of at least half the window, so that the
    // source is not called for every batch.
    const int64_t ahead = std::max<int64_t>(1, (window + opt_.batch - 1) / opt_.batch);
    int64_t from, to;
    {
        std::lock_guard<std::mutex> lock(announceMutex_);
        if (announced_ > step + ahead / 2) return;
        from = std::max(announced_, step);
        to = step + ahead + 1;
        announced_ = to;
    }
    std::vector<int64_t> indices;
    indices.reserve(static_cast<size_t>((to - from) * opt_.batch));
    for (int64_t s = from; s < to; ++s) {
        const auto perm = permutation(s / stepsPerEpoch_);
        const int64_t inEpoch = s % stepsPerEpoch_;
        for (int64_t i = 0; i < opt_.batch; ++i) indices.push_back((*perm)[static_cast<size_t>((inEpoch * opt_.batch + i) * opt_.worldSize + opt_.rank)]);
    }
    source_->prefetch(indices.data(), indices.size());
}

void BatchLoader::work() {
    for (;;) {
        int64_t step;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            space_.wait(lock, [&] { return stopping_ || nextToClaim_ < nextToDeliver_ + opt_.prefetch; });
            if (stopping_) return;
            step = nextToClaim_++;
        }
        try {
            announce(step);
            Batch b = make(step);
            std::lock_guard<std::mutex> lock(mutex_);
            done_.emplace(step, std::move(b));
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!error_) error_ = std::current_exception();
        }
        ready_.notify_all();
    }
}

Batch BatchLoader::next() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return error_ || done_.count(nextToDeliver_) > 0; });
    if (error_ && done_.count(nextToDeliver_) == 0) std::rethrow_exception(error_);
    auto node = done_.extract(nextToDeliver_);
    ++nextToDeliver_;
    lock.unlock();
    space_.notify_all();
    return std::move(node.mapped());
}

void BatchLoader::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    space_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
}

}  // namespace streetgan
