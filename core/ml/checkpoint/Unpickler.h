// Internal to TorchPickleReader: the pickle machine. Runs the opcodes of protocols 2-5 (see
// TorchPickleReader.h for what is supported) over an arena of PickleNodes, hands BINPERSID
// storage ids to a StorageLoader, rebuilds tensors and the known callables, and converts the
// result to a PickleValue tree. Every failure throws CheckpointError naming the file and the
// byte. The opcode loop, stack, containers and conversion are in Unpickler.cpp; the torch
// objects (storages, tensors) and the other known callables in UnpicklerTorch.cpp.
// Thread contract: one Unpickler per pickle, used by one thread.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ml/checkpoint/PickleNode.h"
#include "ml/checkpoint/PickleValue.h"

namespace streetgan {

class Unpickler {
public:
    /// Loads the storage record `key` (data/<key> beside data.pkl); throws CheckpointError when absent.
    using StorageLoader = std::function<at::Storage(const std::string& key)>;

    /// The advice every unreadable-checkpoint message ends with (TorchPickleReader's too).
    static constexpr const char* kResave = "re-save it with torch.save (PyTorch >= 1.6, default settings)";
    /// `name` in single quotes, as the messages name files.
    static std::string quoted(const std::string& name) { return "'" + name + "'"; }

    Unpickler(const char* data, size_t size, const std::string& file, StorageLoader loader)
        : data_(reinterpret_cast<const unsigned char*>(data)), size_(size), file_(file), loader_(std::move(loader)) {}

    /// Runs the pickle to its STOP and converts the result (limits on depth, cycles and expansion).
    PickleValue parse();

private:
    // --- errors (Unpickler.cpp) ------------------------------------------------------------
    [[noreturn]] void fail(const std::string& what) const;

    // --- input -----------------------------------------------------------------------------
    const unsigned char* take(uint64_t n);
    uint64_t readLE(int bytes);
    std::string readString(uint64_t n);
    std::string readLine();

    // --- objects ---------------------------------------------------------------------------
    PickleNode* make(PickleNode::Type t);
    PickleNode* leaf(PickleValue v);
    /// A global "module.name"; Python 2 module names (which protocol 2 writes for builtins) are
    /// mapped to Python 3's, as Python's unpickler does.
    PickleNode* global(const std::string& module, const std::string& name);
    PickleNode* object(const std::string& qualname);
    PickleNode* sequence(PickleNode::Type t, std::vector<PickleNode*> items);
    static bool isLeaf(const PickleNode* n, PickleValue::Kind k) { return n->type == PickleNode::Type::Leaf && n->leaf.kind() == k; }

    // --- stack -----------------------------------------------------------------------------
    size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
    void push(PickleNode* n) { stack_.push_back(n); }
    PickleNode* pop();
    PickleNode* top();
    std::vector<PickleNode*> popMark();

    // --- containers ------------------------------------------------------------------------
    static bool dictKey(const PickleNode* k, std::string& out);
    void setItem(PickleNode* d, PickleNode* k, PickleNode* v);
    void append(PickleNode* l, PickleNode* v);
    static std::string typeName(const PickleNode* n);

    // --- numbers ---------------------------------------------------------------------------
    /// Two's-complement little-endian integer of n bytes (LONG1/LONG4); Opaque when it does not
    /// fit in int64.
    PickleNode* readLong(uint64_t n);
    int64_t intOf(const PickleNode* n, const char* what);
    std::vector<int64_t> intTuple(const PickleNode* n, const char* what);

    // --- tensors (UnpicklerTorch.cpp) ------------------------------------------------------
    static bool storageType(const std::string& qualname, at::ScalarType& out);
    /// BINPERSID: ('storage', torch.<Type>Storage, key, location, numel). Any location is read
    /// onto the CPU.
    PickleNode* persistentLoad(PickleNode* pid);
    /// torch._utils._rebuild_tensor(_v2)(storage, offset, size, stride, ...): a view over the
    /// storage, bounds-checked.
    PickleNode* rebuildTensor(const std::vector<PickleNode*>& args);

    // --- calls (UnpicklerTorch.cpp) --------------------------------------------------------
    PickleNode* newDict(const std::vector<PickleNode*>& args);
    /// REDUCE / NEWOBJ: what the known callables build; any other becomes an opaque object.
    PickleNode* call(const PickleNode* callable, const std::vector<PickleNode*>& args, int depth = 0);
    /// Protocol 2 pickles bytes as _codecs.encode(str, 'latin1'): UTF-8 code points < 256 -> bytes.
    std::string latin1(const std::string& utf8);
    void build(PickleNode* obj, PickleNode* /*state*/);

    // --- the opcode loop and the conversion (Unpickler.cpp) ---------------------------------
    PickleNode* run();
    PickleValue convert(PickleNode* n, size_t depth);

    const unsigned char* data_;
    size_t size_;
    size_t pos_ = 0;
    size_t opPos_ = 0;
    const std::string& file_;
    StorageLoader loader_;
    std::vector<std::unique_ptr<PickleNode>> arena_;
    std::vector<PickleNode*> stack_;
    std::vector<size_t> marks_;
    std::unordered_map<uint64_t, PickleNode*> memo_;
    uint64_t budget_ = 0;
};

}  // namespace streetgan
