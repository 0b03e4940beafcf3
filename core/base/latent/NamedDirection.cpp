#include "base/latent/NamedDirection.h"

#include <cmath>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"

namespace streetgan {

using nlohmann::json;

json NamedDirection::toJson() const {
    json j = {{"name", name},
              {"label", label},
              {"positive", positive},
              {"z", z},
              {"classifier",
               {{"held_out_accuracy", classifierAccuracy},
                {"train", classifierTrain},
                {"held_out", classifierHeldOut},
                {"discriminator_features", classifierUsedDiscriminator},
                {"positives", labelledPositives},
                {"negatives", labelledNegatives}}},
              {"boundary",
               {{"held_out_accuracy", boundaryAccuracy},
                {"samples", samples},
                {"extremes_per_side", extremesPerSide},
                {"train", boundaryTrain},
                {"held_out", boundaryHeldOut}}}};
    if (!orthogonalTo.empty()) j["orthogonal"] = {{"to", orthogonalTo}, {"held_out_accuracy", orthogonalAccuracy}, {"largest_cosine_before", cosineBefore}};
    return j;
}

NamedDirection NamedDirection::fromJson(const json& j, const std::string& where) {
    auto fail = [&](const std::string& what) -> NamedDirection { throw ConfigError(where + ": " + what); };
    if (!j.is_object()) return fail("is not an object; expected {\"name\", \"label\", \"z\", ...}");
    NamedDirection d;
    try {
        d.name = j.at("name").get<std::string>();
        d.label = j.value("label", std::string());
        d.positive = j.value("positive", std::string());
        const json& z = j.at("z");
        if (!z.is_array() || z.empty()) return fail("'z' must be a non-empty list of numbers");
        for (const auto& v : z) {
            if (!v.is_number() || !std::isfinite(v.get<double>())) return fail("'z' holds " + v.dump() + "; use finite numbers");
            d.z.push_back(v.get<double>());
        }
        if (j.contains("classifier")) {
            const json& c = j.at("classifier");
            d.classifierAccuracy = c.value("held_out_accuracy", 0.0);
            d.classifierTrain = c.value("train", int64_t{0});
            d.classifierHeldOut = c.value("held_out", int64_t{0});
            d.classifierUsedDiscriminator = c.value("discriminator_features", false);
            d.labelledPositives = c.value("positives", int64_t{0});
            d.labelledNegatives = c.value("negatives", int64_t{0});
        }
        if (j.contains("boundary")) {
            const json& b = j.at("boundary");
            d.boundaryAccuracy = b.value("held_out_accuracy", 0.0);
            d.samples = b.value("samples", int64_t{0});
            d.extremesPerSide = b.value("extremes_per_side", int64_t{0});
            d.boundaryTrain = b.value("train", int64_t{0});
            d.boundaryHeldOut = b.value("held_out", int64_t{0});
        }
        if (j.contains("orthogonal")) {
            const json& o = j.at("orthogonal");
            d.orthogonalTo = o.at("to").get<std::vector<std::string>>();
            d.orthogonalAccuracy = o.value("held_out_accuracy", -1.0);
            d.cosineBefore = o.value("largest_cosine_before", 0.0);
        }
    } catch (const json::exception& e) {
        return fail(std::string("a key is missing or of the wrong type (") + e.what() + "); write the file with `streetgan-trainer directions`");
    }
    return d;
}

std::vector<NamedDirection> NamedDirection::readFile(const std::string& path) {
    json j;
    try {
        j = json::parse(AtomicFile::read(path));
    } catch (const json::exception& e) {
        throw ConfigError("directions file '" + path + "' is not valid JSON: " + e.what());
    }
    if (!j.is_object() || !j.contains("directions") || !j.at("directions").is_array())
        throw ConfigError("directions file '" + path + "' has no \"directions\" list; write it with `streetgan-trainer directions --out FILE`");
    std::vector<NamedDirection> out;
    for (size_t i = 0; i < j.at("directions").size(); ++i)
        out.push_back(fromJson(j.at("directions")[i], "directions file '" + path + "': directions[" + std::to_string(i) + "]"));
    return out;
}

}  // namespace streetgan
