// Internal to DatasetIndex: the human-readable table of a stats() document
// (DatasetIndex::formatStatsTable), and the locale-independent number texts it shares with
// DatasetIndex's error messages.
// Thread contract: stateless; every function is pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace streetgan {

class DatasetStatsTable {
public:
    /// See DatasetIndex::formatStatsTable.
    static std::string format(const nlohmann::json& stats);
    /// A percent option as given: "5" for 5.0, else the shortest JSON text ("2.5").
    static std::string percentOptionText(double p);
};

}  // namespace streetgan
