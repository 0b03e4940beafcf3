#include "ml/checkpoint/TorchPickleReader.h"

#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>
#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <unordered_map>

#include "base/util/Errors.h"

namespace streetgan {
namespace {

constexpr const char* kResave = "re-save it with torch.save (PyTorch >= 1.6, default settings)";
constexpr size_t kMaxDepth = 512;  // nesting of containers in the value tree

std::string quoted(const std::string& name) { return "'" + name + "'"; }

/// First line of an exception message, without LibTorch's backtrace, at most 200 characters.
std::string shortMessage(const std::string& what) {
    std::string s = what.substr(0, what.find('\n'));
    if (s.size() > 200) s = s.substr(0, 200) + "...";
    return s;
}

/// Serves reads from a caller-owned buffer, never past its end (miniz asks for what the zip's
/// directories claim, which a corrupt file may place anywhere).
class BoundedMemoryAdapter final : public caffe2::serialize::ReadAdapterInterface {
public:
    BoundedMemoryAdapter(const char* data, size_t size) : data_(data), size_(size) {}
    size_t size() const override { return size_; }
    size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
        if (pos >= size_) return 0;
        n = std::min<uint64_t>(n, size_ - pos);
        std::memcpy(buf, data_ + pos, n);
        return n;
    }

private:
    const char* data_;
    size_t size_;
};

/// Rejects what is certainly not a torch.save zip archive, from the first bytes of the file.
void checkHeader(const unsigned char* head, size_t headLen, uint64_t fileSize, const std::string& name) {
    if (fileSize == 0)
        throw CheckpointError("checkpoint " + quoted(name) + " is empty (0 bytes; an interrupted save?): " + kResave);
    static const unsigned char kLegacyMagic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c,
                                                 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
    if (headLen >= sizeof(kLegacyMagic) && std::memcmp(head, kLegacyMagic, sizeof(kLegacyMagic)) == 0)
        throw CheckpointError("checkpoint " + quoted(name) +
                              " uses the legacy (pre-1.6, non-zip) torch.save format, which is not supported: load "
                              "it in Python and re-save it with torch.save from PyTorch >= 1.6 (default "
                              "_use_new_zipfile_serialization=True)");
    if (headLen >= 1 && head[0] == 0x80)
        throw CheckpointError("checkpoint " + quoted(name) +
                              " is a bare pickle, not a PyTorch zip archive (pickle.dump or legacy torch.save?): " +
                              kResave);
    if (headLen < 4 || head[0] != 'P' || head[1] != 'K' || head[2] != 3 || head[3] != 4)
        throw CheckpointError("checkpoint " + quoted(name) + " is not a PyTorch zip archive (truncated or corrupt?): " +
                              kResave);
}

// ---------------------------------------------------------------------------------------------
// The unpickler. Objects live in an arena and refer to each other by raw pointers, as Python
// objects do (the memo may hand out a container that is still being filled); the result is
// converted to a value tree at the end, with limits on depth, cycles and expansion.

struct Node {
    enum class Type : uint8_t { Leaf, List, Tuple, Dict, Global, Object, Storage };
    explicit Node(Type t) : type(t) {}
    Type type;
    bool visiting = false;                          // cycle detection during conversion
    at::ScalarType dtype = at::kByte;               // Storage
    int64_t numel = 0;                              // Storage: elements of dtype
    PickleValue leaf;                               // Leaf: None, bool, int, float, str, bytes, tensor
    std::vector<Node*> items;                       // List, Tuple
    std::vector<std::pair<Node*, Node*>> entries;   // Dict
    std::unique_ptr<std::unordered_map<std::string, size_t>> index;  // Dict: hashable key -> entry
    std::string name;                               // Global, Object: "module.qualname"
    at::Storage storage;                            // Storage
};

using StorageLoader = std::function<at::Storage(const std::string& key)>;

class Unpickler {
public:
    Unpickler(const char* data, size_t size, const std::string& file, StorageLoader loader)
        : data_(reinterpret_cast<const unsigned char*>(data)), size_(size), file_(file), loader_(std::move(loader)) {}

