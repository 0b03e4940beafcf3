#include "ml/checkpoint/Unpickler.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/util/Errors.h"
#include "ml/checkpoint/PickleGlobals.h"

namespace streetgan {

namespace {

constexpr size_t kMaxDepth = 512;  // nesting of containers in the value tree

}  // namespace

PickleValue Unpickler::parse() {
    PickleNode* root = run();
    // Values built are bounded by the file: one for every two bytes of pickle (a value costs at
    // least one opcode byte, and a checkpoint's are mostly several), plus a margin for small files.
    // Shared references (memo gets) that expand beyond that are a pickle bomb: at 4 values a byte a
    // 1.6 MB one held 572 MB before it was refused; now at most about 45 bytes of memory a byte.
    budget_ = static_cast<uint64_t>(size_) / 2 + 65536;
    pos_ = opPos_ = size_;
    return convert(root, 0);
}

void Unpickler::fail(const std::string& what) const {
    throw CheckpointError("checkpoint " + quoted(file_) + " has a corrupt or unsupported data.pkl (" + what + ", at byte " + std::to_string(opPos_) + " of " +
                          std::to_string(size_) + "): " + kResave);
}

const unsigned char* Unpickler::take(uint64_t n) {
    if (n > size_ - pos_) fail("truncated: " + std::to_string(n) + " more bytes needed");
    const unsigned char* p = data_ + pos_;
    pos_ += static_cast<size_t>(n);
    return p;
}

uint64_t Unpickler::readLE(int bytes) {
    const unsigned char* p = take(static_cast<uint64_t>(bytes));
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

std::string Unpickler::readString(uint64_t n) {
    const unsigned char* p = take(n);
    return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
}

std::string Unpickler::readLine() {
    const void* nl = std::memchr(data_ + pos_, '\n', size_ - pos_);
    if (!nl) fail("truncated GLOBAL name");
    size_t len = static_cast<size_t>(static_cast<const unsigned char*>(nl) - (data_ + pos_));
    std::string s = readString(len);
    pos_ += 1;
    return s;
}

PickleNode* Unpickler::make(PickleNode::Type t) {
    arena_.push_back(std::make_unique<PickleNode>(t));
    return arena_.back().get();
}

PickleNode* Unpickler::leaf(PickleValue v) {
    PickleNode* n = make(PickleNode::Type::Leaf);
    n->leaf = std::move(v);
    return n;
}

PickleNode* Unpickler::global(const std::string& module, const std::string& name) {
    PickleNode* n = make(PickleNode::Type::Global);
    if (module == "__builtin__")
        n->name = "builtins." + name;
    else if (module == "copy_reg")
        n->name = "copyreg." + name;
    else
        n->name = module + "." + name;
    if (!PickleGlobals::allowed(n->name))
        throw CheckpointError(
            "checkpoint " + quoted(file_) + " names the Python global " + n->name +
            ", which a file of weights does not need and PyTorch's weights-only loader refuses too: it may have been made to run code when loaded "
            "in Python; use checkpoints only from sources you trust, re-saved as weights (state dicts of tensors)");
    return n;
}

PickleNode* Unpickler::object(const std::string& qualname) {
    PickleNode* n = make(PickleNode::Type::Object);
    n->name = qualname;
    return n;
}

PickleNode* Unpickler::sequence(PickleNode::Type t, std::vector<PickleNode*> items) {
    PickleNode* n = make(t);
    n->items = std::move(items);
    return n;
}

PickleNode* Unpickler::pop() {
    if (stack_.size() <= floor()) fail("stack underflow");
    PickleNode* n = stack_.back();
    stack_.pop_back();
    return n;
}

PickleNode* Unpickler::top() {
    if (stack_.size() <= floor()) fail("stack underflow");
    return stack_.back();
}

std::vector<PickleNode*> Unpickler::popMark() {
    if (marks_.empty()) fail("MARK expected but missing");
    size_t m = marks_.back();
    marks_.pop_back();
    std::vector<PickleNode*> items(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
    stack_.resize(m);
    return items;
}

bool Unpickler::dictKey(const PickleNode* k, std::string& out) {
    if (k->type != PickleNode::Type::Leaf) return false;
    switch (k->leaf.kind()) {
        case PickleValue::Kind::String:
            out = "s" + k->leaf.asString();
            return true;
        case PickleValue::Kind::Bytes:
            out = "b" + k->leaf.asBytes();
            return true;
        case PickleValue::Kind::Int:
            out = "i" + std::to_string(k->leaf.asInt());
            return true;
        case PickleValue::Kind::Bool:
            out = k->leaf.asBool() ? "i1" : "i0";
            return true;
        case PickleValue::Kind::None:
            out = "n";
            return true;
        default:
            return false;
    }
}

void Unpickler::setItem(PickleNode* d, PickleNode* k, PickleNode* v) {
    if (d->type == PickleNode::Type::Object) return;  // e.g. dictitems of an unknown class: dropped
    if (d->type != PickleNode::Type::Dict) fail("SETITEM on a " + typeName(d));
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

void Unpickler::append(PickleNode* l, PickleNode* v) {
    if (l->type == PickleNode::Type::Object) return;  // listitems of an unknown class: dropped
    if (l->type != PickleNode::Type::List) fail("APPEND on a " + typeName(l));
    l->items.push_back(v);
}

std::string Unpickler::typeName(const PickleNode* n) {
    switch (n->type) {
        case PickleNode::Type::Leaf:
            return PickleValue::kindName(n->leaf.kind());
        case PickleNode::Type::List:
            return "list";
        case PickleNode::Type::Tuple:
            return "tuple";
        case PickleNode::Type::Dict:
            return "dict";
        case PickleNode::Type::Global:
            return "global " + n->name;
        case PickleNode::Type::Object:
            return "object of " + n->name;
        case PickleNode::Type::Storage:
            return "storage";
    }
    return "?";
}

PickleNode* Unpickler::readLong(uint64_t n) {
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
    if (n > 8 && (((v >> 63) & 1) != (negative ? 1u : 0u))) return leaf(PickleValue::opaque("builtins.int (out of int64 range)"));
    int64_t s;
    std::memcpy(&s, &v, sizeof s);
    return leaf(PickleValue::integer(s));
}

int64_t Unpickler::intOf(const PickleNode* n, const char* what) {
    if (!isLeaf(n, PickleValue::Kind::Int)) fail(std::string(what) + " is a " + typeName(n) + ", not an int");
    return n->leaf.asInt();
}

std::vector<int64_t> Unpickler::intTuple(const PickleNode* n, const char* what) {
    if (n->type != PickleNode::Type::Tuple && n->type != PickleNode::Type::List) fail(std::string(what) + " is a " + typeName(n) + ", not a tuple");
    std::vector<int64_t> out;
    out.reserve(n->items.size());
    for (const PickleNode* i : n->items) out.push_back(intOf(i, what));
    return out;
}

PickleNode* Unpickler::run() {
    PickleNode* const noneNode = leaf(PickleValue::none());
    PickleNode* const trueNode = leaf(PickleValue::boolean(true));
    PickleNode* const falseNode = leaf(PickleValue::boolean(false));
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
            case 0x95:
                readLE(8);
                break;  // FRAME: framing hint only
            case '.':
                return pop();  // STOP
            case '(':
                marks_.push_back(stack_.size());
                break;   // MARK
            case '0': {  // POP
                if (!marks_.empty() && stack_.size() == marks_.back())
                    marks_.pop_back();
                else
                    pop();
                break;
            }
            case '1':
                popMark();
                break;  // POP_MARK
            case '2':
                push(top());
                break;  // DUP
            case '}':
                push(make(PickleNode::Type::Dict));
                break;  // EMPTY_DICT
            case ']':
                push(make(PickleNode::Type::List));
                break;  // EMPTY_LIST
            case ')':
                push(make(PickleNode::Type::Tuple));
                break;  // EMPTY_TUPLE
            case 0x8f:
                push(make(PickleNode::Type::List));
                break;  // EMPTY_SET
            case 't':
                push(sequence(PickleNode::Type::Tuple, popMark()));
                break;  // TUPLE
            case 'l':   // LIST
            case 0x91:  // FROZENSET: read as a list, like the empty set above
                push(sequence(PickleNode::Type::List, popMark()));
                break;
            case 0x85:    // TUPLE1
            case 0x86:    // TUPLE2
            case 0x87: {  // TUPLE3
                const size_t n = op - 0x84u;
                std::vector<PickleNode*> items(n);
                for (size_t i = n; i > 0; --i) items[i - 1] = pop();
                push(sequence(PickleNode::Type::Tuple, std::move(items)));
                break;
            }
            case 'd': {  // DICT
                std::vector<PickleNode*> kv = popMark();
                if (kv.size() % 2) fail("DICT with an odd number of items");
                PickleNode* d = make(PickleNode::Type::Dict);
                for (size_t i = 0; i < kv.size(); i += 2) setItem(d, kv[i], kv[i + 1]);
                push(d);
                break;
            }
            case 's': {  // SETITEM
                PickleNode* v = pop();
                PickleNode* k = pop();
                setItem(top(), k, v);
                break;
            }
            case 'u': {  // SETITEMS
                std::vector<PickleNode*> kv = popMark();
                if (kv.size() % 2) fail("SETITEMS with an odd number of items");
                PickleNode* d = top();
                for (size_t i = 0; i < kv.size(); i += 2) setItem(d, kv[i], kv[i + 1]);
                break;
            }
            case 'a': {  // APPEND
                PickleNode* v = pop();
                append(top(), v);
                break;
            }
            case 'e':     // APPENDS
            case 0x90: {  // ADDITEMS
                std::vector<PickleNode*> items = popMark();
                PickleNode* l = top();
                for (PickleNode* v : items) append(l, v);
                break;
            }
            case 'q':
                memo_[readLE(1)] = top();
                break;  // BINPUT
            case 'r':
                memo_[readLE(4)] = top();
                break;  // LONG_BINPUT
            case 0x94:
                memo_[memo_.size()] = top();
                break;   // MEMOIZE
            case 'h':    // BINGET
            case 'j': {  // LONG_BINGET
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
            case 'K':
                push(leaf(PickleValue::integer(static_cast<int64_t>(readLE(1)))));
                break;  // BININT1
            case 'M':
                push(leaf(PickleValue::integer(static_cast<int64_t>(readLE(2)))));
                break;  // BININT2
            case 0x8a:
                push(readLong(readLE(1)));
                break;    // LONG1
            case 0x8b: {  // LONG4
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
            case 'N':
                push(noneNode);
                break;  // NONE
            case 0x88:
                push(trueNode);
                break;  // NEWTRUE
            case 0x89:
                push(falseNode);
                break;  // NEWFALSE
            case 'X':
                push(leaf(PickleValue::string(readString(readLE(4)))));
                break;  // BINUNICODE
            case 0x8c:
                push(leaf(PickleValue::string(readString(readLE(1)))));
                break;  // SHORT_BINUNICODE
            case 0x8d:
                push(leaf(PickleValue::string(readString(readLE(8)))));
                break;   // BINUNICODE8
            case 'T': {  // BINSTRING (Python 2 str, read as str)
                const auto n = static_cast<uint32_t>(readLE(4));
                if (n & 0x80000000u) fail("negative BINSTRING length");
                push(leaf(PickleValue::string(readString(n))));
                break;
            }
            case 'U':
                push(leaf(PickleValue::string(readString(readLE(1)))));
                break;  // SHORT_BINSTRING
            case 'B':
                push(leaf(PickleValue::bytes(readString(readLE(4)))));
                break;  // BINBYTES
            case 'C':
                push(leaf(PickleValue::bytes(readString(readLE(1)))));
                break;  // SHORT_BINBYTES
            case 0x8e:
                push(leaf(PickleValue::bytes(readString(readLE(8)))));
                break;   // BINBYTES8
            case 'c': {  // GLOBAL
                std::string module = readLine();
                std::string name = readLine();
                push(global(module, name));
                break;
            }
            case 0x93: {  // STACK_GLOBAL
                PickleNode* name = pop();
                PickleNode* module = pop();
                if (!isLeaf(name, PickleValue::Kind::String) || !isLeaf(module, PickleValue::Kind::String)) fail("STACK_GLOBAL without strings");
                push(global(module->leaf.asString(), name->leaf.asString()));
                break;
            }
            case 'R': {  // REDUCE
                PickleNode* args = pop();
                PickleNode* callable = pop();
                if (args->type != PickleNode::Type::Tuple) fail("REDUCE arguments are a " + typeName(args));
                push(call(callable, args->items));
                break;
            }
            case 0x81: {  // NEWOBJ: cls.__new__(cls, *args)
                PickleNode* args = pop();
                PickleNode* cls = pop();
                if (args->type != PickleNode::Type::Tuple) fail("NEWOBJ arguments are a " + typeName(args));
                if (cls->type != PickleNode::Type::Global) fail("NEWOBJ of a " + typeName(cls));
                push(cls->name == "collections.OrderedDict" ? make(PickleNode::Type::Dict) : object(cls->name));
                break;
            }
            case 0x92: {  // NEWOBJ_EX
                pop();    // kwargs
                PickleNode* args = pop();
                PickleNode* cls = pop();
                if (args->type != PickleNode::Type::Tuple) fail("NEWOBJ_EX arguments are a " + typeName(args));
                if (cls->type != PickleNode::Type::Global) fail("NEWOBJ_EX of a " + typeName(cls));
                push(cls->name == "collections.OrderedDict" ? make(PickleNode::Type::Dict) : object(cls->name));
                break;
            }
            case 'b': {  // BUILD
                PickleNode* state = pop();
                build(top(), state);
                break;
            }
            case 'Q':
                push(persistentLoad(pop()));
                break;  // BINPERSID
            default: {
                static const char* kHex = "0123456789abcdef";
                std::string hex = {'0', 'x', kHex[op >> 4], kHex[op & 15]};
                fail("unknown pickle opcode " + hex);
            }
        }
    }
}

PickleValue Unpickler::convert(PickleNode* n, size_t depth) {
    if (depth > kMaxDepth) fail("values nested deeper than " + std::to_string(kMaxDepth) + " levels");
    if (budget_ == 0) fail("shared references expand to too many values");
    --budget_;
    switch (n->type) {
        case PickleNode::Type::Leaf:
            return n->leaf;
        case PickleNode::Type::Global:
        case PickleNode::Type::Object:
            return PickleValue::opaque(n->name);
        case PickleNode::Type::Storage: {  // a bare storage: its elements as a 1-D tensor
            at::Tensor t = at::empty({0}, at::TensorOptions().dtype(n->dtype).device(at::kCPU));
            t.set_(n->storage, 0, {n->numel}, {1});
            return PickleValue::tensor(std::move(t));
        }
        default:
            break;
    }
    // A container reached again while converting its own contents (Python allows l.append(l)):
    // the back reference becomes an opaque value instead of an infinite tree.
    if (n->visiting) return PickleValue::opaque(typeName(n) + " (recursive reference)");
    n->visiting = true;
    PickleValue out;
    if (n->type == PickleNode::Type::Dict) {
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
        for (PickleNode* i : n->items) items.push_back(convert(i, depth + 1));
        out = n->type == PickleNode::Type::List ? PickleValue::list(std::move(items)) : PickleValue::tuple(std::move(items));
    }
    n->visiting = false;
    return out;
}

}  // namespace streetgan
