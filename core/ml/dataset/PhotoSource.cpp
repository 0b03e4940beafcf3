#include "ml/dataset/PhotoSource.h"

#include <vector>

#include "base/dataset/ArchiveReader.h"
#include "base/s3/S3Error.h"
#include "base/util/Errors.h"
#include "ml/dataset/ImageDecoder.h"
#include "ml/dataset/PhotoListing.h"

namespace streetgan {

PhotoSource::PhotoSource(std::string name, DatasetIndex index, ByteReader read, const AugmentParams& augment, Verdicts verdicts)
    : name_(std::move(name)), index_(std::move(index)), read_(std::move(read)), augment_(augment), cache_(std::move(verdicts.cache)) {
    Augmentation::validate(augment_);
    index_.requireNonEmpty(name_);
    const size_t n = index_.entries().size();
    state_ = std::make_unique<std::atomic<uint8_t>[]>(n);
    int64_t unknown = 0;
    for (size_t i = 0; i < n; ++i) {
        const bool known = i < verdicts.known.size() && verdicts.known[i] != 0;
        state_[i].store(known ? kGood : kUnknown, std::memory_order_relaxed);
        unknown += known ? 0 : 1;
    }
    unknown_ = unknown;
    // Fail before training starts when nothing decodes (e.g. every file corrupt or too small).
    std::vector<uint8_t> probe(static_cast<size_t>(augment_.size) * augment_.size * 3);
    load(0, augment_.size, 0, probe.data());
}

PhotoSource::~PhotoSource() {
    if (!cache_) return;
    try {
        if (cache_->pending() > 0) cache_->save();
    } catch (...) {
        // a destructor must not throw; unsaved verdicts are only checked again next time
    }
}

std::shared_ptr<PhotoSource> PhotoSource::fromListing(const PhotoListing& listing, const IndexOptions& index, const AugmentParams& augment) {
    DatasetIndex selected = listing.index(index);
    Verdicts verdicts{listing.verdicts(), listing.known(selected)};
    auto source = std::make_shared<PhotoSource>(listing.name(), std::move(selected), listing.reader(), augment, std::move(verdicts));
    source->setPrefetcher(listing.prefetcher(), listing.prefetchWindow());
    return source;
}

void PhotoSource::setPrefetcher(std::function<void(const std::vector<const ImageEntry*>&)> prefetch, int64_t window) {
    prefetch_ = std::move(prefetch);
    prefetchWindow_ = window;
}

void PhotoSource::prefetch(const int64_t* indices, size_t n) const {
    if (!prefetch_ || n == 0) return;
    const int64_t size = index_.size();
    std::vector<const ImageEntry*> upcoming;
    upcoming.reserve(n);
    for (size_t k = 0; k < n; ++k) {
        if (indices[k] < 0) continue;
        const auto i = static_cast<size_t>(indices[k] % size);
        if (state_[i].load(std::memory_order_relaxed) != kBad) upcoming.push_back(&index_.entries()[i]);
    }
    if (!upcoming.empty()) prefetch_(upcoming);
}

std::shared_ptr<PhotoSource> PhotoSource::folder(const std::string& root, const IndexOptions& index, const AugmentParams& augment) {
    return fromListing(PhotoListing::folder(root), index, augment);
}

std::shared_ptr<PhotoSource> PhotoSource::archive(const std::string& path, const IndexOptions& index, const AugmentParams& augment) {
    return fromListing(PhotoListing::archive(path), index, augment);
}

DatasetIndex PhotoSource::archiveIndex(const ArchiveReader& reader, const IndexOptions& index) {
    return DatasetIndex::fromListing(PhotoListing::archiveListing(reader), index);
}

void PhotoSource::settle(size_t i, uint8_t from, const std::string& verdict) const {
    const bool good = verdict == ImageVerdictCache::kOk;
    uint8_t expected = from;
    if (!state_[i].compare_exchange_strong(expected, good ? kGood : kBad)) return;  // another thread settled it
    const ImageEntry& e = index_.entries()[i];
    if (!good) {
        std::lock_guard<std::mutex> lock(mutex_);
        ++badImages_[verdict];
    }
    if (from != kUnknown) return;  // known good, failing now (e.g. deleted mid-run): counted, not recorded
    if (cache_ && PhotoListing::cacheable(verdict)) cache_->record(e.path, e.size, e.mtimeNs, verdict);
    if (unknown_.fetch_sub(1) == 1 && cache_) cache_->save();  // every entry has a verdict now: save them once
}

void PhotoSource::load(int64_t index, int size, uint64_t augmentSeed, uint8_t* rgb) const {
    if (size != augment_.size)
        throw ConfigError("folder source built for " + std::to_string(augment_.size) + " px images was asked for " + std::to_string(size) + " px");
    const DecodeRequest request = Augmentation::decodeRequest(augment_);
    const int64_t n = index_.size();
    std::string lastError;
    int failures = 0;
    for (int64_t step = 0; step < n && failures < kMaxAttempts; ++step) {
        const size_t i = static_cast<size_t>((index + step) % n);
        const uint8_t state = state_[i].load(std::memory_order_acquire);
        if (state == kBad) continue;  // known bad in this run: never read again, counted once
        const ImageEntry& e = index_.entries()[i];
        std::string verdict;
        try {
            const std::vector<uint8_t> bytes = read_(e);
            const DecodedImage img = ImageDecoder::decode(bytes.data(), bytes.size(), request, name_ + ": " + e.path);
            Augmentation::applyU8(img, augment_, augmentSeed, rgb);
            if (state == kUnknown) settle(i, kUnknown, ImageVerdictCache::kOk);
            return;
        } catch (const BadImageError& err) {
            verdict = ImageDecoder::reasonName(err.reason());
            lastError = err.what();
        } catch (const s3::S3Error& err) {
            // A missing, forbidden or replaced object is this image's problem: skipped and counted.
            // Anything else (credentials, bucket, region, a link down or throttled past every
            // retry) is the whole source's: it stops the run with S3Error's one line, rather than
            // skipping image after image of a week-long run.
            using K = s3::S3Error::Kind;
            if (err.kind() != K::NotFound && err.kind() != K::AccessDenied && err.kind() != K::Changed) throw;
            verdict = PhotoListing::kUnreadable;
            lastError = err.what();
        } catch (const Error& err) {  // the reader failed (I/O error, damaged archive entry)
            verdict = PhotoListing::kUnreadable;
            lastError = err.what();
        }
        ++failures;
        settle(i, state, verdict);
    }
    if (failures == 0)
        throw DataError("no usable image is left in " + name_ + ": all " + std::to_string(n) + " failed to load; check the data with `data stats`");
    throw DataError(std::to_string(failures) + " images in a row are unusable in " + name_ + " (last: " + lastError + ")");
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
