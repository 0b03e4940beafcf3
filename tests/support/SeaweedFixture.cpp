#include "support/SeaweedFixture.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/RankProcess.h"

#ifndef STREETGAN_S3_VENV
#error "SeaweedFixture needs STREETGAN_S3_VENV (tests/base/CMakeLists.txt: the venv tests/python/s3-env.sh makes)"
#endif

namespace streetgan::test {

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// An HTTP GET on loopback; -1 when nothing answers.
int httpStatus(int port, const std::string& path, std::string* body = nullptr) {
    httplib::Client client("127.0.0.1", port);
    client.set_connection_timeout(std::chrono::seconds(2));
    client.set_read_timeout(std::chrono::seconds(10));
    const auto r = client.Get(path);
    if (!r) return -1;
    if (body) *body = r->body;
    return r->status;
}

}  // namespace

std::string SeaweedFixture::unavailableReason() {
    // s3-env.sh --skip-marker writes this file instead of failing when pip's index is unreachable.
    const std::string marker = std::string(STREETGAN_S3_VENV) + ".unavailable";
    return std::filesystem::exists(marker) ? slurp(marker) : "";
}

SeaweedFixture::SeaweedFixture(const std::string& dir) : dir_(dir), weed_(std::string(STREETGAN_S3_VENV) + "/bin/weed") {
    if (!std::filesystem::exists(weed_))
        throw std::runtime_error("no SeaweedFS at " + weed_ + ": run tests/python/s3-env.sh " + STREETGAN_S3_VENV +
                                 " (ctest runs it as the fixture s3_env_build)");
    std::ofstream(dir_ + "/s3.json") << R"({"identities":[{"name":"streetgan-test","credentials":[{"accessKey":")" << kAccessKey << R"(","secretKey":")"
                                     << kSecretKey << R"("}],"actions":["Admin","Read","Write","List","Tagging"]},)"
                                     << R"({"name":"streetgan-reader","credentials":[{"accessKey":")" << kReaderKey << R"(","secretKey":")" << kReaderSecret
                                     << R"("}],"actions":["Read:streetgan-data/public/*","List:streetgan-data"]}]})";
    // A port picked free may be taken before weed binds it (another test's server): then weed
    // exits, and a new set of ports is tried.
    for (int attempt = 0; attempt < 4; ++attempt)
        if (start()) return;
    throw std::runtime_error("SeaweedFS did not start after 4 tries; the end of its last log:\n" + logSummary());
}

bool SeaweedFixture::start() {
    std::vector<int> ports;
    while (ports.size() < 10) {  // ten different ones: the kernel may hand the same free port out twice
        const int port = RankProcess::freePort();
        if (std::find(ports.begin(), ports.end(), port) == ports.end()) ports.push_back(port);
    }
    masterPort_ = ports[0];
    filerPort_ = ports[4];
    s3Port_ = ports[6];
    const std::string data = dir_ + "/data";
    std::filesystem::remove_all(data);
    std::filesystem::create_directories(data);
    auto flag = [](const char* name, int port) { return std::string("-") + name + "=" + std::to_string(port); };
    // Every listener on its own port (the gRPC ones too, which default to port + 10000, and the
    // gateway's Iceberg and Lance catalogs, which default to fixed ports), all on loopback.
    std::vector<std::string> argv = {weed_, "server", "-dir=" + data, "-ip=127.0.0.1", "-ip.bind=127.0.0.1", flag("master.port", ports[0]),
                                     flag("master.port.grpc", ports[1]), flag("volume.port", ports[2]), flag("volume.port.grpc", ports[3]),
                                     flag("filer.port", ports[4]), flag("filer.port.grpc", ports[5]), "-s3", flag("s3.port", ports[6]),
                                     flag("s3.port.grpc", ports[7]), flag("s3.port.iceberg", ports[8]), flag("s3.port.lance", ports[9]),
                                     "-s3.config=" + dir_ + "/s3.json", "-s3.autoCreateBucket=false",
                                     // Its Unix sockets in the test's folder, not /tmp/seaweedfs-*-PORT.sock.
                                     "-filer.localSocket=" + dir_ + "/filer.sock", "-s3.localSocket=" + dir_ + "/s3.sock",
                                     // Small volumes: the disk of a test machine, not a cluster's.
                                     "-master.volumeSizeLimitMB=64", "-volume.max=0",
                                     // Writable down to 256 MiB free, not weed's 1% of the disk
                                     // (2.5 GB of a 250 GB build machine's).
                                     "-volume.minFreeSpace=256MiB"};
    // TMPDIR: weed's own log files (glog) go to the test's folder, not /tmp.
    std::filesystem::create_directories(dir_ + "/tmp");
    server_ = std::make_unique<RankProcess>(argv, std::map<std::string, std::string>{{"TMPDIR", dir_ + "/tmp"}}, dir_ + "/weed");
    grpcPorts_ = {ports[1], ports[3], ports[5], ports[7]};
    // Ready when the S3 gateway answers (any status: anonymous requests get 403) and the master
    // hands out a writable volume (the volume server has registered and grown one).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
        if (server_->wait(0)) {
            stop();
            return false;
        }
        std::string assign;
        if (httpStatus(s3Port_, "/") > 0 && httpStatus(masterPort_, "/dir/assign", &assign) == 200 && assign.find("\"fid\"") != std::string::npos) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const std::string why = "SeaweedFS did not become ready within 120 s; the end of its log:\n" + logSummary();
    stop();
    throw std::runtime_error(why);
}

SeaweedFixture::~SeaweedFixture() { stop(); }

void SeaweedFixture::stop() {
    // SIGKILL, not SIGTERM: weed's graceful shutdown drains its gRPC streams for about 23 s, and
    // what it would flush is the test's throw-away folder. RankProcess's destructor kills the
    // server and reaps it.
    server_.reset();
    // Its gRPC Unix sockets are always /tmp/seaweedfs-<server>-grpc-<port>.sock (no flag moves
    // them), and a killed server leaves them: removed here, by the ports this fixture chose.
    for (const char* name : {"master", "volume", "filer", "s3"})
        for (int port : grpcPorts_) std::filesystem::remove("/tmp/seaweedfs-" + std::string(name) + "-grpc-" + std::to_string(port) + ".sock");
    grpcPorts_.clear();
}

pid_t SeaweedFixture::pid() const { return server_ ? server_->pid() : -1; }

std::string SeaweedFixture::endpoint() const { return "http://127.0.0.1:" + std::to_string(s3Port_); }
std::string SeaweedFixture::filerUrl() const { return "http://127.0.0.1:" + std::to_string(filerPort_); }

std::string SeaweedFixture::logSummary() const {
    // The reason weed gives for not taking writes (a full disk) and its last lines; the whole
    // log repeats the readiness poll's refused volume assignments hundreds of times.
    std::istringstream in(log());
    std::vector<std::string> lines;
    std::string line, reasons;
    while (std::getline(in, line)) {
        if (reasons.empty() && line.find("disk free") != std::string::npos) reasons = line + "\n";
        lines.push_back(line);
    }
    std::string tail;
    for (size_t i = lines.size() > 20 ? lines.size() - 20 : 0; i < lines.size(); ++i) tail += lines[i] + "\n";
    return reasons + tail;
}

std::string SeaweedFixture::log() const { return slurp(dir_ + "/weed.err") + slurp(dir_ + "/weed.out"); }

}  // namespace streetgan::test
