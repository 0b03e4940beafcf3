#include "base/tensorboard/TfRecordReader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "base/util/Crc32c.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {

constexpr std::size_t kChunkBytes = 1 << 20;  // a record's data is read in chunks of this size

uint64_t loadLe(const unsigned char* p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

class MalformedError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Minimal protobuf wire-format cursor over one message.
class WireReader {
public:
    WireReader(const char* data, std::size_t size) : p_(reinterpret_cast<const unsigned char*>(data)), end_(p_ + size) {}

    bool atEnd() const { return p_ == end_; }

    uint64_t varint() {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p_ == end_) throw MalformedError("truncated varint");
            const unsigned char b = *p_++;
            v |= uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        throw MalformedError("varint longer than 10 bytes");
    }

    uint64_t fixed(int bytes) {
        need(std::size_t(bytes));
        const uint64_t v = loadLe(p_, bytes);
        p_ += bytes;
        return v;
    }

    std::string_view bytes() {
        const uint64_t n = varint();
        need(n);
        std::string_view s(reinterpret_cast<const char*>(p_), std::size_t(n));
        p_ += n;
        return s;
    }

    /// Reads a key; returns false at the end of the message.
    bool key(uint32_t& field, uint32_t& wireType) {
        if (atEnd()) return false;
        const uint64_t k = varint();
        field = uint32_t(k >> 3);
        wireType = uint32_t(k & 7);
        if (field == 0) throw MalformedError("field number 0");
        return true;
    }

    void skip(uint32_t field, uint32_t wireType, int depth = 0) {
        switch (wireType) {
            case 0:
                varint();
                return;
            case 1:
                fixed(8);
                return;
            case 2:
                bytes();
                return;
            case 5:
                fixed(4);
                return;
            case 3: {  // start group: skip fields up to the matching end group
                if (depth > 64) throw MalformedError("groups nested too deeply");
                uint32_t f = 0, w = 0;
                while (key(f, w)) {
                    if (w == 4) {
                        if (f != field) throw MalformedError("mismatched end group");
                        return;
                    }
                    skip(f, w, depth + 1);
                }
                throw MalformedError("unterminated group");
            }
            default:
                throw MalformedError("invalid wire type " + std::to_string(wireType));
        }
    }

    void expect(uint32_t wireType, uint32_t expected, const char* what) {
        if (wireType != expected) throw MalformedError(std::string("wrong wire type for ") + what);
    }

private:
    void need(uint64_t n) const {
        if (n > uint64_t(end_ - p_)) throw MalformedError("field runs past the end of its message");
    }

    const unsigned char* p_;
    const unsigned char* end_;
};

double toDouble(uint64_t bits) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

