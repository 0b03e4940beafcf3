#include "events/RunFileList.h"

#include <algorithm>
#include <charconv>

namespace streetgan::ui {

bool RunFileList::follows(const std::string& path, int64_t step) const {
    char digits[24];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, step);
    const size_t n = static_cast<size_t>(end - digits);
    // Exactly prefix + the step's own digits + suffix: "step_007.png" or "step_7.png" for step 8 is kept as it came.
    return ec == std::errc() && path.size() == prefix_.size() + n + suffix_.size() && path.compare(0, prefix_.size(), prefix_) == 0 &&
           path.compare(prefix_.size(), n, digits, n) == 0 && path.compare(prefix_.size() + n, suffix_.size(), suffix_) == 0;
}

void RunFileList::push_back(const RunFileRef& ref) {
    if (!follows(ref.path, ref.step)) others_.emplace_back(steps_.size(), ref.path);
    steps_.push_back(ref.step);
}

std::string RunFileList::path(size_t i) const {
    const auto it = std::lower_bound(others_.begin(), others_.end(), i, [](const auto& o, size_t k) { return o.first < k; });
    if (it != others_.end() && it->first == i) return it->second;
    return prefix_ + std::to_string(steps_[i]) + suffix_;
}

size_t RunFileList::memoryBytes() const {
    size_t bytes = steps_.capacity() * sizeof(int64_t) + others_.capacity() * sizeof(others_[0]);
    for (const auto& o : others_) bytes += o.second.capacity();
    return bytes;
}

}  // namespace streetgan::ui
