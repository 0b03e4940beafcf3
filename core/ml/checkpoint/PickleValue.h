// A Python value read from a pickle (see TorchPickleReader): None, bool, int, float, str, bytes,
// list, tuple, dict, tensor, or an opaque object of a class the reader does not interpret.
//
// Value semantics: a PickleValue owns its children; copying one copies the tree (tensors are
// handles, so tensor data is shared, never copied). There is no mutable access after
// construction, so any number of threads may read the same PickleValue concurrently; building
// one is single-threaded. Tensors read from a checkpoint are CPU tensors that own their storage
// and may be non-contiguous views sharing it with other tensors of the same file, exactly as
// torch.load returns them.
//
// Accessors named as*/items/entries throw CheckpointError when the value has another kind, so a
// caller walking a checkpoint gets a one-line message instead of a crash.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace streetgan {

class PickleValue {
public:
    enum class Kind { None, Bool, Int, Float, String, Bytes, List, Tuple, Dict, Tensor, Opaque };
    using Items = std::vector<PickleValue>;
    /// Dict entries in insertion order; keys are usually strings or ints (any kind is kept).
    using Entry = std::pair<PickleValue, PickleValue>;
    using Entries = std::vector<Entry>;

    /// None.
    PickleValue();
    static PickleValue none();
    static PickleValue boolean(bool v);
    static PickleValue integer(int64_t v);
    static PickleValue real(double v);
    /// Python str, UTF-8 encoded (as stored in the pickle; not validated).
    static PickleValue string(std::string v);
    /// Python bytes (raw).
    static PickleValue bytes(std::string v);
    static PickleValue list(Items v);
    static PickleValue tuple(Items v);
    static PickleValue dict(Entries v);
    static PickleValue tensor(at::Tensor v);
    /// An object of a global the reader does not interpret, named "module.qualname".
    static PickleValue opaque(std::string qualifiedName);

    Kind kind() const { return kind_; }
    /// "None", "bool", "int", "float", "str", "bytes", "list", "tuple", "dict", "tensor", "object".
    static const char* kindName(Kind k);
    /// A short description for messages, e.g. "dict (8 entries)", "tensor Float [64, 3, 4, 4]".
    std::string describe() const;

    bool isNone() const { return kind_ == Kind::None; }
    bool isBool() const { return kind_ == Kind::Bool; }
    bool isInt() const { return kind_ == Kind::Int; }
    bool isFloat() const { return kind_ == Kind::Float; }
    bool isString() const { return kind_ == Kind::String; }
    bool isBytes() const { return kind_ == Kind::Bytes; }
    bool isList() const { return kind_ == Kind::List; }
    bool isTuple() const { return kind_ == Kind::Tuple; }
    bool isDict() const { return kind_ == Kind::Dict; }
    bool isTensor() const { return kind_ == Kind::Tensor; }
    bool isOpaque() const { return kind_ == Kind::Opaque; }

    bool asBool() const;
    int64_t asInt() const;
    /// Float, or Int converted to double (Python code mixes them freely).
    double asDouble() const;
    const std::string& asString() const;
    const std::string& asBytes() const;
    const at::Tensor& asTensor() const;
    /// "module.qualname" of an Opaque value.
    const std::string& opaqueName() const;
    /// Elements of a List or Tuple.
    const Items& items() const;
    /// Entries of a Dict, in insertion order.
    const Entries& entries() const;

    /// Value of a Dict entry whose key is the string `key`, or nullptr when absent.
    /// Throws CheckpointError when this value is not a Dict.
    const PickleValue* find(const std::string& key) const;
    /// Value of a Dict entry whose key is the int `key` (optimizer state), or nullptr.
    const PickleValue* findInt(int64_t key) const;
    /// Like find(), but throws CheckpointError naming the key when it is absent.
    const PickleValue& at(const std::string& key) const;

private:
    [[noreturn]] void kindMismatch(const char* expected) const;

    Kind kind_ = Kind::None;
    // bool, int64_t, double, std::string (String/Bytes/Opaque), Items, Entries, at::Tensor
    std::variant<std::monostate, bool, int64_t, double, std::string, Items, Entries, at::Tensor> data_;
};

}  // namespace streetgan
