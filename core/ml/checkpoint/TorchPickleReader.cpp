// The zip container side of TorchPickleReader: the first bytes of the file, the records of the
// archive (data.pkl, byteorder, data/<key> storages, each read once and shared) and the mapping of
// every LibTorch/zip failure to CheckpointError. The pickle itself: Unpickler.
#include "ml/checkpoint/TorchPickleReader.h"

#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>
#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>
#include <unordered_map>

#include "base/util/Errors.h"
#include "base/util/ZipDirectory.h"
#include "ml/checkpoint/Unpickler.h"

namespace streetgan {
namespace {

// The unpickler's wording, shared by the container's messages.
constexpr const char* kResave = Unpickler::kResave;
std::string quoted(const std::string& name) { return Unpickler::quoted(name); }

/// First line of an exception message, without LibTorch's backtrace, at most 200 characters.
std::string shortMessage(const std::string& what) {
    std::string s = what.substr(0, what.find('\n'));
    if (s.size() > 200) s = s.substr(0, 200) + "...";
    return s;
}

/// Serves reads from a caller-owned buffer, never past its end (miniz asks for what the zip's
/// directories claim, which a corrupt file may place anywhere).
class BoundedMemoryAdapter final : public caffe2::serialize::ReadAdapterInterface {
public:
    BoundedMemoryAdapter(const char* data, size_t size) : data_(data), size_(size) {}
    size_t size() const override { return size_; }
    size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
        if (pos >= size_) return 0;
        n = std::min<uint64_t>(n, size_ - pos);
        std::memcpy(buf, data_ + pos, n);
        return n;
    }

private:
    const char* data_;
    size_t size_;
};

/// Rejects what is certainly not a torch.save zip archive, from the first bytes of the file.
void checkHeader(const unsigned char* head, size_t headLen, uint64_t fileSize, const std::string& name) {
    if (fileSize == 0) throw CheckpointError("checkpoint " + quoted(name) + " is empty (0 bytes; an interrupted save?): " + kResave);
    static const unsigned char kLegacyMagic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
    if (headLen >= sizeof(kLegacyMagic) && std::memcmp(head, kLegacyMagic, sizeof(kLegacyMagic)) == 0)
        throw CheckpointError("checkpoint " + quoted(name) +
                              " uses the legacy (pre-1.6, non-zip) torch.save format, which is not supported: load "
                              "it in Python and re-save it with torch.save from PyTorch >= 1.6 (default "
                              "_use_new_zipfile_serialization=True)");
    if (headLen >= 1 && head[0] == 0x80)
        throw CheckpointError("checkpoint " + quoted(name) + " is a bare pickle, not a PyTorch zip archive (pickle.dump or legacy torch.save?): " + kResave);
    if (headLen < 4 || head[0] != 'P' || head[1] != 'K' || head[2] != 3 || head[3] != 4)
        throw CheckpointError("checkpoint " + quoted(name) + " is not a PyTorch zip archive (truncated or corrupt?): " + kResave);
}

PickleValue readArchive(caffe2::serialize::PyTorchStreamReader& reader, const std::string& name) {
    const std::vector<std::string> records = reader.getAllRecords();
    std::string pkl;
    for (const std::string& r : records) {
        if (r == "constants.pkl" || r.rfind("code/", 0) == 0)
            throw CheckpointError("checkpoint " + quoted(name) +
                                  " is a TorchScript module (torch.jit.save), not a torch.save checkpoint: save the "
                                  "model's state dicts with torch.save instead");
        const bool match = r == "data.pkl" || (r.size() > 9 && r.compare(r.size() - 9, 9, "/data.pkl") == 0);
        if (match && (pkl.empty() || r.size() < pkl.size())) pkl = r;
    }
    if (pkl.empty())
        throw CheckpointError("checkpoint " + quoted(name) + " is a zip archive without a data.pkl record, not a torch.save checkpoint: " + kResave);
    const std::string prefix = pkl.substr(0, pkl.size() - 8);  // folder of data.pkl inside the archive

    if (reader.hasRecord(prefix + "byteorder")) {
        auto [ptr, size] = reader.getRecord(prefix + "byteorder");
        const std::string order(static_cast<const char*>(ptr.get()), size);
        if (order == "big")
            throw CheckpointError("checkpoint " + quoted(name) +
                                  " was written on a big-endian machine, which is not supported: re-save it on a "
                                  "little-endian one");
    }

    auto [pklPtr, pklSize] = reader.getRecord(pkl);
    std::unordered_map<std::string, at::Storage> storages;  // each record is read once and shared
    Unpickler::StorageLoader loader = [&](const std::string& key) -> at::Storage {
        auto it = storages.find(key);
        if (it != storages.end()) return it->second;
        const std::string record = prefix + "data/" + key;
        if (!reader.hasRecord(record))
            throw CheckpointError("checkpoint " + quoted(name) + " lacks the tensor data record 'data/" + key +
                                  "' that data.pkl refers to (truncated or corrupt?): " + kResave);
        auto [ptr, size] = reader.getRecord(record);
        at::Storage s(at::Storage::use_byte_size_t(), size, std::move(ptr), /*allocator=*/nullptr, /*resizable=*/false);
        storages.emplace(key, s);
        return s;
    };
    Unpickler unpickler(static_cast<const char*>(pklPtr.get()), pklSize, name, loader);
    return unpickler.parse();
}

/// Bounds what reading the records will allocate by the file's size, from the zip's central
/// directory, before the zip library (which allocates each record's declared size up front) is
/// asked for any: torch.save stores records uncompressed, so their sizes add up to less than the
/// file; a re-zipped (deflated) checkpoint is let through up to four times its size, which no
/// checkpoint of weights comes near and a deflate bomb (1032:1) goes far beyond.
void checkRecordSizes(const ZipDirectory::ReadAt& readAt, uint64_t fileSize, const std::string& name) {
    std::vector<ZipDirectory::Entry> entries;
    try {
        entries = ZipDirectory::read(readAt, fileSize, name);
    } catch (const DataError& e) {
        throw CheckpointError("checkpoint " + quoted(name) + " is not a readable PyTorch zip archive (" + e.what() + "): " + kResave);
    }
    const uint64_t limit = 4 * fileSize + (uint64_t(1) << 20);
    uint64_t total = 0;
    for (const ZipDirectory::Entry& e : entries) {
        if (e.method == 0 && e.size != e.compressedSize)
            throw CheckpointError("checkpoint " + quoted(name) + " has a record '" + e.name + "' whose declared size (" + std::to_string(e.size) +
                                  " bytes) is not what it stores (" + std::to_string(e.compressedSize) + "): corrupt or crafted; " + kResave);
        total += std::min<uint64_t>(e.size, limit + 1);
        if (total > limit)
            throw CheckpointError("checkpoint " + quoted(name) + " declares records of more than " + std::to_string(limit) + " bytes in all (at '" + e.name +
                                  "'), more than a " + std::to_string(fileSize) + "-byte file of weights holds: a crafted archive (a deflate bomb?); " +
                                  kResave);
    }
}

/// Runs `body`, turning every LibTorch/zip/allocation failure into a CheckpointError.
template <class F>
PickleValue guarded(const std::string& name, F&& body) {
    try {
        return body();
    } catch (const CheckpointError&) {
        throw;
    } catch (const c10::Error& e) {
        throw CheckpointError("checkpoint " + quoted(name) + " is not a readable PyTorch zip archive (truncated or corrupt? " +
                              shortMessage(e.what_without_backtrace()) + "): " + kResave);
    } catch (const std::bad_alloc&) {
        throw CheckpointError("checkpoint " + quoted(name) + " could not be read: out of memory (corrupt sizes, or too large for this machine)");
    } catch (const std::exception& e) {
        throw CheckpointError("checkpoint " + quoted(name) + " could not be read (" + shortMessage(e.what()) + "): " + kResave);
    }
}

}  // namespace

