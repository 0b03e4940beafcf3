// Builds the binary cache files of core/base (the archive index, the image verdicts): native-endian
// u64 and length-prefixed strings appended to one string, read back by BlobReader.
//
// Thread contract: a value type; one thread at a time.
#pragma once

#include <cstdint>
#include <string>

namespace streetgan {

class BlobWriter {
public:
    explicit BlobWriter(std::string start = {}) : s_(std::move(start)) {}
    void u64(uint64_t v) { s_.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void str(const std::string& x) {
        u64(x.size());
        s_ += x;
    }
    const std::string& bytes() const { return s_; }

private:
    std::string s_;
};

}  // namespace streetgan
