// Writes TensorBoard event files (RUN/tb/events.out.tfevents.<unix_seconds>.<hostname>) without
// TensorFlow or protobuf: the Event/Summary protobufs are encoded by hand and framed as TFRecords
// (uint64 LE length, uint32 masked CRC-32C of the length bytes, data, uint32 masked CRC-32C of
// the data). The trainer logs the same scalars as events.jsonl and the fixed-noise sample grids.
//
// What lands in the file, one TFRecord each:
//   Event{wall_time, file_version: "brain.Event:2"}                       (first record)
//   Event{wall_time, step, summary{value{tag, simple_value}}}              (addScalar)
//   Event{wall_time, step, summary{value{tag, image{h, w, colorspace, png}}}} (addImage)
// TensorBoard reads these through its legacy-summary path (scalars and images dashboards).
//
// Thread contract: not thread-safe; one owner (the trainer thread) calls everything.
// Ownership: owns the open file; the destructor closes it, pushing buffered records to the OS
// and swallowing errors (call flush() first to see them).
// Durability: records are appended to a user-space buffer; flush() hands them to the OS
// (fflush, no fsync). Readers (TfRecordReader, TensorBoard) treat a torn last record as the end.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace streetgan {

class TensorBoardWriter {
public:
    /// Creates `dir` (and parents) if needed and a new event file in it named
    /// events.out.tfevents.<unix_seconds>.<hostname>; if that name is taken (two writers in the
    /// same second) a ".1", ".2", ... suffix is added. Writes the file_version record and flushes.
    /// Throws IoError (one line naming the directory or file) when either cannot be created.
    explicit TensorBoardWriter(const std::string& dir);
    ~TensorBoardWriter();

    TensorBoardWriter(const TensorBoardWriter&) = delete;
    TensorBoardWriter& operator=(const TensorBoardWriter&) = delete;
    TensorBoardWriter(TensorBoardWriter&&) noexcept;
    TensorBoardWriter& operator=(TensorBoardWriter&&) noexcept;

    /// Appends a scalar (Summary.Value.simple_value). `wallTime` is Unix time in seconds (the
    /// same "t" as events.jsonl); `step` is the global training step. Throws IoError on a write
    /// error (e.g. full disk); the file then holds at most a torn last record.
    void addScalar(const std::string& tag, float value, int64_t step, double wallTime);

    /// Appends an encoded image (Summary.Value.image): `pngBytes` is the complete PNG file,
    /// `height` x `width` pixels with `channels` 1 (grey), 2 (grey+alpha), 3 (RGB) or 4 (RGBA),
    /// stored as the colorspace. Throws std::invalid_argument for channels outside 1..4 or a
    /// negative size (programmer errors), IoError on a write error.
    void addImage(const std::string& tag, const std::string& pngBytes, int height, int width, int channels, int64_t step, double wallTime);

    /// Pushes buffered records to the OS (fflush). Throws IoError on a write error. Errors are
    /// sticky: after one, every later add*/flush() throws again (the file may end torn).
    void flush();

    /// Full path of the event file (dir + "/" + file name).
    std::string path() const;

private:
    struct FileCloser {
        void operator()(std::FILE* f) const;
    };

    void writeRecord(const std::string& data);
    [[noreturn]] void throwWriteError(int err) const;

    std::string path_;
    std::unique_ptr<std::FILE, FileCloser> file_;
};

}  // namespace streetgan
