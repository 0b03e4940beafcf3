// Internal to DatasetIndex: one MSLS sequence CSV (seq_info.csv, postprocessed.csv or raw.csv)
// read into key -> (sequence_key, frame_number). Tolerant: columns are found by name, quoted
// fields (RFC 4180 within a line), CRLF and a UTF-8 BOM are accepted, malformed lines are counted
// and skipped. Which file of a database/ or query/ folder is used is DatasetIndex's choice.
// Thread contract: stateless; every function is pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace streetgan {

class SequenceCsv {
public:
    struct Row {
        std::string sequence;
        int64_t frame = -1;
    };
    using Table = std::unordered_map<std::string, Row>;

    /// Reads a sequence CSV into `rows` (first row of a key wins). Returns false when the header
    /// lacks a key or sequence_key column (then `rows` is untouched).
    static bool parse(std::string_view text, Table& rows, int64_t& malformed);
    /// Parses one CSV record (RFC 4180 quoting within a line; fields trimmed of blanks).
    /// Returns false for an unterminated quote or text after a closing quote.
    static bool parseLine(std::string_view s, std::vector<std::string>& out);
    /// "12", "12.0", " 7 " -> the integer; anything else -> -1.
    static int64_t parseFrame(std::string_view s);
};

}  // namespace streetgan