float toFloat(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

TfRecordReader::Image parseImage(std::string_view msg) {
    TfRecordReader::Image img;
    WireReader r(msg.data(), msg.size());
    uint32_t f = 0, w = 0;
    while (r.key(f, w)) {
        switch (f) {
            case 1:
                r.expect(w, 0, "Image.height");
                img.height = int(int32_t(uint32_t(r.varint())));
                break;
            case 2:
                r.expect(w, 0, "Image.width");
                img.width = int(int32_t(uint32_t(r.varint())));
                break;
            case 3:
                r.expect(w, 0, "Image.colorspace");
                img.colorspace = int(int32_t(uint32_t(r.varint())));
                break;
            case 4:
                r.expect(w, 2, "Image.encoded_image_string");
                img.encoded = std::string(r.bytes());
                break;
            default:
                r.skip(f, w);
        }
    }
    return img;
}

// IEEE half and bfloat16 bits (TensorProto.half_val) to float.
float halfToFloat(uint32_t h) {
    const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float f;
    if (exp == 0) {
        f = std::ldexp(float(mant), -24);  // zero or subnormal
    } else if (exp == 31) {
        f = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    } else {
        f = std::ldexp(float(mant | 0x400), int(exp) - 25);
    }
    return sign ? -f : f;
}
float bfloat16ToFloat(uint32_t b) { return toFloat((b & 0xffffu) << 16); }

// TensorProto's dtype values this reader decodes.
enum DataType : uint64_t { kDtFloat = 1, kDtDouble = 2, kDtString = 7, kDtBfloat16 = 14, kDtHalf = 19 };

// The element count of a TensorShapeProto (1 for a scalar: no dims).
uint64_t elementCount(std::string_view shape) {
    WireReader r(shape.data(), shape.size());
    uint64_t count = 1;
    uint32_t f = 0, w = 0;
    while (r.key(f, w)) {
        if (f != 2 || w != 2) {
            r.skip(f, w);
            continue;
        }
        const std::string_view dim = r.bytes();
        WireReader d(dim.data(), dim.size());
        uint32_t df = 0, dw = 0;
        int64_t size = 1;
        while (d.key(df, dw)) {
            if (df == 1 && dw == 0)
                size = int64_t(d.varint());
            else
                d.skip(df, dw);
        }
        count = size < 0 ? 0 : count * uint64_t(size);
    }
    return count;
}

// A TensorProto: the value of a one-element float/double/half/bfloat16 tensor, or the first image
// of a TF2 image tensor (strings: width, height, encoded images...).
void parseTensor(std::string_view msg, TfRecordReader::Value& v) {
    WireReader r(msg.data(), msg.size());
    uint64_t dtype = 0, count = 1;
    std::string_view content;
    std::optional<double> first;
    std::vector<std::string_view> strings;
    uint32_t f = 0, w = 0;
    // A repeated numeric field comes packed (wire type 2) or one value per key.
    auto firstOf = [&](int bytes, auto convert) {
        if (w == 2) {
            const std::string_view packed = r.bytes();
            WireReader p(packed.data(), packed.size());
            if (!p.atEnd() && !first) first = convert(bytes ? p.fixed(bytes) : p.varint());
        } else {
            const uint64_t raw = bytes ? r.fixed(bytes) : r.varint();
            if (!first) first = convert(raw);
        }
    };
    while (r.key(f, w)) {
        switch (f) {
            case 1:
                r.expect(w, 0, "TensorProto.dtype");
                dtype = r.varint();
                break;
            case 2:
                r.expect(w, 2, "TensorProto.tensor_shape");
                count = elementCount(r.bytes());
                break;
            case 4:
                r.expect(w, 2, "TensorProto.tensor_content");
                content = r.bytes();
                break;
            case 5:
                if (w != 2 && w != 5) throw MalformedError("wrong wire type for TensorProto.float_val");
                firstOf(4, [](uint64_t b) { return double(toFloat(uint32_t(b))); });
                break;
            case 6:
                if (w != 2 && w != 1) throw MalformedError("wrong wire type for TensorProto.double_val");
                firstOf(8, [](uint64_t b) { return toDouble(b); });
                break;
            case 8:
                r.expect(w, 2, "TensorProto.string_val");
                strings.push_back(r.bytes());
                break;
            case 13:
                if (w != 2 && w != 0) throw MalformedError("wrong wire type for TensorProto.half_val");
                firstOf(0, [dtype](uint64_t b) { return double(dtype == kDtBfloat16 ? bfloat16ToFloat(uint32_t(b)) : halfToFloat(uint32_t(b))); });
                break;
            default:
                r.skip(f, w);
        }
    }
    if (dtype == kDtString) {
        if (strings.size() >= 3) {
            TfRecordReader::Image img;
            img.width = std::atoi(std::string(strings[0]).c_str());
            img.height = std::atoi(std::string(strings[1]).c_str());
            img.encoded = std::string(strings[2]);
            v.image = std::move(img);
        }
        return;
    }
    if (count != 1) return;
    if (!content.empty()) {
        const std::size_t need = dtype == kDtDouble ? 8 : dtype == kDtFloat ? 4 : 2;
        if (content.size() < need) throw MalformedError("tensor_content shorter than one element");
        const uint64_t bits = loadLe(reinterpret_cast<const unsigned char*>(content.data()), int(need));
        if (dtype == kDtDouble)
            v.tensorScalar = toDouble(bits);
        else if (dtype == kDtFloat)
            v.tensorScalar = toFloat(uint32_t(bits));
        else if (dtype == kDtHalf)
            v.tensorScalar = halfToFloat(uint32_t(bits));
        else if (dtype == kDtBfloat16)
            v.tensorScalar = bfloat16ToFloat(uint32_t(bits));
        return;
    }
    if (first && (dtype == kDtFloat || dtype == kDtDouble || dtype == kDtHalf || dtype == kDtBfloat16)) v.tensorScalar = first;
}

// SummaryMetadata: keeps plugin_data.plugin_name, and plugin_data.content for the hparams plugin.
void parsePluginData(std::string_view msg, TfRecordReader::Value& v) {
    WireReader r(msg.data(), msg.size());
    std::string_view content;
    uint32_t f = 0, w = 0;
    while (r.key(f, w)) {
        if (f == 1 && w == 2) {
            const std::string_view pluginData = r.bytes();
            WireReader p(pluginData.data(), pluginData.size());
            uint32_t pf = 0, pw = 0;
            while (p.key(pf, pw)) {
                if (pf == 1 && pw == 2)
                    v.plugin = std::string(p.bytes());
                else if (pf == 2 && pw == 2)
                    content = p.bytes();
                else
                    p.skip(pf, pw);
            }
        } else {
            r.skip(f, w);
        }
    }
    // Other plugins' content (a scalar's is empty, a text's or PR curve's small) is of no use here.
    if (v.plugin == "hparams") v.pluginContent = std::string(content);
}

// google.protobuf.Value (struct.proto): null_value 1, number_value 2, string_value 3, bool_value
// 4, struct_value 5 (Struct: map<string, Value> fields 1), list_value 6 (ListValue: repeated
// Value values 1). A value with none of them set reads as null.
nlohmann::json parseProtoValue(std::string_view msg, int depth);

nlohmann::json parseProtoStruct(std::string_view msg, int depth) {
    nlohmann::json out = nlohmann::json::object();
    WireReader r(msg.data(), msg.size());
    uint32_t f = 0, w = 0;
    while (r.key(f, w)) {
        if (f != 1) {
            r.skip(f, w);
            continue;
        }
        r.expect(w, 2, "Struct.fields");
        const std::string_view entry = r.bytes();
        WireReader e(entry.data(), entry.size());
        std::string key;
        nlohmann::json value;
        uint32_t ef = 0, ew = 0;
        while (e.key(ef, ew)) {
            if (ef == 1) {
                e.expect(ew, 2, "Struct.fields key");
                key = std::string(e.bytes());
            } else if (ef == 2) {
                e.expect(ew, 2, "Struct.fields value");
                value = parseProtoValue(e.bytes(), depth + 1);
            } else {
                e.skip(ef, ew);
            }
        }
        out[key] = std::move(value);
    }
    return out;
}

nlohmann::json parseProtoValue(std::string_view msg, int depth) {
    if (depth > 32) throw MalformedError("google.protobuf.Value nested too deeply");
    nlohmann::json out;  // null
    WireReader r(msg.data(), msg.size());
    uint32_t f = 0, w = 0;
    while (r.key(f, w)) {
        switch (f) {
            case 1:
                r.expect(w, 0, "Value.null_value");
                r.varint();
                out = nullptr;
                break;
            case 2:
                r.expect(w, 1, "Value.number_value");
                out = toDouble(r.fixed(8));
                break;
            case 3:
                r.expect(w, 2, "Value.string_value");
                out = std::string(r.bytes());
                break;
            case 4:
                r.expect(w, 0, "Value.bool_value");
                out = r.varint() != 0;
                break;
            case 5:
                r.expect(w, 2, "Value.struct_value");
                out = parseProtoStruct(r.bytes(), depth);
                break;
            case 6: {
                r.expect(w, 2, "Value.list_value");
                const std::string_view list = r.bytes();
                WireReader l(list.data(), list.size());
                out = nlohmann::json::array();
                uint32_t lf = 0, lw = 0;
                while (l.key(lf, lw)) {
                    if (lf == 1) {
                        l.expect(lw, 2, "ListValue.values");
                        out.push_back(parseProtoValue(l.bytes(), depth + 1));
                    } else {
                        l.skip(lf, lw);
                    }
                }
                break;
            }
            default:
                r.skip(f, w);
        }
    }
    return out;
}

// SessionStartInfo: hparams 1 (map entries: key 1, value 2), model_uri 2, monitor_url 3,
// group_name 4, start_time_secs 5.
void parseSessionStart(std::string_view msg, TfRecordReader::HParams& h) {
    WireReader r(msg.data(), msg.size());
    uint32_t f = 0, w = 0;
    while (r.key(f, w)) {
        if (f == 1) {
            r.expect(w, 2, "SessionStartInfo.hparams");
            const std::string_view entry = r.bytes();
            WireReader e(entry.data(), entry.size());
            std::string name;
            nlohmann::json value;
            uint32_t ef = 0, ew = 0;
            while (e.key(ef, ew)) {
                if (ef == 1) {
                    e.expect(ew, 2, "SessionStartInfo.hparams key");
                    name = std::string(e.bytes());
                } else if (ef == 2) {
                    e.expect(ew, 2, "SessionStartInfo.hparams value");
                    value = parseProtoValue(e.bytes(), 0);
                } else {
                    e.skip(ef, ew);
                }
            }
            if (value.is_structured()) {  // a table cell holds a number, a string or a flag
                h.problems.push_back("hparam '" + name + "' is a " + (value.is_array() ? "list" : "struct") + ", kept as its JSON text");
                value = value.dump();
            }
            h.values[name] = std::move(value);
        } else if (f == 4) {
            r.expect(w, 2, "SessionStartInfo.group_name");
            h.groupName = std::string(r.bytes());
        } else if (f == 5) {
            r.expect(w, 1, "SessionStartInfo.start_time_secs");
            h.startTimeSecs = toDouble(r.fixed(8));
        } else {
            r.skip(f, w);
        }
    }
}

// SessionEndInfo: status 1 (enum), end_time_secs 2.
void parseSessionEnd(std::string_view msg, TfRecordReader::HParams& h) {
    WireReader r(msg.data(), msg.size());
    uint32_t f = 0, w = 0;
    while (r.key(f, w)) {
        if (f == 1) {
            r.expect(w, 0, "SessionEndInfo.status");
            h.status = int64_t(r.varint());
        } else if (f == 2) {
            r.expect(w, 1, "SessionEndInfo.end_time_secs");
            h.endTimeSecs = toDouble(r.fixed(8));
        } else {
            r.skip(f, w);
        }
    }
}

TfRecordReader::Value parseValue(std::string_view msg) {
    using Kind = TfRecordReader::ValueKind;
    TfRecordReader::Value v;
    WireReader r(msg.data(), msg.size());
    uint32_t f = 0, w = 0;
    while (r.key(f, w)) {
        switch (f) {
            case 1:
                r.expect(w, 2, "Value.tag");
                v.tag = std::string(r.bytes());
                break;
            case 2:
                r.expect(w, 5, "Value.simple_value");
                v.simpleValue = toFloat(uint32_t(r.fixed(4)));
                v.kind = Kind::Simple;
                break;
            case 4:
                r.expect(w, 2, "Value.image");
                v.image = parseImage(r.bytes());
                v.kind = Kind::Image;
                break;
            case 5:
                r.expect(w, 2, "Value.histo");
                r.bytes();
                v.kind = Kind::Histogram;
                break;
            case 6:
                r.expect(w, 2, "Value.audio");
                r.bytes();
                v.kind = Kind::Audio;
                break;
            case 8: {
                r.expect(w, 2, "Value.tensor");
                const std::string_view tensor = r.bytes();
                v.kind = Kind::Tensor;
                try {
                    parseTensor(tensor, v);
                } catch (const MalformedError&) {  // a tensor we cannot read is just not a scalar
                    v.tensorScalar.reset();
                    v.image.reset();
                }
                break;
            }
            case 9: {
                r.expect(w, 2, "Value.metadata");
                const std::string_view metadata = r.bytes();
                try {
                    parsePluginData(metadata, v);
                } catch (const MalformedError&) {  // no plugin we can tell
                    v.plugin.clear();
                    v.pluginContent.clear();
                }
                break;
            }
            default:
                r.skip(f, w);
        }
    }
    return v;
}

void parseSummary(std::string_view msg, std::vector<TfRecordReader::Value>& out) {
    WireReader r(msg.data(), msg.size());
    uint32_t f = 0, w = 0;
    while (r.key(f, w)) {
        if (f == 1) {
            r.expect(w, 2, "Summary.value");
            out.push_back(parseValue(r.bytes()));
        } else {
            r.skip(f, w);
        }
    }
}

}  // namespace

