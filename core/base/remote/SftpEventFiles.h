// EventFileSource over SFTP: a TensorBoard run on a host where only sshd runs (a DL1 box with
// the reference project's Python trainer) is listed and followed with SftpClient (listings, and
// pipelined reads from the last offset read). SFTP cannot tell of changes: wait() sleeps, so a
// record appended there is seen within that wait plus the link's round trips.
//
// Thread contract: one thread, the SftpClient's. Errors: RemoteError, ConnectionLostError.
#pragma once

#include "base/tensorboard/EventFileSource.h"

namespace streetgan {

class SftpClient;

class SftpEventFiles : public EventFileSource {
public:
    explicit SftpEventFiles(SftpClient& sftp) : sftp_(sftp) {}

    std::vector<Entry> list(const std::string& folder) override;
    std::string read(const std::string& path, uint64_t offset, std::size_t maxBytes) override;
    void wait(const std::string& folder, std::chrono::milliseconds timeout) override;

private:
    SftpClient& sftp_;
};

}  // namespace streetgan
