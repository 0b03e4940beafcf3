// SHA-256 (FIPS 180-4) of bytes and of files, as lowercase hex: the identity of a checkpoint or a
// feature model file in session files, cache keys and events. Computed by OpenSSL's libcrypto, or
// by base/util/Sha256 in a build without it (the same digest).
//
// Thread contract: stateless; every function may be called from any thread.
#pragma once

#include <cstddef>
#include <string>

namespace streetgan {

class ContentHash {
public:
    /// SHA-256 of `size` bytes at `data`: 64 lowercase hex digits.
    /// sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".
    static std::string sha256(const void* data, std::size_t size);
    static std::string sha256(const std::string& bytes) { return sha256(bytes.data(), bytes.size()); }
    /// SHA-256 of a file's content, read in 1 MiB pieces (memory stays small for any size).
    /// Throws IoError naming the path when it cannot be read.
    static std::string sha256File(const std::string& path);
};

}  // namespace streetgan
