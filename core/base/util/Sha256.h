// SHA-256 (FIPS 180-4) without a library: ContentHash's digest in a build without OpenSSL (the
// vendored host build of the lean trainer, cmake/Vendored.cmake). Where libcrypto is there,
// ContentHash uses it (several times faster with the CPU's SHA instructions) and the tests check
// that both give the same digests.
//
// Thread contract: an instance belongs to one thread; separate instances are independent.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace streetgan {

class Sha256 {
public:
    Sha256();
    void update(const void* data, std::size_t size);
    /// The digest of everything updated so far; the instance is then spent (call nothing else).
    std::array<std::uint8_t, 32> finish();
    /// finish() as 64 lowercase hex digits.
    std::string finishHex();
    /// `size` bytes as lowercase hex (ContentHash's form of a digest, whichever library made it).
    static std::string hex(const std::uint8_t* bytes, std::size_t size);

private:
    void block(const std::uint8_t* p);

    std::array<std::uint32_t, 8> h_;
    std::array<std::uint8_t, 64> buffer_{};
    std::size_t buffered_ = 0;
    std::uint64_t length_ = 0;  // bytes
};

}  // namespace streetgan
