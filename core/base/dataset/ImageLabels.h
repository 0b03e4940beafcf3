// The labels of a data set's images, for fitting named directions (issue 44 item 2): a table
// image key -> named labels, each label either a class (a string: "true"/"false", "sideways",
// "winter", "berlin") or a number (a synthetic scene's camera height), with per label its classes
// and counts. Keys are the images' keys as DatasetIndex gives them (the file name's stem), so a
// label table joins an index's entries by ImageEntry::key.
//
// Made by MslsLabelReader (MSLS city folders: postprocessed.csv, raw.csv, the city folder) or by
// synthetic() (the synthetic street scenes' own parameters). Problems met while reading (a missing
// column, malformed rows) are kept as one-line messages in problems(); a label that was never read
// is simply absent. requireLabels() turns "a data set without the labels asked for" and "a label
// with one class only" into one line each.
//
// Storage: each key is stored once and numbered; a label is a column of class numbers (4 bytes an
// image) or of doubles, not a map of strings per label. Measured: `data labels` on one
// postprocessed.csv of 1.2 million rows (train_val's size) with 22-character keys peaks at 460 MB
// RSS (3 s): the key table and the file's 78 MB of text.
//
// Thread contract: a plain value. Built on one thread; after that any number of threads may call
// its const members at once.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace streetgan {

class ImageLabels {
public:
    enum class Kind { Class, Number };

    /// Sets `label` of image `key` to the class `value` (a label is a class label or a number
    /// label for good: the first set decides; a set of the other kind is ignored and returns false).
    bool setClass(const std::string& key, const std::string& label, const std::string& value);
    bool setNumber(const std::string& key, const std::string& label, double value);
    /// Records a problem met while reading (one line, naming the file and what to do).
    void addProblem(std::string line) { problems_.push_back(std::move(line)); }
    /// Adds every label and problem of `other` (values of keys already set here are overwritten).
    void merge(const ImageLabels& other);

    /// Label names, sorted.
    std::vector<std::string> labels() const;
    bool has(const std::string& label) const { return columns_.count(label) != 0; }
    /// Kind of `label`; Class for an absent one.
    Kind kind(const std::string& label) const;
    std::optional<std::string> classOf(const std::string& key, const std::string& label) const;
    std::optional<double> numberOf(const std::string& key, const std::string& label) const;
    /// Images per class of a class label (empty for absent or number labels).
    std::map<std::string, int64_t> classes(const std::string& label) const;
    /// Smallest and largest value of a number label (inf and -inf when it has none).
    std::pair<double, double> range(const std::string& label) const;
    /// Images that have `label`.
    int64_t count(const std::string& label) const;
    /// Images with at least one label.
    int64_t imageCount() const { return static_cast<int64_t>(keyNames_.size()); }
    /// The keys of images with at least one label, sorted.
    std::set<std::string> keys() const { return {keyNames_.begin(), keyNames_.end()}; }
    const std::vector<std::string>& problems() const { return problems_; }

    /// One line per label of `wanted` that cannot give a direction: absent ("DATA has no label
    /// 'x': its labels are a, b; ...") or a class label with a single class ("night: every image
    /// of DATA is 'false': a direction needs both classes"). Empty when all can. `dataName`
    /// names the data set in the lines (the --data value).
    std::vector<std::string> requireLabels(const std::vector<std::string>& wanted, const std::string& dataName) const;

    /// `data labels --json`: {"images":N,"labels":{name:{"kind":"class","images":n,"classes":{c:n}}
    /// or {"kind":"number","images":n,"min":x,"max":y}},"problems":[..]}, for the labels in
    /// `wanted` that exist (all when empty).
    nlohmann::json summary(const std::vector<std::string>& wanted) const;
    /// The same as text: per label its classes with counts and shares (most images first), or
    /// its range, then the problems. Locale-independent.
    std::string summaryText(const std::vector<std::string>& wanted) const;

    /// The labels of the synthetic street scenes 0..count-1 of SyntheticStreets(seed), keyed by
    /// the index in decimal (the stem `data synth` gives scene i: "<i>.jpg"): night (true/false),
    /// time_of_day (day/dusk/night), weather (clear/overcast/fog/rain), season
    /// (summer/spring/autumn/winter), layout (urban/suburban/open), snow (true/false) and the
    /// numbers camera_height (m), vanishing_x and horizon_y (normalised). Cheap per scene (the
    /// scene's dice only, nothing rendered).
    static ImageLabels synthetic(uint64_t seed, int64_t count);

private:
    struct Column {
        Kind kind = Kind::Class;
        std::vector<int32_t> classOf;  ///< per key number: index into names, -1 when unset (Class)
        std::vector<std::string> names;
        std::unordered_map<std::string, int32_t> nameIndex;
        std::vector<double> numbers;  ///< per key number: NaN when unset (Number)
        int64_t count = 0;
    };
    /// The number of `key`, adding it when new.
    uint32_t keyNumber(const std::string& key);
    /// `label`'s column, of `kind` when new; nullptr when it exists with the other kind.
    Column* column(const std::string& label, Kind kind);
    /// The number of `key`, or nullopt when it has no label.
    std::optional<uint32_t> findKey(const std::string& key) const;

    std::map<std::string, Column> columns_;
    std::unordered_map<std::string, uint32_t> keyIndex_;
    std::vector<std::string> keyNames_;
    std::vector<std::string> problems_;
};

}  // namespace streetgan
