// Reads TFRecord files (TensorBoard event files such as TensorBoardWriter writes) record by
// record, verifying both masked CRC-32Cs of every record, and decodes Event protobufs into plain
// structs. Used by the tests and by the app to import TensorBoard runs.
//
// Framing per record: uint64 LE length, uint32 masked CRC-32C of those 8 bytes, data, uint32
// masked CRC-32C of the data. A CRC mismatch throws IoError naming the file and the record's
// byte offset. A torn last record (fewer bytes than announced, or a partial header) is reported
// as the end of the file, not as an error; the reader then rewinds to that record's start, so
// calling readRecord() again after the writer appended more picks it up (following a live run).
//
// Event decoding keeps wall_time, step, file_version and each summary value's tag, simple_value,
// image (Summary.Image), plugin name (metadata.plugin_data.plugin_name: TF2 writers state it on a
// tag's first value only) and, for a tensor: a one-element float, double or half tensor's value
// (TF2's tf.summary.scalar) or the first encoded image of a string tensor [width, height, image,
// ...] (TF2's tf.summary.image). Histograms, audio and other tensors are only counted as such
// (Value::kind); every other field (graph_def, log_message, ...) is skipped by its wire type.
// The hparams plugin's data (metadata.plugin_data.content of a value of plugin "hparams", as
// PyTorch's SummaryWriter.add_hparams and TensorBoard's hparams API write it) is kept as bytes,
// and parseHParams decodes it: HParamsPluginData's experiment / session_start_info (the hparams,
// a map of google.protobuf.Value) / session_end_info.
// Malformed protobuf data throws IoError.
//
// Thread contract: not thread-safe; one owner. Ownership: owns its open file.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace streetgan {

class TfRecordReader {
public:
    /// Summary.Image: an encoded (PNG) image and its size; colorspace 1 grey, 2 grey+alpha,
    /// 3 RGB, 4 RGBA (5 YUV, 6 BGRA in files written by others).
    struct Image {
        int height = 0;
        int width = 0;
        int colorspace = 0;
        std::string encoded;  ///< the complete encoded image file (PNG bytes)
    };
    /// What a Summary.Value carries.
    enum class ValueKind { None, Simple, Image, Histogram, Audio, Tensor };
    /// Summary.Value: a tag with a scalar, an image, or neither (other kinds are skipped).
    struct Value {
        std::string tag;
        ValueKind kind = ValueKind::None;
        std::optional<float> simpleValue;
        std::optional<Image> image;          ///< Summary.Image, or a TF2 image tensor's first image
        std::string plugin;                  ///< metadata's plugin name ("scalars", "images", ...), "" when not stated
        std::optional<double> tensorScalar;  ///< a one-element float/double/half tensor's value
        std::string pluginContent;           ///< metadata's plugin_data.content, for plugin "hparams" only
    };
    /// HParamsPluginData (tensorboard/plugins/hparams/plugin_data.proto), one of its three kinds.
    struct HParams {
        enum class Kind { None, Experiment, SessionStart, SessionEnd };
        Kind kind = Kind::None;
        int64_t version = 0;
        /// session_start_info.hparams: name -> number, string, bool or null. A struct or list value
        /// (no setting of a run table's cell) is kept as its JSON text, with a line in `problems`.
        nlohmann::json values = nlohmann::json::object();
        std::string groupName;
        double startTimeSecs = 0, endTimeSecs = 0;  ///< session start / end, 0 when not stated
        int64_t status = 0;                         ///< session_end_info.status (1 success, 2 failure, 3 running)
        std::vector<std::string> problems;
    };
    /// Event: wallTime in Unix seconds; fileVersion is set only on a file's first record
    /// ("brain.Event:2"); values holds the Summary's values (empty for non-summary events).
    struct Event {
        double wallTime = 0.0;
        int64_t step = 0;
        std::string fileVersion;
        std::vector<Value> values;
    };

    /// Opens `path` for reading; throws IoError naming the file when it cannot be opened.
    explicit TfRecordReader(const std::string& path);

    /// Reads the next record's data into `data`. Returns false at the end of the file (clean,
    /// or a torn last record: see torn()). Throws IoError (file and offset) on a CRC mismatch.
    bool readRecord(std::string& data);

    /// readRecord() then parseEvent(); malformed data throws IoError naming file and offset.
    bool readEvent(Event& event);

    /// Decodes one Event protobuf. Throws IoError ("malformed Event ...") on invalid wire data.
    static Event parseEvent(std::string_view data);

    /// Decodes an hparams plugin's content (Value::pluginContent). Throws IoError ("malformed
    /// hparams plugin data ...") on invalid wire data.
    static HParams parseHParams(std::string_view content);

    /// All events of a file (stops quietly at a torn last record).
    static std::vector<Event> readAllEvents(const std::string& path);

    /// Byte offset of the next record to read.
    uint64_t offset() const { return offset_; }
    /// True when the last readRecord() returned false because the last record was torn.
    bool torn() const { return torn_; }
    const std::string& path() const { return path_; }

private:
    std::size_t readUpTo(char* dst, std::size_t n);
    void rewind(uint64_t recordStart);
    bool endAtTornRecord(uint64_t recordStart);

    std::string path_;
    std::ifstream in_;
    uint64_t offset_ = 0;
    bool torn_ = false;
};

}  // namespace streetgan