    PickleValue parse() {
        Node* root = run();
        budget_ = 4 * static_cast<uint64_t>(size_) + 65536;
        pos_ = opPos_ = size_;
        return convert(root, 0);
    }

private:
    // --- errors --------------------------------------------------------------------------
    [[noreturn]] void fail(const std::string& what) const {
        throw CheckpointError("checkpoint " + quoted(file_) + " has a corrupt or unsupported data.pkl (" + what +
                              ", at byte " + std::to_string(opPos_) + " of " + std::to_string(size_) + "): " +
                              kResave);
    }

    // --- input -----------------------------------------------------------------------------
    const unsigned char* take(uint64_t n) {
        if (n > size_ - pos_) fail("truncated: " + std::to_string(n) + " more bytes needed");
        const unsigned char* p = data_ + pos_;
        pos_ += static_cast<size_t>(n);
        return p;
    }
    uint64_t readLE(int bytes) {
        const unsigned char* p = take(static_cast<uint64_t>(bytes));
        uint64_t v = 0;
        for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
        return v;
    }
    std::string readString(uint64_t n) {
        const unsigned char* p = take(n);
        return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    }
    std::string readLine() {
        const void* nl = std::memchr(data_ + pos_, '\n', size_ - pos_);
        if (!nl) fail("truncated GLOBAL name");
        size_t len = static_cast<size_t>(static_cast<const unsigned char*>(nl) - (data_ + pos_));
        std::string s = readString(len);
        pos_ += 1;
        return s;
    }

    // --- objects ---------------------------------------------------------------------------
    Node* make(Node::Type t) {
        arena_.push_back(std::make_unique<Node>(t));
        return arena_.back().get();
    }
    Node* leaf(PickleValue v) {
        Node* n = make(Node::Type::Leaf);
        n->leaf = std::move(v);
        return n;
    }
    /// A global "module.name"; Python 2 module names (which protocol 2 writes for builtins) are
    /// mapped to Python 3's, as Python's unpickler does.
    Node* global(const std::string& module, const std::string& name) {
        Node* n = make(Node::Type::Global);
        if (module == "__builtin__")
            n->name = "builtins." + name;
        else if (module == "copy_reg")
            n->name = "copyreg." + name;
        else
            n->name = module + "." + name;
        return n;
    }
    Node* object(const std::string& qualname) {
        Node* n = make(Node::Type::Object);
        n->name = qualname;
        return n;
    }
    Node* sequence(Node::Type t, std::vector<Node*> items) {
        Node* n = make(t);
        n->items = std::move(items);
        return n;
    }
    static bool isLeaf(const Node* n, PickleValue::Kind k) { return n->type == Node::Type::Leaf && n->leaf.kind() == k; }

