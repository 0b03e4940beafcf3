#include "ml/data/PhotoSource.h"

#include <fstream>
#include <iterator>
#include <vector>

#include <unordered_map>

#include "base/dataset/ArchiveReader.h"
#include "base/util/Errors.h"
#include "ml/data/ImageDecoder.h"
#include "ml/data/PackedCacheWriter.h"

namespace streetgan {

PhotoSource::PhotoSource(std::string name, DatasetIndex index, ByteReader read, const AugmentParams& augment)
    : name_(std::move(name)), index_(std::move(index)), read_(std::move(read)), augment_(augment) {
    Augmentation::validate(augment_);
    index_.requireNonEmpty(name_);
    // Fail before training starts when nothing decodes (e.g. every file corrupt or too small).
    std::vector<uint8_t> probe(static_cast<size_t>(augment_.size) * augment_.size * 3);
    load(0, augment_.size, 0, probe.data());
}

std::shared_ptr<PhotoSource> PhotoSource::folder(const std::string& root, const IndexOptions& index, const AugmentParams& augment) {
    return std::make_shared<PhotoSource>("folder '" + root + "'", DatasetIndex::scanFolder(root, index), PackedCacheWriter::folderReader(root), augment);
}

namespace {

// Normalised entry path -> entry number, for the intact entries of an archive.
std::unordered_map<std::string, size_t> entriesByPath(const ArchiveReader& reader) {
    std::unordered_map<std::string, size_t> out;
    for (size_t i = 0; i < reader.size(); ++i)
        if (reader.intact(i)) out.emplace(DatasetIndex::normalizePath(reader.entry(i).name), i);
    return out;
}

}  // namespace

DatasetIndex PhotoSource::archiveIndex(const ArchiveReader& reader, const IndexOptions& index) {
    std::vector<DatasetIndex::ListedFile> files;
    std::map<std::string, int64_t> listingSkipped;
    for (size_t i = 0; i < reader.size(); ++i) {
        if (reader.intact(i))
            files.push_back({reader.entry(i).name, reader.entry(i).size});
        else
            ++listingSkipped["truncated archive entry"];
    }
    const auto byPath = entriesByPath(reader);
    auto readText = [&](const std::string& name) -> std::optional<std::string> {
        const auto it = byPath.find(DatasetIndex::normalizePath(name));
        if (it == byPath.end()) return std::nullopt;
        try {
            const auto bytes = reader.read(it->second);
            return std::string(bytes.begin(), bytes.end());
        } catch (const Error&) {
            return std::nullopt;
        }
    };
    return DatasetIndex::fromListing(reader.path(), std::move(files), readText, listingSkipped, index);
}

std::shared_ptr<PhotoSource> PhotoSource::archive(const std::string& path, const IndexOptions& index, const AugmentParams& augment) {
    auto reader = std::make_shared<const ArchiveReader>(path);
    auto byPath = std::make_shared<const std::unordered_map<std::string, size_t>>(entriesByPath(*reader));
    auto readBytes = [reader, byPath](const ImageEntry& e) {
        const auto it = byPath->find(e.path);
        if (it == byPath->end()) throw DataError("archive '" + reader->path() + "' has no entry '" + e.path + "'");
        return reader->read(it->second);
    };
    return std::make_shared<PhotoSource>(reader->formatName() + " '" + path + "'", archiveIndex(*reader, index), readBytes, augment);
}

void PhotoSource::load(int64_t index, int size, uint64_t augmentSeed, uint8_t* rgb) const {
    if (size != augment_.size)
        throw ConfigError("folder source built for " + std::to_string(augment_.size) + " px images was asked for " + std::to_string(size) + " px");
    const DecodeRequest request = Augmentation::decodeRequest(augment_);
    std::string lastError;
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
        const ImageEntry& e = index_.entries()[static_cast<size_t>((index + attempt) % index_.size())];
        try {
            const std::vector<uint8_t> bytes = read_(e);
            const DecodedImage img = ImageDecoder::decode(bytes.data(), bytes.size(), request, name_ + ": " + e.path);
            Augmentation::applyU8(img, augment_, augmentSeed, rgb);
            return;
        } catch (const BadImageError& err) {
            std::lock_guard<std::mutex> lock(mutex_);
            ++badImages_[ImageDecoder::reasonName(err.reason())];
            lastError = err.what();
        } catch (const Error& err) {  // the reader failed (I/O error, damaged archive entry)
            std::lock_guard<std::mutex> lock(mutex_);
            ++badImages_["unreadable"];
            lastError = err.what();
        }
    }
    throw DataError(std::to_string(kMaxAttempts) + " images in a row are unusable in " + name_ + " (last: " + lastError + ")");
}

std::string PhotoSource::describe() const {
    return name_ + " (" + std::to_string(index_.size()) + " images, " + std::to_string(index_.cities().size()) + " cities, " + index_.layout() + " layout)";
}

std::map<std::string, int64_t> PhotoSource::skipped() const {
    std::map<std::string, int64_t> out = index_.skipped();
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [k, v] : badImages_) out[k] += v;
    return out;
}

}  // namespace streetgan
