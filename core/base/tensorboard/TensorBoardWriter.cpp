#include "base/tensorboard/TensorBoardWriter.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <system_error>

#if defined(_WIN32)
#include <cstdlib>
#else
#include <unistd.h>
#endif

#include "base/util/Crc32c.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {

namespace fs = std::filesystem;

constexpr char kFileVersion[] = "brain.Event:2";
constexpr std::size_t kBufferBytes = std::size_t{64} * 1024;

// --- protobuf wire format (https://protobuf.dev/programming-guides/encoding/) -------------------
enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// Field numbers from tensorflow/core/util/event.proto and framework/summary.proto.
namespace EventField {
constexpr uint32_t kWallTime = 1, kStep = 2, kFileVersion = 3, kSummary = 5;
}
namespace SummaryField {
constexpr uint32_t kValue = 1;
}
namespace ValueField {
constexpr uint32_t kTag = 1, kSimpleValue = 2, kImage = 4;
}
namespace ImageField {
constexpr uint32_t kHeight = 1, kWidth = 2, kColorspace = 3, kEncoded = 4;
}

void putVarint(std::string& out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

void putKey(std::string& out, uint32_t field, WireType type) { putVarint(out, (uint64_t(field) << 3) | type); }

void putFixed32(std::string& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}

void putFixed64(std::string& out, uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}

// int32/int64 fields: negative values are sign-extended to 64 bits (10-byte varint).
void putVarintField(std::string& out, uint32_t field, int64_t v) {
    putKey(out, field, kVarint);
    putVarint(out, static_cast<uint64_t>(v));
}

void putDoubleField(std::string& out, uint32_t field, double v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    putKey(out, field, kFixed64);
    putFixed64(out, bits);
}

void putFloatField(std::string& out, uint32_t field, float v) {
    uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    putKey(out, field, kFixed32);
    putFixed32(out, bits);
}

void putBytesField(std::string& out, uint32_t field, std::string_view bytes) {
    putKey(out, field, kLengthDelimited);
    putVarint(out, bytes.size());
    out.append(bytes.data(), bytes.size());
}

// Event{wall_time, step, summary{value: <valueMessage>}}. Step 0 is omitted (proto3 default).
std::string summaryEvent(double wallTime, int64_t step, const std::string& valueMessage) {
    std::string summary;
    summary.reserve(valueMessage.size() + 8);
    putBytesField(summary, SummaryField::kValue, valueMessage);

    std::string event;
    event.reserve(summary.size() + 32);
    putDoubleField(event, EventField::kWallTime, wallTime);
    if (step != 0) putVarintField(event, EventField::kStep, step);
    putBytesField(event, EventField::kSummary, summary);
    return event;
}

std::string hostName() {
    std::string name;
#if defined(_WIN32)
    if (const char* env = std::getenv("COMPUTERNAME")) name = env;
#else
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) == 0) name = buf;
#endif
    for (char& c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        if (!ok) c = '_';
    }
    return name.empty() ? std::string("localhost") : name;
}

std::string errorText(int err) { return std::error_code(err, std::generic_category()).message(); }

}  // namespace

void TensorBoardWriter::FileCloser::operator()(std::FILE* f) const {
    if (f) std::fclose(f);  // flushes; errors are swallowed here by contract (see flush())
}

TensorBoardWriter::TensorBoardWriter(const std::string& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        throw IoError("cannot create TensorBoard directory '" + dir + "': " + (ec ? ec.message() : std::string("not a directory")));

    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const double wallTime = std::chrono::duration<double>(now).count();
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now).count();
    const std::string base = (fs::path(dir) / ("events.out.tfevents." + std::to_string(seconds) + "." + hostName())).string();

    // Exclusive creation ("x"): never clobber another writer's file from the same second.
    for (int n = 0; !file_; ++n) {
        const std::string candidate = n == 0 ? base : base + "." + std::to_string(n);
        errno = 0;
        std::FILE* f = std::fopen(candidate.c_str(), "wbx");
        if (f) {
            file_.reset(f);
            path_ = candidate;
        } else if (errno != EEXIST || n >= 1000) {
            throw IoError("cannot create TensorBoard event file '" + candidate + "': " + errorText(errno));
        }
    }
    std::setvbuf(file_.get(), nullptr, _IOFBF, kBufferBytes);

    std::string event;
    putDoubleField(event, EventField::kWallTime, wallTime);
    putBytesField(event, EventField::kFileVersion, kFileVersion);
    writeRecord(event);
    flush();
}

TensorBoardWriter::~TensorBoardWriter() = default;
TensorBoardWriter::TensorBoardWriter(TensorBoardWriter&&) noexcept = default;
TensorBoardWriter& TensorBoardWriter::operator=(TensorBoardWriter&&) noexcept = default;

void TensorBoardWriter::addScalar(const std::string& tag, float value, int64_t step, double wallTime) {
    std::string v;
    v.reserve(tag.size() + 16);
    putBytesField(v, ValueField::kTag, tag);
    putFloatField(v, ValueField::kSimpleValue, value);
    writeRecord(summaryEvent(wallTime, step, v));
}

void TensorBoardWriter::addImage(const std::string& tag, const std::string& pngBytes, int height, int width, int channels, int64_t step, double wallTime) {
    if (channels < 1 || channels > 4) throw std::invalid_argument("TensorBoardWriter::addImage: channels must be 1..4, got " + std::to_string(channels));
    if (height < 0 || width < 0) throw std::invalid_argument("TensorBoardWriter::addImage: negative image size");

    std::string image;
    image.reserve(pngBytes.size() + 32);
    putVarintField(image, ImageField::kHeight, height);
    putVarintField(image, ImageField::kWidth, width);
    putVarintField(image, ImageField::kColorspace, channels);  // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
    putBytesField(image, ImageField::kEncoded, pngBytes);

    std::string v;
    v.reserve(image.size() + tag.size() + 16);
    putBytesField(v, ValueField::kTag, tag);
    putBytesField(v, ValueField::kImage, image);
    writeRecord(summaryEvent(wallTime, step, v));
}

void TensorBoardWriter::flush() {
    if (!file_) throw IoError("TensorBoard event file '" + path_ + "' is closed (moved from)");
    errno = 0;
    if (std::fflush(file_.get()) != 0 || std::ferror(file_.get())) throwWriteError(errno);
}

std::string TensorBoardWriter::path() const { return path_; }

void TensorBoardWriter::writeRecord(const std::string& data) {
    if (!file_) throw IoError("TensorBoard event file '" + path_ + "' is closed (moved from)");
    // TFRecord: uint64 length, uint32 masked crc32c(length bytes), data, uint32 masked crc32c(data).
    std::string header;
    header.reserve(12);
    putFixed64(header, data.size());
    putFixed32(header, Crc32c::masked(header.data(), 8));
    std::string footer;
    footer.reserve(4);
    putFixed32(footer, Crc32c::masked(data.data(), data.size()));

    std::FILE* f = file_.get();
    if (std::ferror(f)) throwWriteError(0);  // sticky: a record after a failed one would follow torn bytes
    errno = 0;
    if (std::fwrite(header.data(), 1, header.size(), f) != header.size() || (!data.empty() && std::fwrite(data.data(), 1, data.size(), f) != data.size()) ||
        std::fwrite(footer.data(), 1, footer.size(), f) != footer.size())
        throwWriteError(errno);
}

void TensorBoardWriter::throwWriteError(int err) const {
    throw IoError("cannot write TensorBoard event file '" + path_ + "': " + (err != 0 ? errorText(err) : std::string("an earlier write failed")));
}

}  // namespace streetgan
