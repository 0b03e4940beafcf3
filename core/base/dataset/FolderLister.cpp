#include "base/dataset/FolderLister.h"

#include <sys/stat.h>

#include <fstream>
#include <utility>

#include "base/dataset/DatasetNames.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {

namespace fs = std::filesystem;
using namespace dataset_names;

/// CSV files larger than this are not read (MSLS's largest is a few tens of MB).
constexpr uintmax_t kMaxCsvBytes = uintmax_t{512} << 20;

}  // namespace

void FolderLister::list(const fs::path& absRoot, const std::string& root, std::vector<DatasetIndex::ListedFile>& files, std::map<std::string, int64_t>& skipped,
                        DatasetIndex::SkippedFiles* skippedFiles) {
    auto skip = [&](const char* reason, const std::string& rel) {
        ++skipped[reason];
        if (skippedFiles) (*skippedFiles)[reason].push_back(rel);
    };
    struct Pending {
        fs::path abs;
        std::string rel;
    };
    std::vector<Pending> stack;
    stack.push_back({absRoot, std::string()});
    while (!stack.empty()) {
        Pending dir = std::move(stack.back());
        stack.pop_back();
        std::error_code dirEc;
        fs::directory_iterator it(dir.abs, dirEc);
        if (dirEc) {
            if (dir.rel.empty()) throw IoError("cannot list data folder '" + root + "' (" + dirEc.message() + "): check its permissions");
            skip(kUnreadableFolder, dir.rel);
            continue;
        }
        const fs::directory_iterator end;
        while (it != end) {
            const fs::directory_entry& de = *it;
            const std::string name = de.path().filename().string();
            const std::string rel = dir.rel.empty() ? name : dir.rel + "/" + name;
            const std::string ext = extensionOf(name);
            const bool imageNamed = isImageExtension(ext) || isUnsupportedImageExtension(ext);
            const bool relevant = imageNamed || isSequenceCsvName(name);
            std::error_code e2;
            fs::file_status ts = de.symlink_status(e2);
            bool usable = !e2;
            if (usable && fs::is_symlink(ts)) {
                ts = de.status(e2);  // follows the link
                usable = !e2 && fs::exists(ts);
                if (usable && fs::is_directory(ts)) {
                    skip(kDirSymlink, rel);
                    usable = false;
                    ts = fs::file_status(fs::file_type::none);
                } else if (!usable && imageNamed) {
                    skip(kUnreadableFile, rel);
                }
            } else if (!usable && imageNamed) {
                skip(kUnreadableFile, rel);
            }
            if (usable) {
                if (fs::is_directory(ts)) {
                    if (isHiddenFolderName(name))
                        skip(kHiddenFolder, rel);
                    else
                        stack.push_back({de.path(), rel});
                } else if (relevant) {
                    struct stat st {};
                    if (!fs::is_regular_file(ts)) {
                        if (imageNamed) skip(kNotRegular, rel);
                    } else if (::stat(de.path().c_str(), &st) != 0) {  // one stat: size and mtime (the verdict cache's key)
                        if (imageNamed) skip(kUnreadableFile, rel);
                    } else {
                        const int64_t mtimeNs = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + static_cast<int64_t>(st.st_mtim.tv_nsec);
                        files.push_back({rel, static_cast<uint64_t>(st.st_size), mtimeNs});
                    }
                }
            }
            it.increment(dirEc);
            if (dirEc) {
                skip(kUnreadableFolder, dir.rel.empty() ? std::string(".") : dir.rel);
                break;
            }
        }
    }
}

DatasetIndex::TextReader FolderLister::textReader(const fs::path& absRoot) {
    return [absRoot](const std::string& rel) -> std::optional<std::string> {
        const fs::path p = (absRoot / fs::path(rel)).lexically_normal();
        std::error_code e;
        const fs::file_status s = fs::status(p, e);
        if (e || !fs::is_regular_file(s)) return std::nullopt;
        const uintmax_t size = fs::file_size(p, e);
        if (e || size > kMaxCsvBytes) return std::nullopt;
        std::ifstream in(p, std::ios::binary);
        if (!in) return std::nullopt;
        std::string text(static_cast<size_t>(size), '\0');
        in.read(text.data(), static_cast<std::streamsize>(size));
        if (in.bad()) return std::nullopt;
        text.resize(static_cast<size_t>(in.gcount()));
        return text;
    };
}

}  // namespace streetgan