    // --- stack -----------------------------------------------------------------------------
    size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
    void push(Node* n) { stack_.push_back(n); }
    Node* pop() {
        if (stack_.size() <= floor()) fail("stack underflow");
        Node* n = stack_.back();
        stack_.pop_back();
        return n;
    }
    Node* top() {
        if (stack_.size() <= floor()) fail("stack underflow");
        return stack_.back();
    }
    std::vector<Node*> popMark() {
        if (marks_.empty()) fail("MARK expected but missing");
        size_t m = marks_.back();
        marks_.pop_back();
        std::vector<Node*> items(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
        stack_.resize(m);
        return items;
    }

    // --- containers ------------------------------------------------------------------------
    static bool dictKey(const Node* k, std::string& out) {
        if (k->type != Node::Type::Leaf) return false;
        switch (k->leaf.kind()) {
        case PickleValue::Kind::String: out = "s" + k->leaf.asString(); return true;
        case PickleValue::Kind::Bytes: out = "b" + k->leaf.asBytes(); return true;
        case PickleValue::Kind::Int: out = "i" + std::to_string(k->leaf.asInt()); return true;
        case PickleValue::Kind::Bool: out = k->leaf.asBool() ? "i1" : "i0"; return true;
        case PickleValue::Kind::None: out = "n"; return true;
        default: return false;
        }
    }
    void setItem(Node* d, Node* k, Node* v) {
        if (d->type == Node::Type::Object) return;  // e.g. dictitems of an unknown class: dropped
        if (d->type != Node::Type::Dict) fail("SETITEM on a " + typeName(d));
        std::string key;
        if (dictKey(k, key)) {
            if (!d->index) d->index = std::make_unique<std::unordered_map<std::string, size_t>>();
            auto [it, inserted] = d->index->emplace(std::move(key), d->entries.size());
            if (!inserted) {
                d->entries[it->second].second = v;  // Python: a repeated key replaces the value in place
                return;
            }
        }
        d->entries.emplace_back(k, v);
    }
    void append(Node* l, Node* v) {
        if (l->type == Node::Type::Object) return;  // listitems of an unknown class: dropped
        if (l->type != Node::Type::List) fail("APPEND on a " + typeName(l));
        l->items.push_back(v);
    }
    static std::string typeName(const Node* n) {
        switch (n->type) {
        case Node::Type::Leaf: return PickleValue::kindName(n->leaf.kind());
        case Node::Type::List: return "list";
        case Node::Type::Tuple: return "tuple";
        case Node::Type::Dict: return "dict";
        case Node::Type::Global: return "global " + n->name;
        case Node::Type::Object: return "object of " + n->name;
        case Node::Type::Storage: return "storage";
        }
        return "?";
    }

    // --- numbers ---------------------------------------------------------------------------
    /// Two's-complement little-endian integer of n bytes (LONG1/LONG4); Opaque when it does not
    /// fit in int64.
    Node* readLong(uint64_t n) {
        const unsigned char* p = take(n);
        if (n == 0) return leaf(PickleValue::integer(0));
        const bool negative = (p[n - 1] & 0x80) != 0;
        const unsigned char ext = negative ? 0xff : 0x00;
        for (uint64_t i = 8; i < n; ++i)
            if (p[i] != ext) return leaf(PickleValue::opaque("builtins.int (out of int64 range)"));
        uint64_t v = negative ? ~uint64_t(0) : 0;
        const uint64_t used = std::min<uint64_t>(n, 8);
        for (uint64_t i = 0; i < used; ++i) {
            v &= ~(uint64_t(0xff) << (8 * i));
            v |= uint64_t(p[i]) << (8 * i);
        }
        if (n > 8 && (((v >> 63) & 1) != (negative ? 1u : 0u)))
            return leaf(PickleValue::opaque("builtins.int (out of int64 range)"));
        int64_t s;
        std::memcpy(&s, &v, sizeof s);
        return leaf(PickleValue::integer(s));
    }
    int64_t intOf(const Node* n, const char* what) {
        if (!isLeaf(n, PickleValue::Kind::Int)) fail(std::string(what) + " is a " + typeName(n) + ", not an int");
        return n->leaf.asInt();
    }
    std::vector<int64_t> intTuple(const Node* n, const char* what) {
        if (n->type != Node::Type::Tuple && n->type != Node::Type::List)
            fail(std::string(what) + " is a " + typeName(n) + ", not a tuple");
        std::vector<int64_t> out;
        out.reserve(n->items.size());
        for (const Node* i : n->items) out.push_back(intOf(i, what));
        return out;
    }

    // --- tensors ---------------------------------------------------------------------------
    static bool storageType(const std::string& qualname, at::ScalarType& out) {
        static const std::unordered_map<std::string, at::ScalarType> kTypes = {
            {"FloatStorage", at::kFloat},          {"DoubleStorage", at::kDouble},
            {"HalfStorage", at::kHalf},            {"BFloat16Storage", at::kBFloat16},
            {"LongStorage", at::kLong},            {"IntStorage", at::kInt},
            {"ShortStorage", at::kShort},          {"CharStorage", at::kChar},
            {"ByteStorage", at::kByte},            {"BoolStorage", at::kBool},
            {"ComplexFloatStorage", at::kComplexFloat}, {"ComplexDoubleStorage", at::kComplexDouble},
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

    /// BINPERSID: ('storage', torch.<Type>Storage, key, location, numel). Any location is read
    /// onto the CPU.
    Node* persistentLoad(Node* pid) {
        if (pid->type != Node::Type::Tuple || pid->items.size() < 5 || !isLeaf(pid->items[0], PickleValue::Kind::String) ||
            pid->items[0]->leaf.asString() != "storage")
            fail("unsupported persistent id (" + typeName(pid) + ")");
        const Node* type = pid->items[1];
        at::ScalarType dtype = at::kByte;
        if (type->type != Node::Type::Global || !storageType(type->name, dtype))
            fail("unsupported storage type " + typeName(type));
        const Node* key = pid->items[2];
        std::string keyStr;
        if (isLeaf(key, PickleValue::Kind::String))
            keyStr = key->leaf.asString();
        else if (isLeaf(key, PickleValue::Kind::Int))
            keyStr = std::to_string(key->leaf.asInt());
        else
            fail("storage key is a " + typeName(key));
        const int64_t numel = intOf(pid->items[4], "storage size");
        if (numel < 0) fail("negative storage size");
        Node* n = make(Node::Type::Storage);
        n->dtype = dtype;
        n->numel = numel;
        n->storage = loader_(keyStr);
        const uint64_t elem = c10::elementSize(dtype);
        if (static_cast<uint64_t>(numel) > n->storage.nbytes() / elem)
            fail("storage data/" + keyStr + " holds " + std::to_string(n->storage.nbytes()) + " bytes, fewer than its " +
                 std::to_string(numel) + " declared elements");
        return n;
    }

    /// torch._utils._rebuild_tensor(_v2)(storage, offset, size, stride, ...): a view over the
    /// storage, bounds-checked.
    Node* rebuildTensor(const std::vector<Node*>& args) {
        if (args.size() < 4) fail("tensor rebuild with " + std::to_string(args.size()) + " arguments");
        const Node* st = args[0];
        if (st->type != Node::Type::Storage) fail("tensor storage is a " + typeName(st));
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
                if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &span) || __builtin_add_overflow(last, span, &last))
                    fail("tensor extent overflows");
            }
            if (last >= st->numel)
                fail("tensor reaches element " + std::to_string(last) + " of a storage with " +
                     std::to_string(st->numel) + " elements");
        }
        at::Tensor t = at::empty({0}, at::TensorOptions().dtype(st->dtype).device(at::kCPU));
        t.set_(st->storage, offset, sizes, strides);
        return leaf(PickleValue::tensor(std::move(t)));
    }

