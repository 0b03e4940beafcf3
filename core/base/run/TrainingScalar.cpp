#include "base/run/TrainingScalar.h"

namespace streetgan {

const std::array<TrainingScalar::Spec, TrainingScalar::kCount>& TrainingScalar::all() {
#define STREETGAN_TRAINING_SCALAR_SPEC(key, member, field, label, unit, referenceTag, group, source, written) \
    Spec{Key::key, field, label, unit, referenceTag, Group::group, Source::source, Written::written},
    static constexpr std::array<Spec, kCount> kAll = {{STREETGAN_TRAINING_SCALARS(STREETGAN_TRAINING_SCALAR_SPEC)}};
#undef STREETGAN_TRAINING_SCALAR_SPEC
    return kAll;
}

std::optional<TrainingScalar::Key> TrainingScalar::forTag(std::string_view tag) {
    for (const Spec& s : all())
        if (tag == s.field || (s.referenceTag && tag == s.referenceTag)) return s.key;
    return std::nullopt;
}

std::size_t TrainingScalar::stepMeanCount() {
    std::size_t n = 0;
    for (const Spec& s : all()) n += s.source == Source::StepMean ? 1 : 0;
    return n;
}

const char* TrainingScalar::groupTitle(Group group) {
    switch (group) {
        case Group::Losses:
            return "Loss";
        case Group::DOutputs:
            return "D outputs";
        case Group::Throughput:
            return "Images/s";
        case Group::DataWait:
            return "Data wait (fraction of step time)";
        case Group::LearningRate:
            return "Learning rate";
        case Group::GradientNorms:
            return "Gradient norms";
    }
    return "";
}

}  // namespace streetgan
