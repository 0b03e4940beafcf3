// The labels of MSLS (Mapillary Street-Level Sequences) images, read from its metadata: per
// `<city>/{database,query}/` folder, postprocessed.csv gives `night` (true/false), `view_direction`
// (forward/sideways/backward) and `control_panel` (true/false); raw.csv gives `season`
// (winter/spring/summer/autumn from captured_at's month, flipped south of the equator by lat's
// sign); the folder above database/query gives `city` (for every image in images/ and every CSV
// row). The root may be the MSLS top folder, train_val (or test), a city folder, or one
// database/query folder, as for DatasetIndex; keys are the image keys DatasetIndex uses.
//
// Column names: both spellings of MSLS's metadata are accepted. The README of
// mapillary/mapillary_sls lists postprocessed.csv's columns first as `day/night` and
// `qualitative_view_direction` (values forward, backward, sidewards) and later as `night` and
// `view_direction` (values Forward, Backward, Sideways); the files of the release carry the
// latter. Beyond those, names are matched ignoring case, spaces, '_' and '-' ("View Direction",
// "viewDirection", "captured-at"): no evidence of such files was found, it is leniency.
// Booleans: true/false, 1/0 (also 1.0/0.0), yes/no, t/f, and day/night for the night column.
//
// Bad input never throws and never drops a whole file: a missing column leaves its label absent
// for that file's rows, with one problem line naming the file and the column; malformed rows
// (field count unlike the header's, an unparsable number, an unknown boolean or view direction,
// an empty key) are counted per file and reported in one line naming the first few by line
// number; the row's good fields are still read (a row with the wrong field count is not).
// Quoted fields (RFC 4180 within a line), CRLF and a UTF-8 BOM are accepted (SequenceCsv's rules).
//
// Thread contract: stateless; every function is reentrant.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/dataset/ImageLabels.h"

namespace streetgan {

class ArchiveReader;

class MslsLabelReader {
public:
    /// The labels of every database/query folder below `root` (hidden folders, __MACOSX and
    /// directory symlinks are not entered). Throws IoError when `root` is not a readable folder.
    static ImageLabels readFolder(const std::string& root);
    /// The labels of an MSLS batch read in place (zip, tar, tar.gz: the downloaded form): every
    /// entry `.../<city>/{database,query}/images/<key>.<ext>` gets its city, every
    /// `.../<city>/{database,query}/{postprocessed,raw}.csv` is read as in a folder. A batch of
    /// images alone has only the city labels (one problem line says so). Throws as ArchiveReader
    /// does (IoError, DataError) for a file that is no readable archive.
    static ImageLabels readArchive(const ArchiveReader& archive);
    /// readFolder for a folder, readArchive for a file (what `--data` names).
    static ImageLabels read(const std::string& data);

    /// One postprocessed.csv's text: night, view_direction, control_panel and `city` of its
    /// rows into `out`; `path` names the file in problem lines.
    static void readPostprocessed(std::string_view text, const std::string& path, const std::string& city, ImageLabels& out);
    /// One raw.csv's text: season and `city` of its rows into `out`.
    static void readRaw(std::string_view text, const std::string& path, const std::string& city, ImageLabels& out);

    /// The season of a capture in `month` (1..12) at `latitude`: Dec-Feb winter, Mar-May spring,
    /// Jun-Aug summer, Sep-Nov autumn north of the equator (latitude >= 0); south of it winter and
    /// summer swap, and spring and autumn.
    static std::string season(int month, double latitude);
    /// The UTC month (1..12) of a captured_at value: milliseconds since 1970 (MSLS), seconds when
    /// below 1e11 (no MSLS capture is from before 1973 in ms, nor after 5000 in s), or an ISO date
    /// "YYYY-MM-DD..."; nullopt when unparsable.
    static std::optional<int> captureMonth(std::string_view text);
    /// true/false, 1/0, 1.0/0.0, yes/no, t/f (any case); nullopt otherwise.
    static std::optional<bool> parseBool(std::string_view text);
    /// forward / sideways / backward from Forward, Sideways, sidewards, Backward, ... (any case);
    /// nullopt otherwise.
    static std::optional<std::string> parseViewDirection(std::string_view text);
    /// A column name as matched: lower case, without spaces, '_' and '-'.
    static std::string normalizeColumn(std::string_view name);
};

}  // namespace streetgan
