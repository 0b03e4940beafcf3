// Fuzz target: a TensorBoard event file (TFRecord framing, Event protobufs with simple values,
// images, TF2 tensors and plugin metadata) through TfRecordReader: the file record by record,
// and the whole input as one Event protobuf (parseEvent), so that mutations reach the protobuf
// decoder without having to fix the framing's CRCs; then the same file as a TensorBoard run
// through TensorBoardFollower (TfRecordScanner's framing and resync, the step grouping, the
// bad-record reports), read in pieces of 4 KB. IoError is the correct outcome for bad
// input of the reader; the follower reports bad records as events and never throws for them.
#include <cstddef>
#include <cstdint>
#include <string>

#include "FuzzSupport.h"
#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardFollower.h"
#include "base/tensorboard/TfRecordReader.h"
#include "base/tensorboard/TfRecordScanner.h"
#include "base/util/Errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using streetgan::TfRecordReader;
    try {
        const TfRecordReader::Event e = TfRecordReader::parseEvent(std::string(reinterpret_cast<const char*>(data), size));
        for (const auto& v : e.values) (void)(v.tag.size() + (v.image ? v.image->encoded.size() : 0));
    } catch (const streetgan::IoError&) {}
    const std::string path = streetgan::fuzz::writeScratch("events.tfevents", data, size);
    try {
        TfRecordReader reader(path);
        TfRecordReader::Event e;
        int records = 0;
        while (records++ < 1000 && reader.readEvent(e)) {}
        (void)reader.torn();
    } catch (const streetgan::IoError&) {}
    // The scanner over the bytes, then the follower over the run folder holding the file.
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    for (int steps = 0; steps < 100000 && !rest.empty(); ++steps) {
        const auto step = streetgan::TfRecordScanner::next(rest);
        if (step.result == streetgan::TfRecordScanner::Result::NeedMore) break;
        rest.remove_prefix(step.size);
    }
    const std::string dir = path.substr(0, path.rfind('/'));
    streetgan::LocalEventFiles files;
    std::vector<streetgan::TensorBoardFollower::Item> items;
    streetgan::TensorBoardFollower whole(files, dir, 0, std::chrono::milliseconds(0));
    for (int polls = 0; polls < 1000 && whole.poll(items, 4096);) ++polls;
    whole.flush(items);
    for (const auto& item : items)
        if (item.end < item.offset) __builtin_trap();  // a range is never backwards
    return 0;
}
