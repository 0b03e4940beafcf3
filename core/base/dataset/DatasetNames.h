// Internal to the dataset index (DatasetIndex and its helpers FolderLister, SequenceCsv,
// DatasetSelection): how listing paths and file names are read (components, extensions, stems,
// hidden folders, the sequence CSV names), and the names of the reasons that skipped(),
// warnings() and dropped() count under (listed in DatasetIndex.h). Free functions and constants
// in a namespace of their own: they are one small vocabulary, not a class.
// Thread contract: constants and pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace streetgan::dataset_names {

// skipped(): bad input
inline constexpr const char* kEmptyFile = "empty file";
inline constexpr const char* kHiddenFile = "hidden file";
inline constexpr const char* kUnsupported = "unsupported image format";
inline constexpr const char* kUnreadableFile = "unreadable file";
inline constexpr const char* kNotRegular = "not a regular file";
inline constexpr const char* kUnreadableFolder = "unreadable folder";
inline constexpr const char* kHiddenFolder = "hidden folder";
inline constexpr const char* kDirSymlink = "directory symlink";
/// A symbolic or hard link entry of a zip or tar (never followed, never extracted).
inline constexpr const char* kArchiveLink = "link in archive";
/// An entry whose path climbs out of the root with "..".
inline constexpr const char* kOutsideRoot = "path leaving the root (..)";
/// An archive entry cut short by the end of a truncated archive (or corrupt where it lies).
inline constexpr const char* kTruncatedEntry = "truncated archive entry";

// warnings(): CSV problems
inline constexpr const char* kMalformedCsv = "malformed csv line";
inline constexpr const char* kUnreadableCsv = "unreadable csv";
inline constexpr const char* kCsvNoColumns = "csv missing key or sequence_key column";
inline constexpr const char* kNoSequenceCsv = "no sequence csv";
inline constexpr const char* kNotInCsv = "image not in sequence csv";

// dropped(): selection steps
inline constexpr const char* kDroppedCity = "excluded city";
inline constexpr const char* kDroppedCap = "sequence cap";
inline constexpr const char* kDroppedSplit = "other split";

inline constexpr const char* kRootName = "(root)";
/// The sequence CSVs, in order of preference.
inline constexpr const char* kCsvNames[] = {"seq_info.csv", "postprocessed.csv", "raw.csv"};

std::string toLower(std::string_view s);
/// `s` without leading and trailing blanks (space, tab, CR).
std::string_view trim(std::string_view s);
/// Splits a '/'-separated path into components, dropping empty and "." ones.
std::vector<std::string> splitPath(std::string_view p);
/// comps[begin, end) joined with '/'.
std::string joinPath(const std::vector<std::string>& comps, size_t begin, size_t end);
/// Lower-case extension after the last '.', "" when none.
std::string extensionOf(std::string_view name);
/// `name` without its last extension (a leading '.' is not one).
std::string stemOf(std::string_view name);
/// jpg, jpeg, png, webp (lower-case extensions as extensionOf gives them).
bool isImageExtension(const std::string& ext);
/// Image formats the loader does not decode (counted as "unsupported image format").
bool isUnsupportedImageExtension(const std::string& ext);
/// One of kCsvNames, case-insensitive.
bool isSequenceCsvName(std::string_view name);
/// A folder the walk does not enter: starts with '.' or is __MACOSX.
bool isHiddenFolderName(std::string_view name);

}  // namespace streetgan::dataset_names
