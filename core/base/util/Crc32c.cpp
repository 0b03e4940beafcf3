#include "base/util/Crc32c.h"

namespace streetgan {

namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;  // 0x1EDC6F41 bit-reversed
constexpr uint32_t kMaskDelta = 0xa282ead8u;

// t[0] is the classic byte table; t[k][i] is the CRC of byte i followed by k zero bytes, which
// lets the main loop fold 8 input bytes per step with 8 independent lookups.
struct Tables {
    uint32_t t[8][256];
};

constexpr Tables makeTables() {
    Tables tables{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? (c >> 1) ^ kPolynomial : (c >> 1);
        tables.t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
        for (int k = 1; k < 8; ++k) tables.t[k][i] = (tables.t[k - 1][i] >> 8) ^ tables.t[0][tables.t[k - 1][i] & 0xffu];
    return tables;
}

constexpr Tables kTables = makeTables();
static_assert(kTables.t[0][1] == 0xF26B8303u, "CRC-32C table");

}  // namespace

uint32_t Crc32c::extend(uint32_t crc, const void* data, std::size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    const auto& t = kTables.t;
    uint32_t c = ~crc;
    while (size >= 8) {
        const uint32_t lo = c ^ (uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24);
        c = t[7][lo & 0xffu] ^ t[6][(lo >> 8) & 0xffu] ^ t[5][(lo >> 16) & 0xffu] ^ t[4][lo >> 24] ^ t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
        p += 8;
        size -= 8;
    }
    while (size-- > 0) c = t[0][(c ^ *p++) & 0xffu] ^ (c >> 8);
    return ~c;
}

uint32_t Crc32c::compute(const void* data, std::size_t size) { return extend(0, data, size); }

uint32_t Crc32c::compute(std::string_view bytes) { return extend(0, bytes.data(), bytes.size()); }

uint32_t Crc32c::mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }

uint32_t Crc32c::unmask(uint32_t masked) {
    const uint32_t rot = masked - kMaskDelta;
    return (rot >> 17) | (rot << 15);
}

uint32_t Crc32c::masked(const void* data, std::size_t size) { return mask(compute(data, size)); }

}  // namespace streetgan
