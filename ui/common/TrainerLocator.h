// Finds the streetgan-trainer binary the app drives: $STREETGAN_TRAINER, else next to the app's
// executable, else on PATH.
#pragma once

#include <QString>

namespace streetgan::ui {

class TrainerLocator {
public:
    /// The path to run; "streetgan-trainer" (PATH lookup at start time) when nothing else is found.
    static QString trainer();
};

}  // namespace streetgan::ui
