// One image of a data set index (see DatasetIndex): where it is and how it is grouped.
// A plain value type: copy and share freely; no invariants beyond the field comments.
#pragma once

#include <cstdint>
#include <string>

namespace streetgan {

struct ImageEntry {
    /// Path relative to the index root, '/'-separated (e.g. "train_val/sf/query/images/ab12.jpg").
    std::string path;
    /// File name without its last extension: the MSLS image key. Drives the train/validation split.
    std::string key;
    /// MSLS city folder name; in a plain folder the first-level subfolder, or "(root)".
    std::string city;
    /// MSLS sequence_key from the city's CSV files ("" when the image has no CSV row);
    /// in a plain folder the image's own folder relative to the root, or "(root)".
    std::string sequence;
    /// Position in the sequence (MSLS frame_number); -1 when unknown.
    int64_t frame = -1;
    /// File size in bytes (never 0: empty files are skipped).
    uint64_t size = 0;
    /// Modification time in ns since the epoch (folders; 0 for archive entries, whose archive's
    /// own identity keys them). With `size` it keys the image's cached verdict (ImageVerdictCache).
    int64_t mtimeNs = 0;
};

}  // namespace streetgan
