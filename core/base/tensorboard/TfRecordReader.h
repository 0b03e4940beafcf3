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
