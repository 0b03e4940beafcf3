#include "data/FolderSource.h"

#include <fstream>
#include <iterator>
#include <vector>

#include "data/ImageDecoder.h"
#include "util/Errors.h"

namespace streetgan {

FolderSource::FolderSource(const std::string& root, const IndexOptions& index, const AugmentParams& augment)
    : root_(root), index_(DatasetIndex::scanFolder(root, index)), augment_(augment) {
    Augmentation::validate(augment_);
    index_.requireNonEmpty(root);
    // Fail before training starts when nothing decodes (e.g. every file corrupt or too small).
    std::vector<uint8_t> probe(static_cast<size_t>(augment_.size) * augment_.size * 3);
    load(0, augment_.size, 0, probe.data());
}

void FolderSource::load(int64_t index, int size, uint64_t augmentSeed, uint8_t* rgb) const {
    if (size != augment_.size)
        throw ConfigError("folder source built for " + std::to_string(augment_.size) + " px images was asked for " + std::to_string(size) + " px");
    const DecodeRequest request = Augmentation::decodeRequest(augment_);
    std::string lastError;
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
        const ImageEntry& e = index_.entries()[static_cast<size_t>((index + attempt) % index_.size())];
        const std::string path = root_ + "/" + e.path;
        std::ifstream in(path, std::ios::binary);
        std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        try {
            if (!in.good() && !in.eof()) throw BadImageError(BadImageReason::Empty, "cannot read '" + path + "'");
            const DecodedImage img = ImageDecoder::decode(bytes.data(), bytes.size(), request, path);
            Augmentation::applyU8(img, augment_, augmentSeed, rgb);
            return;
        } catch (const BadImageError& err) {
            std::lock_guard<std::mutex> lock(mutex_);
            ++badImages_[ImageDecoder::reasonName(err.reason())];
            lastError = err.what();
        }
    }
    throw DataError(std::to_string(kMaxAttempts) + " images in a row are unusable in '" + root_ + "' (last: " + lastError + ")");
}

std::string FolderSource::describe() const {
    return "folder '" + root_ + "' (" + std::to_string(index_.size()) + " images, " + std::to_string(index_.cities().size()) + " cities, " +
           index_.layout() + " layout)";
}

std::map<std::string, int64_t> FolderSource::skipped() const {
    std::map<std::string, int64_t> out = index_.skipped();
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [k, v] : badImages_) out[k] += v;
    return out;
}

}  // namespace streetgan
