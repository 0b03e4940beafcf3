// Unpickler, continued: what the pickle's objects become. BINPERSID storage ids are loaded
// through the StorageLoader, torch._utils._rebuild_tensor(_v2) makes bounds-checked views over
// them, and REDUCE / NEWOBJ / BUILD of the other known callables (OrderedDict, Parameter, the
// TorchScript list wrappers, torch.Size, set, latin-1 bytes) are interpreted; any other global
// becomes an opaque object. The opcode loop itself is in Unpickler.cpp.
#include <ATen/ATen.h>
#include <c10/core/ScalarType.h>

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ml/checkpoint/Unpickler.h"

namespace streetgan {

bool Unpickler::storageType(const std::string& qualname, at::ScalarType& out) {
    static const std::unordered_map<std::string, at::ScalarType> kTypes = {
        {"FloatStorage", at::kFloat},
        {"DoubleStorage", at::kDouble},
        {"HalfStorage", at::kHalf},
        {"BFloat16Storage", at::kBFloat16},
        {"LongStorage", at::kLong},
        {"IntStorage", at::kInt},
        {"ShortStorage", at::kShort},
        {"CharStorage", at::kChar},
        {"ByteStorage", at::kByte},
        {"BoolStorage", at::kBool},
        {"ComplexFloatStorage", at::kComplexFloat},
        {"ComplexDoubleStorage", at::kComplexDouble},
        {"UntypedStorage", at::kByte},
    };
    std::string base;
    if (qualname.rfind("torch.cuda.", 0) == 0)
        base = qualname.substr(11);
    else if (qualname.rfind("torch.", 0) == 0)
        base = qualname.substr(6);
    else
        return false;
    auto it = kTypes.find(base);
    if (it == kTypes.end()) return false;
    out = it->second;
    return true;
}

PickleNode* Unpickler::persistentLoad(PickleNode* pid) {
    if (pid->type != PickleNode::Type::Tuple || pid->items.size() < 5 || !isLeaf(pid->items[0], PickleValue::Kind::String) ||
        pid->items[0]->leaf.asString() != "storage")
        fail("unsupported persistent id (" + typeName(pid) + ")");
    const PickleNode* type = pid->items[1];
    at::ScalarType dtype = at::kByte;
    if (type->type != PickleNode::Type::Global || !storageType(type->name, dtype)) fail("unsupported storage type " + typeName(type));
    const PickleNode* key = pid->items[2];
    std::string keyStr;
    if (isLeaf(key, PickleValue::Kind::String))
        keyStr = key->leaf.asString();
    else if (isLeaf(key, PickleValue::Kind::Int))
        keyStr = std::to_string(key->leaf.asInt());
    else
        fail("storage key is a " + typeName(key));
    const int64_t numel = intOf(pid->items[4], "storage size");
    if (numel < 0) fail("negative storage size");
    PickleNode* n = make(PickleNode::Type::Storage);
    n->dtype = dtype;
    n->numel = numel;
    n->storage = loader_(keyStr);
    const uint64_t elem = c10::elementSize(dtype);
    if (static_cast<uint64_t>(numel) > n->storage.nbytes() / elem)
        fail("storage data/" + keyStr + " holds " + std::to_string(n->storage.nbytes()) + " bytes, fewer than its " + std::to_string(numel) +
             " declared elements");
    return n;
}

PickleNode* Unpickler::rebuildTensor(const std::vector<PickleNode*>& args) {
    if (args.size() < 4) fail("tensor rebuild with " + std::to_string(args.size()) + " arguments");
    const PickleNode* st = args[0];
    if (st->type != PickleNode::Type::Storage) fail("tensor storage is a " + typeName(st));
    const int64_t offset = intOf(args[1], "tensor offset");
    const std::vector<int64_t> sizes = intTuple(args[2], "tensor size");
    const std::vector<int64_t> strides = intTuple(args[3], "tensor stride");
    if (sizes.size() != strides.size()) fail("tensor size and stride differ in length");
    if (sizes.size() > 64) fail("tensor has more than 64 dimensions");
    if (offset < 0) fail("negative tensor offset");
    int64_t numel = 1;
    int64_t last = offset;  // highest element index touched
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] < 0 || strides[i] < 0) fail("negative tensor size or stride");
        if (__builtin_mul_overflow(numel, sizes[i], &numel)) fail("tensor size overflows");
    }
    if (numel > 0) {
        for (size_t i = 0; i < sizes.size(); ++i) {
            int64_t span = 0;
            if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &span) || __builtin_add_overflow(last, span, &last)) fail("tensor extent overflows");
        }
        if (last >= st->numel) fail("tensor reaches element " + std::to_string(last) + " of a storage with " + std::to_string(st->numel) + " elements");
    }
    at::Tensor t = at::empty({0}, at::TensorOptions().dtype(st->dtype).device(at::kCPU));
    t.set_(st->storage, offset, sizes, strides);
    return leaf(PickleValue::tensor(std::move(t)));
}

