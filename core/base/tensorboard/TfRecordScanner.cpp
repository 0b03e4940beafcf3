#include "base/tensorboard/TfRecordScanner.h"

#include "base/util/Crc32c.h"

namespace streetgan {
namespace {

uint64_t loadLe(const char* p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
    return v;
}

}  // namespace

bool TfRecordScanner::headerValid(std::string_view buffer, std::size_t at, uint64_t& length) {
    if (buffer.size() - at < 12) return false;
    const char* p = buffer.data() + at;
    if (Crc32c::masked(p, 8) != static_cast<uint32_t>(loadLe(p + 8, 4))) return false;
    length = loadLe(p, 8);
    return length <= kMaxRecordBytes;
}

// The first position after 0 where a record could start: its header checks out and its data,
// when the buffer holds it all, too. Positions whose header needs more bytes than the buffer has
// are kept (the last 11 bytes), so the skip never passes a record that is still arriving.
std::size_t TfRecordScanner::resync(std::string_view buffer) {
    for (std::size_t at = 1; at + 12 <= buffer.size(); ++at) {
        uint64_t length = 0;
        if (!headerValid(buffer, at, length)) continue;
        if (buffer.size() - at < kOverhead + length) return at;  // plausible; its data is still to come
        const char* data = buffer.data() + at + 12;
        if (Crc32c::masked(data, length) == static_cast<uint32_t>(loadLe(data + length, 4))) return at;
    }
    return buffer.size() < 12 ? 1 : buffer.size() - 11;
}

TfRecordScanner::Step TfRecordScanner::next(std::string_view buffer) {
    Step step;
    if (buffer.size() < 12) return step;  // NeedMore
    uint64_t length = 0;
    if (!headerValid(buffer, 0, length)) {
        step.result = Result::Corrupt;
        step.why = Crc32c::masked(buffer.data(), 8) != static_cast<uint32_t>(loadLe(buffer.data() + 8, 4)) ? "length CRC mismatch" : "record length over 1 GiB";
        step.size = resync(buffer);
        return step;
    }
    if (buffer.size() < kOverhead + length) return step;  // NeedMore: a torn record
    const char* data = buffer.data() + 12;
    if (Crc32c::masked(data, length) != static_cast<uint32_t>(loadLe(data + length, 4))) {
        step.result = Result::Corrupt;
        step.why = "data CRC mismatch";
        step.size = resync(buffer);
        return step;
    }
    step.result = Result::Record;
    step.size = kOverhead + static_cast<std::size_t>(length);
    step.data = std::string_view(data, static_cast<std::size_t>(length));
    return step;
}

}  // namespace streetgan