PickleValue TorchPickleReader::load(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) throw CheckpointError("checkpoint " + quoted(path) + " does not exist: check the path");
    if (fs::is_directory(st)) throw CheckpointError("checkpoint " + quoted(path) + " is a directory, not a file: pass the .pt file inside it");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CheckpointError("checkpoint " + quoted(path) + " cannot be opened: check its permissions");
    const uintmax_t size = fs::file_size(path, ec);
    if (ec) throw CheckpointError("checkpoint " + quoted(path) + " cannot be read (" + ec.message() + "): check the file");
    unsigned char head[16] = {};
    in.read(reinterpret_cast<char*>(head), sizeof head);
    checkHeader(head, static_cast<size_t>(in.gcount()), size, path);
    in.clear();
    checkRecordSizes(
        [&in](uint64_t pos, size_t n) {
            std::string b(n, '\0');
            in.seekg(static_cast<std::streamoff>(pos));
            in.read(b.data(), static_cast<std::streamsize>(n));
            b.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
            in.clear();
            return b;
        },
        size, path);
    in.close();
    return guarded(path, [&] {
        caffe2::serialize::PyTorchStreamReader reader(path);
        return readArchive(reader, path);
    });
}

PickleValue TorchPickleReader::loadBytes(const std::vector<char>& zipBytes, const std::string& nameForMessages) {
    checkHeader(reinterpret_cast<const unsigned char*>(zipBytes.data()), zipBytes.size(), zipBytes.size(), nameForMessages);
    checkRecordSizes(
        [&zipBytes](uint64_t pos, size_t n) {
            if (pos >= zipBytes.size()) return std::string();
            return std::string(zipBytes.data() + pos, std::min<size_t>(n, zipBytes.size() - static_cast<size_t>(pos)));
        },
        zipBytes.size(), nameForMessages);
    return guarded(nameForMessages, [&] {
        caffe2::serialize::PyTorchStreamReader reader(std::make_shared<BoundedMemoryAdapter>(zipBytes.data(), zipBytes.size()));
        return readArchive(reader, nameForMessages);
    });
}

}  // namespace streetgan
