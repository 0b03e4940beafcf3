// Splits bytes of a TFRecord file (a TensorBoard event file), read from a record boundary on,
// into records, for readers that get a file in pieces (a growing local file, SFTP reads):
// TensorBoardFollower. Each step says what the front of the buffer holds: a whole record with
// both masked CRC-32Cs verified, too few bytes yet (a torn record waits for its rest), or bytes
// that are no record (a CRC mismatch, an absurd length): then how many bytes to skip to the next
// position where a record header checks out, so that one bad record never stops the reading of
// the rest. TfRecordReader does the same for a whole local file through a stream.
//
// Plain functions of their arguments; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace streetgan {

class TfRecordScanner {
public:
    enum class Result {
        Record,    ///< `size` bytes hold a record; `data` is its payload
        NeedMore,  ///< the buffer ends inside a record (or holds none yet)
        Corrupt,   ///< not a record: skip `size` bytes (> 0); `why` says what was wrong
    };
    struct Step {
        Result result = Result::NeedMore;
        std::size_t size = 0;
        std::string_view data;
        std::string why;
    };

    /// Framing overhead of a record: the 8-byte length, its CRC and the data's CRC.
    static constexpr std::size_t kOverhead = 16;
    /// A record announcing more than this is taken as corrupt (event records are kilobytes; an
    /// image a few megabytes).
    static constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 30;

    /// What the front of `buffer` holds.
    static Step next(std::string_view buffer);

private:
    static bool headerValid(std::string_view buffer, std::size_t at, uint64_t& length);
    static std::size_t resync(std::string_view buffer);
};

}  // namespace streetgan
