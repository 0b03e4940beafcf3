// A tensor's shape for error messages: "(64, 3, 32, 32)".
#pragma once

#include <string>

#include <ATen/core/Tensor.h>

namespace streetgan {

inline std::string shapeText(const at::Tensor& t) {
    std::string s = "(";
    for (int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
    return s + ")";
}

}  // namespace streetgan
