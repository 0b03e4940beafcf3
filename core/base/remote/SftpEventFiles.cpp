#include "base/remote/SftpEventFiles.h"

#include <thread>

#include "base/remote/RemoteError.h"
#include "base/remote/SftpClient.h"
#include "base/util/Errors.h"

namespace streetgan {

std::vector<EventFileSource::Entry> SftpEventFiles::list(const std::string& folder) {
    std::vector<Entry> out;
    try {
        for (const auto& f : sftp_.list(folder)) out.push_back(Entry{f.name, f.size, f.isDir, static_cast<int64_t>(f.mtime)});
    } catch (const ConnectionLostError&) {
        throw;
    } catch (const RemoteError& e) {  // no such folder, permission denied: what a local listing throws
        throw IoError(e.what());
    }
    return out;
}

std::string SftpEventFiles::read(const std::string& path, uint64_t offset, std::size_t maxBytes) {
    try {
        return sftp_.readRange(path, offset, maxBytes);
    } catch (const ConnectionLostError&) {
        throw;
    } catch (const RemoteError& e) {
        throw IoError(e.what());
    }
}

void SftpEventFiles::wait(const std::string&, std::chrono::milliseconds timeout) { std::this_thread::sleep_for(timeout); }

}  // namespace streetgan
