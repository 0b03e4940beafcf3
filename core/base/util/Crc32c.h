// CRC-32C (Castagnoli; reflected polynomial 0x82F63B78), the checksum of iSCSI, ext4 and the
// TFRecord framing of TensorBoard event files, plus TFRecord's "masked" form.
//
// Thread contract: stateless; every function is pure and may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace streetgan {

class Crc32c {
public:
    /// CRC-32C of `size` bytes at `data` (standard init ~0 and final xor ~0).
    /// compute("123456789") == 0xE3069283.
    static uint32_t compute(const void* data, std::size_t size);
    static uint32_t compute(std::string_view bytes);

    /// Continues a CRC: extend(compute(a), b) == compute(a + b); extend(0, b) == compute(b).
    /// Table-driven, slicing-by-8 (8 bytes per step), byte-order independent.
    static uint32_t extend(uint32_t crc, const void* data, std::size_t size);

    /// TFRecord's masked CRC: ((crc >> 15) | (crc << 17)) + 0xa282ead8 (mod 2^32).
    static uint32_t mask(uint32_t crc);
    /// Inverse of mask().
    static uint32_t unmask(uint32_t masked);

    /// mask(compute(data, size)): what a TFRecord stores after its length and after its data.
    static uint32_t masked(const void* data, std::size_t size);
};

}  // namespace streetgan
