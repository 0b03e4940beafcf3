// Reads what BlobWriter wrote, never past the end: a short or damaged blob clears ok() and every
// later read returns 0 or "" (callers check ok() once, after reading everything they need).
//
// Thread contract: a value type over a string the caller keeps alive; one thread at a time.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace streetgan {

class BlobReader {
public:
    BlobReader(const std::string& s, size_t offset) : s_(s), p_(offset > s.size() ? s.size() : offset) {}
    uint64_t u64() {
        uint64_t v = 0;
        if (!ok_ || s_.size() - p_ < sizeof v) {
            ok_ = false;
            return 0;
        }
        std::memcpy(&v, s_.data() + p_, sizeof v);
        p_ += sizeof v;
        return v;
    }
    std::string str() {
        const uint64_t n = u64();
        if (!ok_ || n > s_.size() - p_) {
            ok_ = false;
            return {};
        }
        std::string r = s_.substr(p_, static_cast<size_t>(n));
        p_ += static_cast<size_t>(n);
        return r;
    }
    bool ok() const { return ok_; }
    /// Marks the blob damaged (a value read is out of range): ok() is false from now on.
    void fail() { ok_ = false; }
    bool atEnd() const { return p_ == s_.size(); }

private:
    const std::string& s_;
    size_t p_;
    bool ok_ = true;
};

}  // namespace streetgan
