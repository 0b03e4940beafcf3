#include "base/util/ContentHash.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "base/util/Errors.h"

namespace streetgan {
namespace {

// One SHA-256 computation through OpenSSL's EVP interface (libcrypto, already in the process
// through libssh), with the digest as lowercase hex.
class Sha256 {
public:
    Sha256() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
        if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) throw Error("OpenSSL cannot start a SHA-256 digest");
    }
    void update(const void* data, std::size_t size) {
        if (size && EVP_DigestUpdate(ctx_.get(), data, size) != 1) throw Error("OpenSSL SHA-256 update failed");
    }
    std::string hex() {
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned int length = 0;
        if (EVP_DigestFinal_ex(ctx_.get(), digest, &length) != 1) throw Error("OpenSSL SHA-256 final failed");
        static const char* kHex = "0123456789abcdef";
        std::string out;
        out.reserve(std::size_t{2} * length);
        for (unsigned int i = 0; i < length; ++i) {
            out += kHex[digest[i] >> 4];
            out += kHex[digest[i] & 15];
        }
        return out;
    }

private:
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
};

}  // namespace

std::string ContentHash::sha256(const void* data, std::size_t size) {
    Sha256 s;
    s.update(data, size);
    return s.hex();
}

std::string ContentHash::sha256File(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw IoError("cannot read '" + path + "' to hash it: " + std::strerror(errno));
    Sha256 s;
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
