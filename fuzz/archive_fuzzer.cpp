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
            // Known finding (regress_zip_huge_declared_size): read() allocates the size a zip
            // header declares before inflating, up to 4 GiB from a few bytes of input. Skipped here
            // until ArchiveReader bounds it, so that fuzzing goes on past it; remove then.
            if (reader.entry(i).size > (uint64_t(256) << 20)) continue;
            // Known finding (regress_zip_empty_entry_memcpy_null): for an empty stored zip entry
            // readZipFast calls memcpy with a null destination (undefined, harmless in practice).
            // Skipped until fixed there, for the same reason; remove then.
            if (reader.entry(i).size == 0) continue;
            try {
                (void)reader.read(i);
            } catch (const streetgan::DataError&) {
                // a damaged entry: the next ones may still read
            }
        }
        if (reader.size() > 0) (void)reader.find(reader.entry(0).name);
    } catch (const streetgan::Error&) {
    }
    return 0;
}
