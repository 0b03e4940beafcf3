// Helpers shared by the DatasetIndex tests of test_index (DatasetIndexTest.cpp,
// DatasetSelectionTest.cpp): a temporary folder, files and fake images, a small MSLS tree, and
// lookups into an index.
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

#include "base/dataset/DatasetIndex.h"

namespace streetgan::test::datasetindex {

namespace fs = std::filesystem;

/// A fresh folder under /tmp, removed (permissions restored first) at the end of the test.
class TempDir {
public:
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "sgidx-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
        fs::permissions(path_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    }
    ~TempDir() {
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(path_, fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (it->is_directory(ec) && !it->is_symlink(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
        }
        fs::remove_all(path_, ec);
    }
    const fs::path& path() const { return path_; }
    std::string str() const { return path_.string(); }

private:
    fs::path path_;
};

inline void writeFile(const fs::path& p, const std::string& bytes) {
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out << bytes;
}

/// A few bytes that start like a JPEG (the index never decodes).
inline void writeImage(const fs::path& p) { writeFile(p, std::string("\xFF\xD8\xFF\xE0") + " - not really a jpeg"); }  // 24 bytes

inline const ImageEntry* findKey(const DatasetIndex& idx, const std::string& key) {
    for (const ImageEntry& e : idx.entries())
        if (e.key == key) return &e;
    return nullptr;
}

inline std::set<std::string> keysOf(const DatasetIndex& idx) {
    std::set<std::string> out;
    for (const ImageEntry& e : idx.entries()) out.insert(e.key);
    return out;
}

inline int64_t reason(const std::map<std::string, int64_t>& m, const std::string& r) {
    auto it = m.find(r);
    return it == m.end() ? 0 : it->second;
}

inline std::string twoDigits(int i) { return (i < 10 ? "0" : "") + std::to_string(i); }

/// A small MSLS tree under root/train_val:
///  amsterdam/database: SEQA frames 0..5 (keys in reverse frame order), SEQB frames 0..3;
///    seq_info.csv with CRLF, quoted fields, an unterminated quote and a short line (2 malformed).
///  amsterdam/query: q0..q2 in SEQQ, plus q3 missing from its seq_info.csv.
///  berlin/database: 4 images, no CSV at all.
///  paris/query: 2 upper-case .JPG images; postprocessed.csv without sequence_key, raw.csv with it.
inline void makeMsls(const fs::path& root) {
    const fs::path ams = root / "train_val" / "amsterdam";
    std::string csv = ",key,sequence_key,frame_number\r\n";
    int row = 0;
    for (int f = 0; f < 6; ++f) {
        const std::string key = "amsA" + twoDigits(5 - f);
        writeImage(ams / "database" / "images" / (key + ".jpg"));
        csv += std::to_string(row++) + ",\"" + key + "\",\"SEQA\"," + std::to_string(f) + "\r\n";
    }
    for (int f = 0; f < 4; ++f) {
        const std::string key = "amsB" + twoDigits(f);
        writeImage(ams / "database" / "images" / (key + ".jpg"));
        csv += std::to_string(row++) + "," + key + ",SEQB," + std::to_string(f) + "\r\n";
    }
    csv += "99,\"broken,SEQZ,1\r\n";  // unterminated quote
    csv += "100,onlykey\r\n";         // too few fields
    csv += "\r\n";
    writeFile(ams / "database" / "seq_info.csv", csv);

    std::string q = ",key,sequence_key,frame_number\n";
    for (int i = 0; i < 4; ++i) {
        writeImage(ams / "query" / "images" / ("amsQ" + std::to_string(i) + ".jpg"));
        if (i < 3) q += std::to_string(i) + ",amsQ" + std::to_string(i) + ",SEQQ," + std::to_string(i) + "\n";
    }
    writeFile(ams / "query" / "seq_info.csv", q);
    writeFile(ams / "query" / "postprocessed.csv", "key,lat,lon\n");

    const fs::path ber = root / "train_val" / "berlin";
    for (int i = 0; i < 4; ++i) writeImage(ber / "database" / "images" / ("ber" + std::to_string(i) + ".jpg"));

    const fs::path par = root / "train_val" / "paris";
    writeImage(par / "query" / "images" / "par0.JPG");
    writeImage(par / "query" / "images" / "par1.JPG");
    writeFile(par / "query" / "postprocessed.csv", ",key,lat,lon,ca,captured_at,pano,night\n0,par0,1,2,3,4,False,False\n");
    writeFile(par / "query" / "raw.csv", "key,lon,lat,sequence_key\npar0,1,2,SEQP\npar1,1,2,SEQP\n");
}

using SortKey = std::tuple<std::string, std::string, int64_t, std::string, std::string>;
inline SortKey sortKey(const ImageEntry& e) { return {e.city, e.sequence, e.frame, e.key, e.path}; }

}  // namespace streetgan::test::datasetindex
