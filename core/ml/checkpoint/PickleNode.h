// Internal to TorchPickleReader: one object of the unpickler's arena. Objects refer to each other
// by raw pointers, as Python objects do (the memo may hand out a container that is still being
// filled); Unpickler converts the graph to a PickleValue tree at the end.
// Thread contract: owned and used by one Unpickler, on one thread.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ml/checkpoint/PickleValue.h"

namespace streetgan {

struct PickleNode {
    enum class Type : uint8_t { Leaf, List, Tuple, Dict, Global, Object, Storage };
    explicit PickleNode(Type t) : type(t) {}
    Type type;
    bool visiting = false;                                           // cycle detection during conversion
    at::ScalarType dtype = at::kByte;                                // Storage
    int64_t numel = 0;                                               // Storage: elements of dtype
    PickleValue leaf;                                                // Leaf: None, bool, int, float, str, bytes, tensor
    std::vector<PickleNode*> items;                                  // List, Tuple
    std::vector<std::pair<PickleNode*, PickleNode*>> entries;        // Dict
    std::unique_ptr<std::unordered_map<std::string, size_t>> index;  // Dict: hashable key -> entry
    std::string name;                                                // Global, Object: "module.qualname"
    at::Storage storage;                                             // Storage
};

}  // namespace streetgan