TfRecordReader::TfRecordReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) throw IoError("cannot open TFRecord file '" + path + "' for reading");
}

std::size_t TfRecordReader::readUpTo(char* dst, std::size_t n) {
    in_.read(dst, std::streamsize(n));
    return std::size_t(in_.gcount());
}

void TfRecordReader::rewind(uint64_t recordStart) {
    in_.clear();
    in_.seekg(std::streamoff(recordStart));
    offset_ = recordStart;
}

bool TfRecordReader::endAtTornRecord(uint64_t recordStart) {
    // Rewind so a later call re-reads the record once the writer has completed it.
    rewind(recordStart);
    torn_ = true;
    return false;
}

bool TfRecordReader::readRecord(std::string& data) {
    torn_ = false;
    data.clear();
    const uint64_t start = offset_;

    unsigned char header[12];
    const std::size_t got = readUpTo(reinterpret_cast<char*>(header), sizeof header);
    if (got == 0) {
        rewind(start);  // clean end; clears EOF so a growing file can be read on
        return false;
    }
    if (got < sizeof header) return endAtTornRecord(start);

    const uint64_t length = loadLe(header, 8);
    const uint32_t lengthCrc = uint32_t(loadLe(header + 8, 4));
    if (Crc32c::masked(header, 8) != lengthCrc) {
        rewind(start);
        throw IoError("corrupt TFRecord file '" + path_ + "': length CRC mismatch in record at offset " + std::to_string(start));
    }

    // Read in chunks so a huge announced length on a torn file never allocates up front.
    uint64_t remaining = length;
    while (remaining > 0) {
        const std::size_t chunk = std::size_t(std::min<uint64_t>(remaining, kChunkBytes));
        const std::size_t old = data.size();
        data.resize(old + chunk);
        const std::size_t n = readUpTo(&data[old], chunk);
        if (n < chunk) {
            data.clear();
            return endAtTornRecord(start);
        }
        remaining -= chunk;
    }

    unsigned char footer[4];
    if (readUpTo(reinterpret_cast<char*>(footer), sizeof footer) < sizeof footer) {
        data.clear();
        return endAtTornRecord(start);
    }
    if (Crc32c::masked(data.data(), data.size()) != uint32_t(loadLe(footer, 4))) {
        data.clear();
        rewind(start);
        throw IoError("corrupt TFRecord file '" + path_ + "': data CRC mismatch in record at offset " + std::to_string(start));
    }
    offset_ = start + 12 + length + 4;
    return true;
}

