#include "base/util/ContentHash.h"

#if STREETGAN_CONTENT_HASH_OPENSSL
#include <openssl/evp.h>
#endif

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "base/util/Errors.h"
#include "base/util/Sha256.h"

namespace streetgan {
namespace {

#if STREETGAN_CONTENT_HASH_OPENSSL
// One SHA-256 computation through OpenSSL's EVP interface (libcrypto, already in the process
// through libssh; it uses the CPU's SHA instructions).
class Digest {
public:
    Digest() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
        if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) throw Error("OpenSSL cannot start a SHA-256 digest");
    }
    void update(const void* data, std::size_t size) {
        if (size && EVP_DigestUpdate(ctx_.get(), data, size) != 1) throw Error("OpenSSL SHA-256 update failed");
    }
    std::string hex() {
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned int length = 0;
        if (EVP_DigestFinal_ex(ctx_.get(), digest, &length) != 1) throw Error("OpenSSL SHA-256 final failed");
        return Sha256::hex(digest, length);
    }

private:
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
};
#else
// A build without OpenSSL (cmake/Vendored.cmake): the same digest from base/util/Sha256.
class Digest {
public:
    void update(const void* data, std::size_t size) { sha_.update(data, size); }
    std::string hex() { return sha_.finishHex(); }

private:
    Sha256 sha_;
};
#endif

}  // namespace

std::string ContentHash::sha256(const void* data, std::size_t size) {
    Digest s;
    s.update(data, size);
    return s.hex();
}

std::string ContentHash::sha256File(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw IoError("cannot read '" + path + "' to hash it: " + std::strerror(errno));
    Digest s;
    std::vector<unsigned char> buf(std::size_t{1} << 20);
    for (;;) {
        const std::size_t n = std::fread(buf.data(), 1, buf.size(), f);
        s.update(buf.data(), n);
        if (n < buf.size()) break;
    }
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) throw IoError("cannot read '" + path + "' to hash it: read error");
    return s.hex();
}

}  // namespace streetgan