PickleNode* Unpickler::newDict(const std::vector<PickleNode*>& args) {
    PickleNode* d = make(PickleNode::Type::Dict);
    // OrderedDict([(k, v), ...]) as an argument (Python itself pickles the items separately).
    if (!args.empty() && args[0]->type == PickleNode::Type::List)
        for (PickleNode* kv : args[0]->items)
            if (kv->type == PickleNode::Type::Tuple && kv->items.size() == 2) setItem(d, kv->items[0], kv->items[1]);
    return d;
}

PickleNode* Unpickler::call(const PickleNode* callable, const std::vector<PickleNode*>& args, int depth) {
    if (callable->type != PickleNode::Type::Global) fail("call of a " + typeName(callable) + ", not a global");
    const std::string& f = callable->name;
    if (f == "collections.OrderedDict" || f == "builtins.dict" || f == "collections.defaultdict")
        return f == "collections.defaultdict" ? make(PickleNode::Type::Dict) : newDict(args);
    if (f == "torch._utils._rebuild_tensor_v2" || f == "torch._utils._rebuild_tensor") return rebuildTensor(args);
    if (f == "torch._utils._rebuild_parameter" || f == "torch._utils._rebuild_parameter_with_state") {
        if (args.empty() || !isLeaf(args[0], PickleValue::Kind::Tensor)) fail("Parameter without a tensor");
        return args[0];
    }
    if ((f == "torch._tensor._rebuild_from_type_v2" || f == "torch._utils._rebuild_from_type_v2") && depth == 0) {  // (func, type, args, state)
        if (args.size() < 3 || args[2]->type != PickleNode::Type::Tuple) fail("malformed _rebuild_from_type_v2");
        return call(args[0], args[2]->items, depth + 1);
    }
    if (f == "torch.jit._pickle.restore_type_tag" || f == "torch.jit._pickle.build_intlist" || f == "torch.jit._pickle.build_floatlist" ||
        f == "torch.jit._pickle.build_doublelist" || f == "torch.jit._pickle.build_boollist" || f == "torch.jit._pickle.build_tensorlist" ||
        f == "torch.jit._pickle.build_complexlist") {
        if (args.empty()) fail(f + " without an argument");
        return args[0];
    }
    if (f == "torch.Size") {
        if (args.empty() || (args[0]->type != PickleNode::Type::Tuple && args[0]->type != PickleNode::Type::List)) return sequence(PickleNode::Type::Tuple, {});
        return sequence(PickleNode::Type::Tuple, args[0]->items);
    }
    if (f == "builtins.set" || f == "builtins.frozenset") {
        if (args.empty() || (args[0]->type != PickleNode::Type::List && args[0]->type != PickleNode::Type::Tuple)) return make(PickleNode::Type::List);
        return sequence(PickleNode::Type::List, args[0]->items);
    }
    if ((f == "_codecs.encode" || f == "builtins.bytearray") && args.size() == 2 && isLeaf(args[0], PickleValue::Kind::String) &&
        isLeaf(args[1], PickleValue::Kind::String)) {
        const std::string& enc = args[1]->leaf.asString();
        if (enc == "latin1" || enc == "latin-1") return leaf(PickleValue::bytes(latin1(args[0]->leaf.asString())));
    }
    if ((f == "builtins.bytes" || f == "builtins.bytearray") && args.empty())  // b"" in protocol 2
        return leaf(PickleValue::bytes(""));
    return object(f);
}

std::string Unpickler::latin1(const std::string& utf8) {
    std::string out;
    out.reserve(utf8.size());
    for (size_t i = 0; i < utf8.size(); ++i) {
        const auto c = static_cast<unsigned char>(utf8[i]);
        if (c < 0x80) {
            out.push_back(static_cast<char>(c));
        } else if ((c & 0xe0) == 0xc0 && c <= 0xc3 && i + 1 < utf8.size()) {
            out.push_back(static_cast<char>(((c & 0x03) << 6) | (static_cast<unsigned char>(utf8[i + 1]) & 0x3f)));
            ++i;
        } else {
            fail("bytes value that is not latin-1");
        }
    }
    return out;
}

void Unpickler::build(PickleNode* obj, PickleNode* /*state*/) {
    // OrderedDict's __dict__ (a state dict's _metadata), a tensor's or object's state: dropped.
    if (obj->type == PickleNode::Type::Dict || obj->type == PickleNode::Type::Object || obj->type == PickleNode::Type::Leaf) return;
    fail("BUILD on a " + typeName(obj));
}

}  // namespace streetgan