bool TfRecordReader::readEvent(Event& event) {
    const uint64_t start = offset_;
    std::string data;
    if (!readRecord(data)) return false;
    try {
        event = parseEvent(data);
    } catch (const IoError& e) {
        throw IoError("in TFRecord file '" + path_ + "', record at offset " + std::to_string(start) + ": " + e.what());
    }
    return true;
}

TfRecordReader::Event TfRecordReader::parseEvent(std::string_view data) {
    Event ev;
    try {
        WireReader r(data.data(), data.size());
        uint32_t f = 0, w = 0;
        while (r.key(f, w)) {
            switch (f) {
                case 1:
                    r.expect(w, 1, "Event.wall_time");
                    ev.wallTime = toDouble(r.fixed(8));
                    break;
                case 2:
                    r.expect(w, 0, "Event.step");
                    ev.step = int64_t(r.varint());
                    break;
                case 3:
                    r.expect(w, 2, "Event.file_version");
                    ev.fileVersion = std::string(r.bytes());
                    break;
                case 5:
                    r.expect(w, 2, "Event.summary");
                    parseSummary(r.bytes(), ev.values);
                    break;
                default:
                    r.skip(f, w);
            }
        }
    } catch (const MalformedError& e) {
        throw IoError(std::string("malformed Event protobuf: ") + e.what());
    }
    return ev;
}

