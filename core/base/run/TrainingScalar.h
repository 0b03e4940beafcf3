// The training scalars, in one table: what a metrics event carries besides its stamp (losses, D's
// outputs, learning rate, throughput, data wait, gradient norms). Each row is the one place a
// scalar is declared; from it come MetricsEvent's member, the event field and its EventField
// constant (Events.h), the schema's read and write (Events.cpp, EventFieldBag.h), the averaging
// over steps and ranks (TrainStep, TrainingRun), the TensorBoard tags written and followed
// (TrainingRun, TensorBoardFollower), the app's columns (ui/events: Metric is TrainingScalar::Key)
// and the dashboard's panels (the plot group). Another scalar is one row here plus the code that
// measures it (for a StepMean scalar: TrainStep::step's value for its key).
// Plain data; any thread.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

// X(Key, MetricsEvent member, event field, label, unit, the reference project's TensorBoard tag
//   (nullptr: none), plot group, source, written)
// source: StepMean (TrainStep averages it over the steps of a log interval, TrainingRun over the
//   ranks) or Interval (TrainingRun measures it over the interval).
// written: Always (written even when unknown, as null: the first eight, which every reader since
//   the first release expects) or IfMeasured (written only when a number; an older line lacks it).
// The order is the order of a metrics line's members and of the app's columns.
#define STREETGAN_TRAINING_SCALARS(X)                                                                    \
    X(LossD, lossD, "loss_d", "loss D", "", "D_loss", Losses, StepMean, Always)                          \
    X(LossG, lossG, "loss_g", "loss G", "", "G_loss", Losses, StepMean, Always)                          \
    X(DX, dX, "d_x", "D(x)", "", "D_X", DOutputs, StepMean, Always)                                      \
    X(DGz1, dGz1, "d_g_z1", "D(G(z)) before D step", "", "D_G_z1", DOutputs, StepMean, Always)           \
    X(DGz2, dGz2, "d_g_z2", "D(G(z)) after D step", "", "D_G_z2", DOutputs, StepMean, Always)            \
    X(Lr, lr, "lr", "learning rate", "", nullptr, LearningRate, Interval, Always)                        \
    X(ImgPerS, imgPerS, "img_per_s", "images/s", "img/s", nullptr, Throughput, Interval, Always)         \
    X(DataWait, dataWait, "data_wait", "data wait", "of step time", nullptr, DataWait, Interval, Always) \
    X(GradNormD, gradNormD, "grad_norm_d", "‖∇D‖", "", nullptr, GradientNorms, StepMean, IfMeasured)     \
    X(GradNormG, gradNormG, "grad_norm_g", "‖∇G‖", "", nullptr, GradientNorms, StepMean, IfMeasured)

namespace streetgan {

class TrainingScalar {
public:
    enum class Key {
#define STREETGAN_TRAINING_SCALAR_KEY(key, ...) key,
        STREETGAN_TRAINING_SCALARS(STREETGAN_TRAINING_SCALAR_KEY)
#undef STREETGAN_TRAINING_SCALAR_KEY
    };
    /// The dashboard's Training tab: one plot per group that has a scalar, in this order.
    enum class Group { Losses, DOutputs, GradientNorms, Throughput, DataWait, LearningRate };
    enum class Source { StepMean, Interval };
    enum class Written { Always, IfMeasured };

    struct Spec {
        Key key;
        const char* field;         ///< "loss_d": the event member, also the TensorBoard tag we write
        const char* label;         ///< "loss D": legends and messages
        const char* unit;          ///< "img/s"; "" for a plain number
        const char* referenceTag;  ///< "D_loss": the reference project's tag (followed), or nullptr
        Group group;
        Source source;
        Written written;
    };

    /// Every key, in the table's order.
    static constexpr std::array kKeys{
#define STREETGAN_TRAINING_SCALAR_KEY_OF(key, ...) Key::key,
        STREETGAN_TRAINING_SCALARS(STREETGAN_TRAINING_SCALAR_KEY_OF)
#undef STREETGAN_TRAINING_SCALAR_KEY_OF
    };
    static constexpr std::size_t kCount = kKeys.size();

    /// Every scalar, in the table's order (all()[i].key == Key(i)).
    static const std::array<Spec, kCount>& all();
    static const Spec& of(Key key) { return all()[static_cast<std::size_t>(key)]; }
    static std::size_t index(Key key) { return static_cast<std::size_t>(key); }
    /// The scalar a TensorBoard tag fills: its field or its reference tag; nullopt for another tag.
    static std::optional<Key> forTag(std::string_view tag);
    /// The scalars averaged over a log interval's steps (TrainStep's accumulator, in table order).
    static std::size_t stepMeanCount();
    /// A plot group's title ("Loss", "Images/s", ...).
    static const char* groupTitle(Group group);
    static constexpr int kGroupCount = static_cast<int>(Group::LearningRate) + 1;
};

}  // namespace streetgan
