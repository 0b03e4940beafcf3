#include "base/dataset/DatasetSelection.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "base/dataset/DatasetNames.h"

namespace streetgan {

using namespace dataset_names;

DatasetSelection::Result DatasetSelection::select(std::vector<ImageEntry> all, const std::map<std::string, int64_t>& foundCities, const IndexOptions& options) {
    Result r;
    // City filter.
    std::set<std::string> include, exclude;
    for (const std::string& c : options.includeCities) include.insert(toLower(c));
    for (const std::string& c : options.excludeCities) exclude.insert(toLower(c));
    {
        std::set<std::string> foundLower;
        for (const auto& [city, count] : foundCities) foundLower.insert(toLower(city));
        for (const std::string& c : options.includeCities)
            if (!foundLower.count(toLower(c))) r.unmatched.push_back(c);
    }
    r.dropped[kDroppedCity] = 0;
    r.dropped[kDroppedCap] = 0;
    r.dropped[kDroppedSplit] = 0;
    if (!include.empty() || !exclude.empty()) {
        const size_t before = all.size();
        all.erase(std::remove_if(all.begin(), all.end(),
                                 [&](const ImageEntry& e) {
                                     const std::string c = toLower(e.city);
                                     return (!include.empty() && !include.count(c)) || exclude.count(c);
                                 }),
                  all.end());
        r.dropped[kDroppedCity] = static_cast<int64_t>(before - all.size());
    }

    // Deterministic order.
    std::sort(all.begin(), all.end(), [](const ImageEntry& a, const ImageEntry& b) {
        return std::tie(a.city, a.sequence, a.frame, a.key, a.path) < std::tie(b.city, b.sequence, b.frame, b.key, b.path);
    });

    // Split by key hash, cap training images per sequence, select.
    const size_t n = all.size();
    std::vector<char> isVal(n), keep(n, 1);
    for (size_t i = 0; i < n; ++i) isVal[i] = DatasetIndex::isValidationKey(all[i].key, options.validationPercent) ? 1 : 0;
    if (options.maxPerSequence > 0) {
        const size_t cap = static_cast<size_t>(options.maxPerSequence);
        std::vector<size_t> train;
        size_t g = 0;
        while (g < n) {
            size_t h = g + 1;
            while (h < n && all[h].city == all[g].city && all[h].sequence == all[g].sequence) ++h;
            if (!all[g].sequence.empty()) {
                train.clear();
                for (size_t i = g; i < h; ++i)
                    if (!isVal[i]) train.push_back(i);
                const size_t m = train.size();
                if (m > cap) {
                    for (size_t i : train) keep[i] = 0;
                    // Centres of cap equal parts of the sequence: evenly spread, distinct, deterministic.
                    for (size_t j = 0; j < cap; ++j) keep[train[(2 * j + 1) * m / (2 * cap)]] = 1;
                    r.dropped[kDroppedCap] += static_cast<int64_t>(m - cap);
                }
            }
            g = h;
        }
    }
    r.entries.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        if (!keep[i]) continue;
        (isVal[i] ? r.validation : r.train) += 1;
        const bool wanted = options.split == IndexOptions::Split::All || (options.split == IndexOptions::Split::Validation) == (isVal[i] != 0);
        if (wanted)
            r.entries.push_back(std::move(all[i]));
        else
            ++r.dropped[kDroppedSplit];
    }
    return r;
}

}  // namespace streetgan
