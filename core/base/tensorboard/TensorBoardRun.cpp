#include "base/tensorboard/TensorBoardRun.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TfRecordReader.h"
#include "base/tensorboard/TfRecordScanner.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

// The Unix seconds in "events.out.tfevents.<seconds>.<host>...", -1 when the name has none.
long long secondsIn(const std::string& name) {
    static const std::string kMark = "tfevents.";
    const auto at = name.find(kMark);
    if (at == std::string::npos) return -1;
    const char* start = name.c_str() + at + kMark.size();
    char* end = nullptr;
    const long long s = std::strtoll(start, &end, 10);
    return end == start ? -1 : s;
}

}  // namespace

bool TensorBoardRun::readsBefore(const std::string& a, const std::string& b) {
    const long long sa = secondsIn(a), sb = secondsIn(b);
    return sa != sb ? sa < sb : a < b;
}

bool TensorBoardRun::isEventFileName(const std::string& name) { return name.find("tfevents") != std::string::npos && name[0] != '.'; }

std::vector<EventFileSource::Entry> TensorBoardRun::eventFiles(std::vector<EventFileSource::Entry> entries) {
    entries.erase(std::remove_if(entries.begin(), entries.end(), [](const EventFileSource::Entry& e) { return e.folder || !isEventFileName(e.name); }),
                  entries.end());
    std::sort(entries.begin(), entries.end(), [](const EventFileSource::Entry& a, const EventFileSource::Entry& b) { return readsBefore(a.name, b.name); });
    return entries;
}

bool TensorBoardRun::isRun(const std::string& folder) {
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    try {
        LocalEventFiles files;
        const auto entries = files.list(folder);
        return !eventFiles(entries).empty() || !hparamsFolders(files, folder, entries).empty();
    } catch (const IoError&) {
        return false;
    }
}

bool TensorBoardRun::isHParamsFolderName(const std::string& name) {
    // str(time.time()): 9 to 11 digits of Unix seconds (2001 to 5138), a dot, a fraction.
    const auto dot = name.find('.');
    if (dot == std::string::npos || dot < 9 || dot > 11 || dot + 1 == name.size()) return false;
    for (size_t i = 0; i < name.size(); ++i)
        if (i != dot && !std::isdigit(static_cast<unsigned char>(name[i]))) return false;
    return true;
}

