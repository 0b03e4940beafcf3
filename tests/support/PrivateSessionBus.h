// A private D-Bus session bus for a test process: a dbus-daemon of its own (a temporary config:
// listens on a socket in a temporary folder, no service activation, anyone may own any name),
// started before the QApplication and named in DBUS_SESSION_BUS_ADDRESS, so the code under test
// talks to it and never to the desktop's bus. Stopped (SIGTERM) and its folder removed on
// destruction (a child of this process, reaped). Header-only; make one in main() before anything
// uses D-Bus (before any thread: it forks).
#pragma once

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace streetgan::test {

class PrivateSessionBus {
public:
    PrivateSessionBus() {
        char tmpl[] = "/tmp/streetgan-bus-XXXXXX";
        if (!::mkdtemp(tmpl)) {
            error_ = "cannot make a temporary folder for the test bus";
            return;
        }
        dir_ = tmpl;
        std::ofstream(dir_ + "/bus.conf") << "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
                                             " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
                                             "<busconfig><type>session</type><listen>unix:dir="
                                          << dir_
                                          << "</listen><auth>EXTERNAL</auth><policy context=\"default\">"
                                             "<allow send_destination=\"*\" eavesdrop=\"true\"/><allow eavesdrop=\"true\"/><allow own=\"*\"/>"
                                             "</policy></busconfig>\n";
        // A child of ours (not --fork): the destructor stops and reaps it. It prints its address
        // on a pipe once it listens.
        int fds[2];
        if (::pipe(fds) != 0) {
            error_ = "cannot make a pipe for dbus-daemon";
            return;
        }
        const std::string config = "--config-file=" + dir_ + "/bus.conf";
        const std::string print = "--print-address=" + std::to_string(fds[1]);
        pid_ = ::fork();
        if (pid_ == 0) {
            ::close(fds[0]);
            ::execlp("dbus-daemon", "dbus-daemon", config.c_str(), "--nofork", "--nopidfile", print.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ::close(fds[1]);
        std::string address;
        char c;
        while (pid_ > 0 && ::read(fds[0], &c, 1) == 1 && c != '\n') address += c;
        ::close(fds[0]);
        if (address.rfind("unix:", 0) != 0) {
            error_ = "dbus-daemon did not start (install the dbus-daemon package)";
            return;
        }
        address_ = address;
        ::setenv("DBUS_SESSION_BUS_ADDRESS", address_.c_str(), 1);
    }

    ~PrivateSessionBus() {
        if (pid_ > 0) {
            ::kill(pid_, SIGTERM);
            ::waitpid(pid_, nullptr, 0);
        }
        if (!dir_.empty()) {
            std::error_code ec;
            std::filesystem::remove_all(dir_, ec);
        }
    }

    PrivateSessionBus(const PrivateSessionBus&) = delete;
    PrivateSessionBus& operator=(const PrivateSessionBus&) = delete;

    bool ok() const { return !address_.empty(); }
    /// Why it did not start ("" when ok()).
    const std::string& error() const { return error_; }
    const std::string& address() const { return address_; }

private:
    std::string dir_, address_, error_;
    pid_t pid_ = 0;
};

}  // namespace streetgan::test