TfRecordReader::HParams TfRecordReader::parseHParams(std::string_view content) {
    HParams h;
    try {
        WireReader r(content.data(), content.size());
        uint32_t f = 0, w = 0;
        while (r.key(f, w)) {
            switch (f) {
                case 1:
                    r.expect(w, 0, "HParamsPluginData.version");
                    h.version = int64_t(r.varint());
                    break;
                case 2:
                    r.expect(w, 2, "HParamsPluginData.experiment");
                    r.bytes();  // the hparams' and metrics' declared domains: not settings of a run
                    h.kind = HParams::Kind::Experiment;
                    break;
                case 3:
                    r.expect(w, 2, "HParamsPluginData.session_start_info");
                    parseSessionStart(r.bytes(), h);
                    h.kind = HParams::Kind::SessionStart;
                    break;
                case 4:
                    r.expect(w, 2, "HParamsPluginData.session_end_info");
                    parseSessionEnd(r.bytes(), h);
                    h.kind = HParams::Kind::SessionEnd;
                    break;
                default:
                    r.skip(f, w);
            }
        }
    } catch (const MalformedError& e) {
        throw IoError(std::string("malformed hparams plugin data (HParamsPluginData protobuf): ") + e.what());
    }
    return h;
}

std::vector<TfRecordReader::Event> TfRecordReader::readAllEvents(const std::string& path) {
    TfRecordReader reader(path);
    std::vector<Event> events;
    Event ev;
    while (reader.readEvent(ev)) events.push_back(std::move(ev));
    return events;
}

}  // namespace streetgan
