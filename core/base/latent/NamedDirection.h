// One named direction learnt from labels (issue 44 item 2; torch-free, so the app reads the file too): its name, what it was fitted on, the
// unit normal in z and the accuracies that say how far to trust it. Made by DirectionFitter,
// written by `streetgan-trainer directions --out FILE` (one JSON document holding a list of them,
// docs/cli.md "directions") and read back by fromJson (the explorer's named sliders; a session's
// "named_directions" carries only name, z and amount: NamedDirectionEdit).
//
// Thread contract: a plain value type; no shared state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace streetgan {

struct NamedDirection {
    std::string name;       ///< "night", "sideways", "winter", "berlin", "camera_height"
    std::string label;      ///< the label it was fitted on ("night", "view_direction", "city")
    std::string positive;   ///< the side it points to, in words ("true", "sideways", "> 1.6 (median)")
    std::vector<double> z;  ///< unit vector in z (nz numbers): + amount moves towards `positive`

    double classifierAccuracy = 0;  ///< balanced held-out accuracy of the label classifier
    int64_t classifierTrain = 0, classifierHeldOut = 0;
    bool classifierUsedDiscriminator = false;
    int64_t labelledPositives = 0, labelledNegatives = 0;

    int64_t samples = 0;          ///< generated samples scored
    int64_t extremesPerSide = 0;  ///< the most and the least typical share of them, each
    double boundaryAccuracy = 0;  ///< balanced held-out accuracy of the boundary in z
    int64_t boundaryTrain = 0, boundaryHeldOut = 0;

    std::vector<std::string> orthogonalTo;  ///< names it was made orthogonal to (empty: none)
    double orthogonalAccuracy = -1;         ///< held-out accuracy along the orthogonalised z (-1: not made)
    double cosineBefore = 0;                ///< largest |cos| to those directions before (0: none)

    nlohmann::json toJson() const;
    /// ConfigError naming `where` (e.g. "FILE: directions[2]") and the key for ill-typed input.
    static NamedDirection fromJson(const nlohmann::json& j, const std::string& where);
    /// The directions of a `directions --out` file (IoError / ConfigError naming the file).
    static std::vector<NamedDirection> readFile(const std::string& path);
};

}  // namespace streetgan
