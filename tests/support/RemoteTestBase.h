// Shared set-up of the sshd-backed tests: a temp folder, a user key in a temporary
// authorized_keys, one target sshd, an optional jump sshd, and SshOptions that touch nothing in
// ~/.ssh (explicit known_hosts, no config file, no agent, no default identities).
#pragma once

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "base/remote/SshOptions.h"
#include "support/SshdFixture.h"
#include "support/TempDir.h"

namespace streetgan::test {

class RemoteTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::filesystem::create_directories(tmp / "target");
        std::filesystem::create_directories(tmp / "jump");
        SshdFixture::generateKey(userKey());
        std::filesystem::copy_file(userKey() + ".pub", authorizedKeys());
        target = std::make_unique<SshdFixture>(tmp / "target", authorizedKeys());
        std::ofstream(knownHosts()) << target->knownHostsLine();
    }

    /// Starts the jump host (DEBUG1 logs show its direct-tcpip requests) and trusts its key.
    SshdFixture& startJump(bool allowForwarding = true) {
        SshdFixture::Options o;
        o.logLevel = "DEBUG1";
        o.allowTcpForwarding = allowForwarding;
        jump = std::make_unique<SshdFixture>(tmp / "jump", authorizedKeys(), o);
        std::ofstream(knownHosts(), std::ios::app) << jump->knownHostsLine();
        return *jump;
    }

    std::string userKey() const { return tmp / "id_user"; }
    std::string authorizedKeys() const { return tmp / "authorized_keys"; }
    std::string knownHosts() const { return tmp / "known_hosts"; }

    SshOptions options() const {
        SshOptions o;
        o.host = "127.0.0.1";
        o.port = target->port();
        o.identityFiles = {userKey()};
        o.knownHostsFile = knownHosts();
        o.configFile = "none";
        o.useAgent = false;
        o.useDefaultIdentities = false;
        o.connectTimeoutSeconds = 30;
        return o;
    }

    static std::string slurp(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    static bool exists(const std::string& path) {
        struct stat st {};
        return ::stat(path.c_str(), &st) == 0;
    }
    /// Polls `cond` every 10 ms until it holds or `seconds` pass.
    static bool waitFor(const std::function<bool()>& cond, double seconds = 30) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (std::chrono::steady_clock::now() < end) {
            if (cond()) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return cond();
    }

    TempDir tmp;
    std::unique_ptr<SshdFixture> target, jump;
};

}  // namespace streetgan::test
