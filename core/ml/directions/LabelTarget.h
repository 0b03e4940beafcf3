// A label made binary for fitting one named direction (issue 44 item 2): which images count as
// the direction's positive side. Spellings (--labels of `streetgan-trainer directions`):
//   night            a true/false label: positive "true"; the direction is named after the label
//   view_direction   a class label with a usual positive class (view_direction: sideways, season:
//                    winter, time_of_day: night, snow/night: true): that class against the rest,
//                    named after the class ("sideways", "winter")
//   city=berlin      any class label: that class against the rest, named "berlin"
//   camera_height    a number label: above its median against the rest (InterFaceGAN's binarised
//                    attribute), named after the label
// A class label without a usual positive class and without "=CLASS" is refused with a line
// listing its classes. The thresholds and classes are fixed once, from the labels given.
//
// Thread contract: a plain value; const members are safe from any thread.
#pragma once

#include <optional>
#include <string>

#include "base/dataset/ImageLabels.h"

namespace streetgan {

struct LabelTarget {
    std::string spec;                          ///< as given: "night", "city=berlin"
    std::string label;                         ///< the ImageLabels label: "night", "city"
    std::string name;                          ///< the direction's name: "night", "berlin", "sideways"
    std::string positive;                      ///< the positive side in words: "true", "berlin", "> 1.62 (median)"
    std::optional<std::string> positiveClass;  ///< class labels
    std::optional<double> threshold;           ///< number labels: positive when value > threshold
    int64_t positives = 0, negatives = 0;      ///< images of each side in the labels parsed from

    /// Throws DataError with one line naming `dataName` when the label is absent, has one class
    /// only (or one side empty), or "=CLASS" names no class of it; ConfigError for a malformed spec.
    static LabelTarget parse(const std::string& spec, const ImageLabels& labels, const std::string& dataName);
    /// The side of image `key`: true (positive), false, or nullopt when it has no such label.
    std::optional<bool> of(const ImageLabels& labels, const std::string& key) const;
};

}  // namespace streetgan