std::vector<std::string> TensorBoardRun::hparamsFolders(EventFileSource& files, const std::string& folder, const std::vector<EventFileSource::Entry>& entries) {
    std::vector<std::string> out;
    for (const auto& e : entries) {
        if (!e.folder || !isHParamsFolderName(e.name)) continue;
        try {
            if (!eventFiles(files.list(folder + "/" + e.name)).empty()) out.push_back(e.name);
        } catch (const IoError&) {
            // unreadable: not part of the run we can read
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool TensorBoardRun::holdsOurRun(const std::vector<EventFileSource::Entry>& entries) {
    for (const auto& e : entries)
        if (!e.folder && (e.name == "run.json" || e.name == "events.jsonl")) return true;
    return false;
}

void TensorBoardRun::findIn(EventFileSource& files, const std::string& root, const std::string& rel, int depthLeft, std::vector<std::string>& out) {
    const std::string folder = rel.empty() ? root : root + "/" + rel;
    std::vector<EventFileSource::Entry> entries;
    try {
        entries = files.list(folder);
    } catch (const IoError&) {
        if (rel.empty()) throw;  // the root itself must be readable; a sub-folder we may not read is passed over
        return;
    }
    if (holdsOurRun(entries)) return;
    const std::vector<std::string> folded = hparamsFolders(files, folder, entries);
    if (!eventFiles(entries).empty() || !folded.empty()) out.push_back(rel);
    if (depthLeft <= 0) return;
    for (const auto& e : entries)
        if (e.folder && e.name[0] != '.' && !std::binary_search(folded.begin(), folded.end(), e.name))
            findIn(files, root, rel.empty() ? e.name : rel + "/" + e.name, depthLeft - 1, out);
}

std::vector<std::string> TensorBoardRun::find(EventFileSource& files, const std::string& root, int maxDepth) {
    std::vector<std::string> out;
    findIn(files, root, std::string(), maxDepth, out);
    std::sort(out.begin(), out.end());
    return out;
}

const std::vector<std::string>& TensorBoardRun::checkpointFolders() {
    static const std::vector<std::string> folders = {"../checkpoints", "checkpoints", "."};
    return folders;
}

bool TensorBoardRun::isCheckpointName(const std::string& name) {
    auto endsWith = [&](const char* ext) {
        const std::string e = ext;
        return name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
    };
    return name[0] != '.' && (endsWith(".pt") || endsWith(".pth"));
}

std::vector<TensorBoardRun::CheckpointFile> TensorBoardRun::checkpoints(EventFileSource& files, const std::string& runDir) {
    std::vector<CheckpointFile> out;
    for (const std::string& folder : checkpointFolders()) {
        std::vector<EventFileSource::Entry> entries;
        try {
            entries = files.list(runDir + "/" + folder);
        } catch (const IoError&) {
            continue;  // most runs have one of these folders, not all three
        }
        for (const auto& e : entries)
            if (!e.folder && isCheckpointName(e.name)) out.push_back(CheckpointFile{folder + "/" + e.name, e.size, e.mtime});
    }
    // -1 when the stem does not end in digits ("last.pt"): such a name sorts first.
    auto number = [](const std::string& path) -> long long {
        const auto dot = path.rfind('.');
        size_t end = dot, begin = dot;
        while (begin > 0 && std::isdigit(static_cast<unsigned char>(path[begin - 1]))) --begin;
        if (begin == end || end - begin > 18) return -1;
        return std::stoll(path.substr(begin, end - begin));
    };
    std::sort(out.begin(), out.end(), [&](const CheckpointFile& a, const CheckpointFile& b) {
        const long long na = number(a.path), nb = number(b.path);
        if (na != nb) return na < nb;
        if (a.mtime != b.mtime) return a.mtime < b.mtime;
        return a.path < b.path;
    });
    return out;
}

std::string TensorBoardRun::imagePath(const std::string& eventFile, uint64_t recordOffset) { return eventFile + "#" + std::to_string(recordOffset); }

std::optional<TensorBoardRun::ImageRef> TensorBoardRun::parseImagePath(const std::string& path) {
    const auto hash = path.rfind('#');
    if (hash == std::string::npos || hash + 1 == path.size() || !isEventFileName(path.substr(0, hash))) return std::nullopt;
    if (path.find('/') != std::string::npos) return std::nullopt;  // a file of the run folder itself
    char* end = nullptr;
    const unsigned long long offset = std::strtoull(path.c_str() + hash + 1, &end, 10);
    if (*end != '\0') return std::nullopt;
    return ImageRef{path.substr(0, hash), offset};
}

std::string TensorBoardRun::readImage(EventFileSource& files, const std::string& runDir, const ImageRef& ref) {
    const std::string path = runDir + "/" + ref.eventFile;
    const std::string where = "'" + path + "' at offset " + std::to_string(ref.recordOffset);
    std::string bytes = files.read(path, ref.recordOffset, 64 << 10);
    TfRecordScanner::Step step = TfRecordScanner::next(bytes);
    if (step.result == TfRecordScanner::Result::NeedMore && bytes.size() >= 12) {  // a big image: read the whole record
        uint64_t length = 0;
        for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
        if (length <= TfRecordScanner::kMaxRecordBytes) bytes = files.read(path, ref.recordOffset, static_cast<size_t>(length) + TfRecordScanner::kOverhead);
        step = TfRecordScanner::next(bytes);
    }
    if (step.result != TfRecordScanner::Result::Record)
        throw IoError("no complete TensorBoard record in " + where + (step.why.empty() ? std::string() : " (" + step.why + ")"));
    const TfRecordReader::Event event = TfRecordReader::parseEvent(step.data);
    for (const auto& v : event.values)
        if (v.image && !v.image->encoded.empty()) return v.image->encoded;
    throw IoError("the TensorBoard record in " + where + " holds no image");
}

}  // namespace streetgan
