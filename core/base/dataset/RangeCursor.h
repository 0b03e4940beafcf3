// RangeCursor: bytes of one object at any offset, fetched by ranged reads through a read-ahead
// block, for the archive listings' header walks (ZipFormat, TarFormat): a header that lies
// inside the last block costs no request, so a tar of small entries is walked with one GET per
// block rather than one per entry. The fetch function is an S3Client::getRange in S3ArchiveReader,
// the mapped file or the inflated tar.gz stream in ArchiveReader, and a local file in the parsers'
// tests.
//
// Thread contract: one thread at a time (it holds the last block).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace streetgan {

class RangeCursor {
public:
    /// Bytes [offset, offset + length) of the object, fewer at its end.
    using Fetch = std::function<std::string(uint64_t offset, uint64_t length)>;

    RangeCursor(Fetch fetch, uint64_t objectSize, uint64_t readAhead) : fetch_(std::move(fetch)), size_(objectSize), readAhead_(readAhead) {}

    uint64_t objectSize() const { return size_; }
    /// Up to `length` bytes at `offset` (fewer at the end of the object, none past it). The view
    /// is valid until the next call.
    std::string_view bytes(uint64_t offset, uint64_t length) {
        if (offset >= size_ || length == 0) return {};
        length = std::min(length, size_ - offset);
        if (offset < blockStart_ || offset + length > blockStart_ + block_.size()) {
            block_ = fetch_(offset, std::max(length, readAhead_));
            blockStart_ = offset;
            ++requests_;
        }
        const auto from = static_cast<size_t>(offset - blockStart_);
        return std::string_view(block_).substr(from, static_cast<size_t>(std::min<uint64_t>(length, block_.size() - from)));
    }
    /// Ranged reads made so far.
    int requests() const { return requests_; }

private:
    Fetch fetch_;
    uint64_t size_ = 0;
    uint64_t readAhead_ = 0;
    std::string block_;
    uint64_t blockStart_ = 0;
    int requests_ = 0;
};

}  // namespace streetgan