    // --- calls -----------------------------------------------------------------------------
    Node* newDict(const std::vector<Node*>& args) {
        Node* d = make(Node::Type::Dict);
        // OrderedDict([(k, v), ...]) as an argument (Python itself pickles the items separately).
        if (!args.empty() && args[0]->type == Node::Type::List)
            for (Node* kv : args[0]->items)
                if (kv->type == Node::Type::Tuple && kv->items.size() == 2) setItem(d, kv->items[0], kv->items[1]);
        return d;
    }

    /// REDUCE / NEWOBJ: what the known callables build; any other becomes an opaque object.
    Node* call(const Node* callable, const std::vector<Node*>& args, int depth = 0) {
        if (callable->type != Node::Type::Global) fail("call of a " + typeName(callable) + ", not a global");
        const std::string& f = callable->name;
        if (f == "collections.OrderedDict" || f == "builtins.dict" || f == "collections.defaultdict")
            return f == "collections.defaultdict" ? make(Node::Type::Dict) : newDict(args);
        if (f == "torch._utils._rebuild_tensor_v2" || f == "torch._utils._rebuild_tensor") return rebuildTensor(args);
        if (f == "torch._utils._rebuild_parameter" || f == "torch._utils._rebuild_parameter_with_state") {
            if (args.empty() || !isLeaf(args[0], PickleValue::Kind::Tensor)) fail("Parameter without a tensor");
            return args[0];
        }
        if (f == "torch._utils._rebuild_from_type_v2" && depth == 0) {  // (func, type, args, state)
            if (args.size() < 3 || args[2]->type != Node::Type::Tuple) fail("malformed _rebuild_from_type_v2");
            return call(args[0], args[2]->items, depth + 1);
        }
        if (f == "torch.jit._pickle.restore_type_tag" || f == "torch.jit._pickle.build_intlist" ||
            f == "torch.jit._pickle.build_floatlist" || f == "torch.jit._pickle.build_doublelist" ||
            f == "torch.jit._pickle.build_boollist" || f == "torch.jit._pickle.build_tensorlist" ||
            f == "torch.jit._pickle.build_complexlist") {
            if (args.empty()) fail(f + " without an argument");
            return args[0];
        }
        if (f == "torch.Size") {
            if (args.empty() || (args[0]->type != Node::Type::Tuple && args[0]->type != Node::Type::List))
                return sequence(Node::Type::Tuple, {});
            return sequence(Node::Type::Tuple, args[0]->items);
        }
        if (f == "builtins.set" || f == "builtins.frozenset") {
            if (args.empty() || (args[0]->type != Node::Type::List && args[0]->type != Node::Type::Tuple))
                return make(Node::Type::List);
            return sequence(Node::Type::List, args[0]->items);
        }
        if ((f == "_codecs.encode" || f == "builtins.bytearray") && args.size() == 2 &&
            isLeaf(args[0], PickleValue::Kind::String) && isLeaf(args[1], PickleValue::Kind::String)) {
            const std::string& enc = args[1]->leaf.asString();
            if (enc == "latin1" || enc == "latin-1") return leaf(PickleValue::bytes(latin1(args[0]->leaf.asString())));
        }
        if ((f == "builtins.bytes" || f == "builtins.bytearray") && args.empty())  // b"" in protocol 2
            return leaf(PickleValue::bytes(""));
        return object(f);
    }

