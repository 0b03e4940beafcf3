// Fuzz target: a TensorBoard event file (TFRecord framing, Event protobufs) through
// TfRecordReader: the file record by record as the app imports it, and the whole input as one
// Event protobuf (parseEvent), so that mutations reach the protobuf decoder without having to
// fix the framing's CRCs. IoError is the correct outcome for bad input.
#include <cstddef>
#include <cstdint>
#include <string>

#include "FuzzSupport.h"
#include "base/tensorboard/TfRecordReader.h"
#include "base/util/Errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using streetgan::TfRecordReader;
    try {
        const TfRecordReader::Event e = TfRecordReader::parseEvent(std::string(reinterpret_cast<const char*>(data), size));
        for (const auto& v : e.values) (void)(v.tag.size() + (v.image ? v.image->encoded.size() : 0));
    } catch (const streetgan::IoError&) {
    }
    const std::string path = streetgan::fuzz::writeScratch("events.tfevents", data, size);
    try {
        TfRecordReader reader(path);
        TfRecordReader::Event e;
        int records = 0;
        while (records++ < 1000 && reader.readEvent(e)) {
        }
        (void)reader.torn();
    } catch (const streetgan::IoError&) {
    }
    return 0;
}
