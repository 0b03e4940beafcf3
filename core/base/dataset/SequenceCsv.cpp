#include "base/dataset/SequenceCsv.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "base/dataset/DatasetNames.h"

namespace streetgan {

using dataset_names::toLower;
using dataset_names::trim;

bool SequenceCsv::parse(std::string_view text, Table& rows, int64_t& malformed) {
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    std::vector<std::string> fields;
    long keyCol = -1, seqCol = -1, frameCol = -1;
    bool haveHeader = false;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t e = text.find('\n', pos);
        if (e == std::string_view::npos) e = text.size();
        std::string_view line = text.substr(pos, e - pos);
        pos = e + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (trim(line).empty()) continue;
        if (!haveHeader) {
            if (!parseLine(line, fields)) return false;
            for (size_t c = 0; c < fields.size(); ++c) {
                const std::string name = toLower(trim(fields[c]));
                if (name == "key" && keyCol < 0) keyCol = static_cast<long>(c);
                if (name == "sequence_key" && seqCol < 0) seqCol = static_cast<long>(c);
                if (name == "frame_number" && frameCol < 0) frameCol = static_cast<long>(c);
            }
            if (keyCol < 0 || seqCol < 0) return false;
            haveHeader = true;
            continue;
        }
        if (!parseLine(line, fields) || static_cast<long>(fields.size()) <= std::max(keyCol, seqCol)) {
            ++malformed;
            continue;
        }
        const std::string& key = fields[static_cast<size_t>(keyCol)];
        const std::string& seq = fields[static_cast<size_t>(seqCol)];
        if (key.empty() || seq.empty()) {
            ++malformed;
            continue;
        }
        Row row{seq, -1};
        if (frameCol >= 0 && static_cast<size_t>(frameCol) < fields.size()) row.frame = parseFrame(fields[static_cast<size_t>(frameCol)]);
        rows.emplace(key, std::move(row));
    }
    return haveHeader;
}

bool SequenceCsv::parseLine(std::string_view s, std::vector<std::string>& out) {
    out.clear();
    size_t i = 0;
    const size_t n = s.size();
    for (;;) {
        std::string field;
        size_t j = i;
        while (j < n && (s[j] == ' ' || s[j] == '\t')) ++j;
        if (j < n && s[j] == '"') {
            ++j;
            bool closed = false;
            while (j < n) {
                if (s[j] == '"') {
                    if (j + 1 < n && s[j + 1] == '"') {
                        field += '"';
                        j += 2;
                    } else {
                        closed = true;
                        ++j;
                        break;
                    }
                } else {
                    field += s[j++];
                }
            }
            if (!closed) return false;
            while (j < n && (s[j] == ' ' || s[j] == '\t')) ++j;
            if (j < n && s[j] != ',') return false;
        } else {
            size_t e = s.find(',', i);
            if (e == std::string_view::npos) e = n;
            field = std::string(trim(s.substr(i, e - i)));
            j = e;
        }
        out.push_back(std::move(field));
        if (j >= n) break;
        i = j + 1;
    }
    return true;
}

int64_t SequenceCsv::parseFrame(std::string_view s) {
    s = trim(s);
    int64_t v = -1;
    const char* b = s.data();
    const char* e = s.data() + s.size();
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p == b) return -1;
    if (p != e) {
        if (*p != '.') return -1;
        for (++p; p != e; ++p)
            if (*p != '0') return -1;
    }
    return v < 0 ? -1 : v;
}

}  // namespace streetgan