    /// Protocol 2 pickles bytes as _codecs.encode(str, 'latin1'): UTF-8 code points < 256 -> bytes.
    std::string latin1(const std::string& utf8) {
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

    void build(Node* obj, Node* /*state*/) {
        // OrderedDict's __dict__ (a state dict's _metadata), a tensor's or object's state: dropped.
        if (obj->type == Node::Type::Dict || obj->type == Node::Type::Object || obj->type == Node::Type::Leaf) return;
        fail("BUILD on a " + typeName(obj));
    }

    // --- the opcode loop ---------------------------------------------------------------------
    Node* run() {
        Node* const noneNode = leaf(PickleValue::none());
        Node* const trueNode = leaf(PickleValue::boolean(true));
        Node* const falseNode = leaf(PickleValue::boolean(false));
        while (true) {
            opPos_ = pos_;
            if (pos_ >= size_) fail("ends without STOP (truncated?)");
            const unsigned char op = data_[pos_++];
            switch (op) {
            case 0x80: {  // PROTO
                const uint64_t proto = readLE(1);
                if (proto > 5) fail("unsupported pickle protocol " + std::to_string(proto));
                break;
            }
            case 0x95: readLE(8); break;  // FRAME: framing hint only
            case '.': return pop();       // STOP
            case '(': marks_.push_back(stack_.size()); break;  // MARK
            case '0': {                                         // POP
                if (!marks_.empty() && stack_.size() == marks_.back())
                    marks_.pop_back();
                else
                    pop();
                break;
            }
            case '1': popMark(); break;  // POP_MARK
            case '2': push(top()); break;  // DUP
            case '}': push(make(Node::Type::Dict)); break;   // EMPTY_DICT
            case ']': push(make(Node::Type::List)); break;   // EMPTY_LIST
            case ')': push(make(Node::Type::Tuple)); break;  // EMPTY_TUPLE
            case 0x8f: push(make(Node::Type::List)); break;  // EMPTY_SET
            case 't': push(sequence(Node::Type::Tuple, popMark())); break;  // TUPLE
            case 'l': push(sequence(Node::Type::List, popMark())); break;   // LIST
            case 0x91: push(sequence(Node::Type::List, popMark())); break;  // FROZENSET
            case 0x85:                                                      // TUPLE1
            case 0x86:                                                      // TUPLE2
            case 0x87: {                                                    // TUPLE3
                const size_t n = op - 0x84u;
                std::vector<Node*> items(n);
                for (size_t i = n; i > 0; --i) items[i - 1] = pop();
                push(sequence(Node::Type::Tuple, std::move(items)));
                break;
            }
            case 'd': {  // DICT
                std::vector<Node*> kv = popMark();
                if (kv.size() % 2) fail("DICT with an odd number of items");
                Node* d = make(Node::Type::Dict);
                for (size_t i = 0; i < kv.size(); i += 2) setItem(d, kv[i], kv[i + 1]);
                push(d);
                break;
            }
            case 's': {  // SETITEM
                Node* v = pop();
                Node* k = pop();
                setItem(top(), k, v);
                break;
            }
            case 'u': {  // SETITEMS
                std::vector<Node*> kv = popMark();
                if (kv.size() % 2) fail("SETITEMS with an odd number of items");
                Node* d = top();
                for (size_t i = 0; i < kv.size(); i += 2) setItem(d, kv[i], kv[i + 1]);
                break;
            }
            case 'a': {  // APPEND
                Node* v = pop();
                append(top(), v);
                break;
            }
            case 'e':      // APPENDS
            case 0x90: {   // ADDITEMS
                std::vector<Node*> items = popMark();
                Node* l = top();
                for (Node* v : items) append(l, v);
                break;
            }
            case 'q': memo_[readLE(1)] = top(); break;            // BINPUT
            case 'r': memo_[readLE(4)] = top(); break;            // LONG_BINPUT
            case 0x94: memo_[memo_.size()] = top(); break;        // MEMOIZE
            case 'h':                                             // BINGET
            case 'j': {                                           // LONG_BINGET
                auto it = memo_.find(readLE(op == 'h' ? 1 : 4));
                if (it == memo_.end()) fail("memo entry missing");
                push(it->second);
                break;
            }
            case 'J': {  // BININT
                const auto u = static_cast<uint32_t>(readLE(4));
                int32_t v;
                std::memcpy(&v, &u, sizeof v);
                push(leaf(PickleValue::integer(v)));
                break;
            }
            case 'K': push(leaf(PickleValue::integer(static_cast<int64_t>(readLE(1))))); break;  // BININT1
            case 'M': push(leaf(PickleValue::integer(static_cast<int64_t>(readLE(2))))); break;  // BININT2
            case 0x8a: push(readLong(readLE(1))); break;                                         // LONG1
            case 0x8b: {                                                                         // LONG4
                const auto n = static_cast<uint32_t>(readLE(4));
                if (n & 0x80000000u) fail("negative LONG4 length");
                push(readLong(n));
                break;
            }
            case 'G': {  // BINFLOAT: big-endian IEEE double
                const unsigned char* p = take(8);
                uint64_t bits = 0;
                for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];
                double d;
                std::memcpy(&d, &bits, sizeof d);
                push(leaf(PickleValue::real(d)));
                break;
            }
            case 'N': push(noneNode); break;    // NONE
            case 0x88: push(trueNode); break;   // NEWTRUE
            case 0x89: push(falseNode); break;  // NEWFALSE
            case 'X': push(leaf(PickleValue::string(readString(readLE(4))))); break;   // BINUNICODE
            case 0x8c: push(leaf(PickleValue::string(readString(readLE(1))))); break;  // SHORT_BINUNICODE
            case 0x8d: push(leaf(PickleValue::string(readString(readLE(8))))); break;  // BINUNICODE8
            case 'T': {  // BINSTRING (Python 2 str, read as str)
                const auto n = static_cast<uint32_t>(readLE(4));
                if (n & 0x80000000u) fail("negative BINSTRING length");
                push(leaf(PickleValue::string(readString(n))));
                break;
            }
            case 'U': push(leaf(PickleValue::string(readString(readLE(1))))); break;  // SHORT_BINSTRING
            case 'B': push(leaf(PickleValue::bytes(readString(readLE(4))))); break;   // BINBYTES
            case 'C': push(leaf(PickleValue::bytes(readString(readLE(1))))); break;   // SHORT_BINBYTES
            case 0x8e: push(leaf(PickleValue::bytes(readString(readLE(8))))); break;  // BINBYTES8
            case 'c': {  // GLOBAL
                std::string module = readLine();
                std::string name = readLine();
                push(global(module, name));
                break;
            }
            case 0x93: {  // STACK_GLOBAL
                Node* name = pop();
                Node* module = pop();
                if (!isLeaf(name, PickleValue::Kind::String) || !isLeaf(module, PickleValue::Kind::String))
                    fail("STACK_GLOBAL without strings");
                push(global(module->leaf.asString(), name->leaf.asString()));
                break;
            }
            case 'R': {  // REDUCE
                Node* args = pop();
                Node* callable = pop();
                if (args->type != Node::Type::Tuple) fail("REDUCE arguments are a " + typeName(args));
                push(call(callable, args->items));
                break;
            }
            case 0x81: {  // NEWOBJ: cls.__new__(cls, *args)
                Node* args = pop();
                Node* cls = pop();
                if (args->type != Node::Type::Tuple) fail("NEWOBJ arguments are a " + typeName(args));
                if (cls->type != Node::Type::Global) fail("NEWOBJ of a " + typeName(cls));
                push(cls->name == "collections.OrderedDict" ? make(Node::Type::Dict) : object(cls->name));
                break;
            }
            case 0x92: {  // NEWOBJ_EX
                pop();  // kwargs
                Node* args = pop();
                Node* cls = pop();
                if (args->type != Node::Type::Tuple) fail("NEWOBJ_EX arguments are a " + typeName(args));
                if (cls->type != Node::Type::Global) fail("NEWOBJ_EX of a " + typeName(cls));
                push(cls->name == "collections.OrderedDict" ? make(Node::Type::Dict) : object(cls->name));
                break;
            }
            case 'b': {  // BUILD
                Node* state = pop();
                build(top(), state);
                break;
            }
            case 'Q': push(persistentLoad(pop())); break;  // BINPERSID
            default: {
                static const char* kHex = "0123456789abcdef";
                std::string hex = {'0', 'x', kHex[op >> 4], kHex[op & 15]};
                fail("unknown pickle opcode " + hex);
            }
            }
        }
    }

