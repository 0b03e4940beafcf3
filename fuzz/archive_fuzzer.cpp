// Fuzz target: a zip / tar / tar.gz archive (a data set) through ArchiveReader: list it (no index
// cache), then read up to 16 entries and look one up by name, as the data loader does. The
// archive is written to a scratch file first (ArchiveReader maps a path). DataError / IoError are
// the correct outcomes for bad input; anything else escaping is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "FuzzSupport.h"
#include "base/dataset/ArchiveReader.h"
#include "base/util/Errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = streetgan::fuzz::writeScratch("archive.bin", data, size);
    try {
        const streetgan::ArchiveReader reader(path, streetgan::ArchiveReader::IndexCache::Off);
        (void)reader.formatName();
        for (size_t i = 0; i < reader.size() && i < 16; ++i) {
            (void)reader.intact(i);
            try {
                (void)reader.read(i);
            } catch (const streetgan::DataError&) {
                // a damaged entry: the next ones may still read
            }
        }
        if (reader.size() > 0) (void)reader.find(reader.entry(0).name);
    } catch (const streetgan::Error&) {}
    return 0;
}
