#include "ml/checkpoint/PickleValue.h"

#include <sstream>

#include "base/util/Errors.h"

namespace streetgan {

PickleValue::PickleValue() = default;

PickleValue PickleValue::none() { return PickleValue(); }

PickleValue PickleValue::boolean(bool v) {
    PickleValue p;
    p.kind_ = Kind::Bool;
    p.data_ = v;
    return p;
}

PickleValue PickleValue::integer(int64_t v) {
    PickleValue p;
    p.kind_ = Kind::Int;
    p.data_ = v;
    return p;
}

PickleValue PickleValue::real(double v) {
    PickleValue p;
    p.kind_ = Kind::Float;
    p.data_ = v;
    return p;
}

PickleValue PickleValue::string(std::string v) {
    PickleValue p;
    p.kind_ = Kind::String;
    p.data_ = std::move(v);
    return p;
}

PickleValue PickleValue::bytes(std::string v) {
    PickleValue p;
    p.kind_ = Kind::Bytes;
    p.data_ = std::move(v);
    return p;
}

PickleValue PickleValue::list(Items v) {
    PickleValue p;
    p.kind_ = Kind::List;
    p.data_ = std::move(v);
    return p;
}

PickleValue PickleValue::tuple(Items v) {
    PickleValue p;
    p.kind_ = Kind::Tuple;
    p.data_ = std::move(v);
    return p;
}

PickleValue PickleValue::dict(Entries v) {
    PickleValue p;
    p.kind_ = Kind::Dict;
    p.data_ = std::move(v);
    return p;
}

PickleValue PickleValue::tensor(at::Tensor v) {
    PickleValue p;
    p.kind_ = Kind::Tensor;
    p.data_ = std::move(v);
    return p;
}

PickleValue PickleValue::opaque(std::string qualifiedName) {
    PickleValue p;
    p.kind_ = Kind::Opaque;
    p.data_ = std::move(qualifiedName);
    return p;
}

const char* PickleValue::kindName(Kind k) {
    switch (k) {
        case Kind::None:
            return "None";
        case Kind::Bool:
            return "bool";
        case Kind::Int:
            return "int";
        case Kind::Float:
            return "float";
        case Kind::String:
            return "str";
        case Kind::Bytes:
            return "bytes";
        case Kind::List:
            return "list";
        case Kind::Tuple:
            return "tuple";
        case Kind::Dict:
            return "dict";
        case Kind::Tensor:
            return "tensor";
        case Kind::Opaque:
            return "object";
    }
    return "?";
}

std::string PickleValue::describe() const {
    std::ostringstream os;
    switch (kind_) {
        case Kind::None:
            os << "None";
            break;
        case Kind::Bool:
            os << "bool " << (std::get<bool>(data_) ? "True" : "False");
            break;
        case Kind::Int:
            os << "int " << std::get<int64_t>(data_);
            break;
        case Kind::Float:
            os << "float " << std::get<double>(data_);
            break;
        case Kind::String: {
            const auto& s = std::get<std::string>(data_);
            os << "str '" << (s.size() > 40 ? s.substr(0, 40) + "..." : s) << "'";
            break;
        }
        case Kind::Bytes:
            os << "bytes (" << std::get<std::string>(data_).size() << " bytes)";
            break;
        case Kind::List:
        case Kind::Tuple:
            os << kindName(kind_) << " (" << std::get<Items>(data_).size() << " items)";
            break;
        case Kind::Dict:
            os << "dict (" << std::get<Entries>(data_).size() << " entries)";
            break;
        case Kind::Tensor: {
            const auto& t = std::get<at::Tensor>(data_);
            if (!t.defined()) {
                os << "tensor (undefined)";
                break;
            }
            os << "tensor " << c10::toString(t.scalar_type()) << " [";
            for (int64_t i = 0; i < t.dim(); ++i) os << (i ? ", " : "") << t.size(i);
            os << "]";
            break;
        }
        case Kind::Opaque:
            os << "object of " << std::get<std::string>(data_);
            break;
    }
    return os.str();
}

void PickleValue::kindMismatch(const char* expected) const {
    throw CheckpointError(std::string("checkpoint value has the wrong type: expected ") + expected + ", found " + describe() +
                          " (the file does not have the layout this program expects)");
}

bool PickleValue::asBool() const {
    if (kind_ != Kind::Bool) kindMismatch("bool");
    return std::get<bool>(data_);
}

int64_t PickleValue::asInt() const {
    if (kind_ != Kind::Int) kindMismatch("int");
    return std::get<int64_t>(data_);
}

double PickleValue::asDouble() const {
    if (kind_ == Kind::Int) return static_cast<double>(std::get<int64_t>(data_));
    if (kind_ != Kind::Float) kindMismatch("float");
    return std::get<double>(data_);
}

const std::string& PickleValue::asString() const {
    if (kind_ != Kind::String) kindMismatch("str");
    return std::get<std::string>(data_);
}

const std::string& PickleValue::asBytes() const {
    if (kind_ != Kind::Bytes) kindMismatch("bytes");
    return std::get<std::string>(data_);
}

const at::Tensor& PickleValue::asTensor() const {
    if (kind_ != Kind::Tensor) kindMismatch("tensor");
    return std::get<at::Tensor>(data_);
}

const std::string& PickleValue::opaqueName() const {
    if (kind_ != Kind::Opaque) kindMismatch("object");
    return std::get<std::string>(data_);
}

const PickleValue::Items& PickleValue::items() const {
    if (kind_ != Kind::List && kind_ != Kind::Tuple) kindMismatch("list or tuple");
    return std::get<Items>(data_);
}

const PickleValue::Entries& PickleValue::entries() const {
    if (kind_ != Kind::Dict) kindMismatch("dict");
    return std::get<Entries>(data_);
}

const PickleValue* PickleValue::find(const std::string& key) const {
    for (const auto& e : entries())
        if (e.first.kind_ == Kind::String && std::get<std::string>(e.first.data_) == key) return &e.second;
    return nullptr;
}

const PickleValue* PickleValue::findInt(int64_t key) const {
    for (const auto& e : entries())
        if (e.first.kind_ == Kind::Int && std::get<int64_t>(e.first.data_) == key) return &e.second;
    return nullptr;
}

const PickleValue& PickleValue::at(const std::string& key) const {
    if (const PickleValue* v = find(key)) return *v;
    throw CheckpointError("checkpoint value has no key '" + key + "' (found " + describe() + "): the file does not have the layout this program expects");
}

}  // namespace streetgan