    // --- conversion to the value tree --------------------------------------------------------
    PickleValue convert(Node* n, size_t depth) {
        if (depth > kMaxDepth) fail("values nested deeper than " + std::to_string(kMaxDepth) + " levels");
        if (budget_ == 0) fail("shared references expand to too many values");
        --budget_;
        switch (n->type) {
        case Node::Type::Leaf: return n->leaf;
        case Node::Type::Global:
        case Node::Type::Object: return PickleValue::opaque(n->name);
        case Node::Type::Storage: {  // a bare storage: its elements as a 1-D tensor
            at::Tensor t = at::empty({0}, at::TensorOptions().dtype(n->dtype).device(at::kCPU));
            t.set_(n->storage, 0, {n->numel}, {1});
            return PickleValue::tensor(std::move(t));
        }
        default: break;
        }
        // A container reached again while converting its own contents (Python allows l.append(l)):
        // the back reference becomes an opaque value instead of an infinite tree.
        if (n->visiting) return PickleValue::opaque(typeName(n) + " (recursive reference)");
        n->visiting = true;
        PickleValue out;
        if (n->type == Node::Type::Dict) {
            PickleValue::Entries entries;
            entries.reserve(n->entries.size());
            for (auto& [k, v] : n->entries) {
                PickleValue key = convert(k, depth + 1);
                entries.emplace_back(std::move(key), convert(v, depth + 1));
            }
            out = PickleValue::dict(std::move(entries));
        } else {
            PickleValue::Items items;
            items.reserve(n->items.size());
            for (Node* i : n->items) items.push_back(convert(i, depth + 1));
            out = n->type == Node::Type::List ? PickleValue::list(std::move(items)) : PickleValue::tuple(std::move(items));
        }
        n->visiting = false;
        return out;
    }

    const unsigned char* data_;
    size_t size_;
    size_t pos_ = 0;
    size_t opPos_ = 0;
    const std::string& file_;
    StorageLoader loader_;
    std::vector<std::unique_ptr<Node>> arena_;
    std::vector<Node*> stack_;
    std::vector<size_t> marks_;
    std::unordered_map<uint64_t, Node*> memo_;
    uint64_t budget_ = 0;
};

// ---------------------------------------------------------------------------------------------

PickleValue readArchive(caffe2::serialize::PyTorchStreamReader& reader, const std::string& name) {
    const std::vector<std::string> records = reader.getAllRecords();
    std::string pkl;
    for (const std::string& r : records) {
        if (r == "constants.pkl" || r.rfind("code/", 0) == 0)
            throw CheckpointError("checkpoint " + quoted(name) +
                                  " is a TorchScript module (torch.jit.save), not a torch.save checkpoint: save the "
                                  "model's state dicts with torch.save instead");
        const bool match = r == "data.pkl" || (r.size() > 9 && r.compare(r.size() - 9, 9, "/data.pkl") == 0);
        if (match && (pkl.empty() || r.size() < pkl.size())) pkl = r;
    }
    if (pkl.empty())
        throw CheckpointError("checkpoint " + quoted(name) +
                              " is a zip archive without a data.pkl record, not a torch.save checkpoint: " + kResave);
    const std::string prefix = pkl.substr(0, pkl.size() - 8);  // folder of data.pkl inside the archive

    if (reader.hasRecord(prefix + "byteorder")) {
        auto [ptr, size] = reader.getRecord(prefix + "byteorder");
        const std::string order(static_cast<const char*>(ptr.get()), size);
        if (order == "big")
            throw CheckpointError("checkpoint " + quoted(name) +
                                  " was written on a big-endian machine, which is not supported: re-save it on a "
                                  "little-endian one");
    }

    auto [pklPtr, pklSize] = reader.getRecord(pkl);
    std::unordered_map<std::string, at::Storage> storages;  // each record is read once and shared
    StorageLoader loader = [&](const std::string& key) -> at::Storage {
        auto it = storages.find(key);
        if (it != storages.end()) return it->second;
        const std::string record = prefix + "data/" + key;
        if (!reader.hasRecord(record))
            throw CheckpointError("checkpoint " + quoted(name) + " lacks the tensor data record 'data/" + key +
                                  "' that data.pkl refers to (truncated or corrupt?): " + kResave);
        auto [ptr, size] = reader.getRecord(record);
        at::Storage s(at::Storage::use_byte_size_t(), size, std::move(ptr), /*allocator=*/nullptr, /*resizable=*/false);
        storages.emplace(key, s);
        return s;
    };
    Unpickler unpickler(static_cast<const char*>(pklPtr.get()), pklSize, name, loader);
    return unpickler.parse();
}

/// Runs `body`, turning every LibTorch/zip/allocation failure into a CheckpointError.
template <class F>
PickleValue guarded(const std::string& name, F&& body) {
    try {
        return body();
    } catch (const CheckpointError&) {
        throw;
    } catch (const c10::Error& e) {
        throw CheckpointError("checkpoint " + quoted(name) + " is not a readable PyTorch zip archive (truncated or corrupt? " +
                              shortMessage(e.what_without_backtrace()) + "): " + kResave);
    } catch (const std::bad_alloc&) {
        throw CheckpointError("checkpoint " + quoted(name) +
                              " could not be read: out of memory (corrupt sizes, or too large for this machine)");
    } catch (const std::exception& e) {
        throw CheckpointError("checkpoint " + quoted(name) + " could not be read (" + shortMessage(e.what()) + "): " +
                              kResave);
    }
}

}  // namespace

PickleValue TorchPickleReader::load(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) throw CheckpointError("checkpoint " + quoted(path) + " does not exist: check the path");
    if (fs::is_directory(st))
        throw CheckpointError("checkpoint " + quoted(path) + " is a directory, not a file: pass the .pt file inside it");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CheckpointError("checkpoint " + quoted(path) + " cannot be opened: check its permissions");
    const uintmax_t size = fs::file_size(path, ec);
    if (ec) throw CheckpointError("checkpoint " + quoted(path) + " cannot be read (" + ec.message() + "): check the file");
    unsigned char head[16] = {};
    in.read(reinterpret_cast<char*>(head), sizeof head);
    checkHeader(head, static_cast<size_t>(in.gcount()), size, path);
    in.close();
    return guarded(path, [&] {
        caffe2::serialize::PyTorchStreamReader reader(path);
        return readArchive(reader, path);
    });
}

PickleValue TorchPickleReader::loadBytes(const std::vector<char>& zipBytes, const std::string& nameForMessages) {
    checkHeader(reinterpret_cast<const unsigned char*>(zipBytes.data()), zipBytes.size(), zipBytes.size(),
                nameForMessages);
    return guarded(nameForMessages, [&] {
        caffe2::serialize::PyTorchStreamReader reader(
            std::make_shared<BoundedMemoryAdapter>(zipBytes.data(), zipBytes.size()));
        return readArchive(reader, nameForMessages);
    });
}

}  // namespace streetgan
