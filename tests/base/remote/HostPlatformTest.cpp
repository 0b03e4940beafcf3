// HostPlatform::script run for real on this machine (sh, as the set-up runs it over SSH) and read
// back with parse(): each fact against what this machine says through another way.
#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>

#include "base/remote/HostPlatform.h"
#include "base/remote/ShellQuote.h"
#include "support/TempDir.h"

using namespace streetgan;

namespace {

std::string output(const std::string& command) {
    std::string out;
    std::unique_ptr<FILE, int (*)(FILE*)> p(::popen(command.c_str(), "r"), ::pclose);
    if (!p) return out;
    std::array<char, 4096> buf{};
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p.get())) > 0) out.append(buf.data(), n);
    return out;
}

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

TEST(HostPlatform, TheScriptReportsThisMachine) {
    const HostPlatform h = HostPlatform::parse(output("sh -c " + ShellQuote::quote(HostPlatform::script())));
    utsname u{};
    ASSERT_EQ(::uname(&u), 0);
    EXPECT_EQ(h.kernel, u.sysname);
    EXPECT_EQ(h.machine, u.machine);
    EXPECT_EQ("glibc " + h.glibc, firstLine(output("getconf GNU_LIBC_VERSION")));
    // The host's libstdc++ has at least the GLIBCXX of the C++17 it was built with.
    EXPECT_GE(compareVersions(h.glibcxx, "3.4.21"), 0) << h.glibcxx;
    EXPECT_EQ(h.cxx.rfind("c++ ", 0), 0u) << h.cxx;
    EXPECT_EQ(h.cxx.substr(4), firstLine(output("c++ -dumpfullversion")));
    EXPECT_EQ(h.cmake.empty(), output("command -v cmake").empty());
    // python3 on PATH is looked at, with Debian's python3-torch (packaging/install-deps.sh) seen.
    const std::string python3 = firstLine(output("command -v python3"));
    ASSERT_FALSE(h.pythons.empty());
    EXPECT_EQ(h.pythons[0].path, python3);
    EXPECT_EQ(h.pythons[0].version, firstLine(output("python3 -c 'import platform; print(platform.python_version())'")));
    EXPECT_EQ(h.pythons[0].torch, firstLine(output("python3 -c 'import torch; print(torch.__version__)' 2>/dev/null")));
    EXPECT_TRUE(h.gpus.empty() == output("command -v nvidia-smi").empty() || h.gpus.empty());
}

TEST(HostPlatform, APythonNamedFirstIsAskedFirstAndOneWithoutTorchSaysWhy) {
    streetgan::test::TempDir dir;
    // An interpreter that cannot see site-packages (so no torch), as a venv without torch is.
    const std::string py = dir / "python";
    std::ofstream(py) << "#!/bin/sh\nexec python3 -I -S \"$@\"\n";
    std::filesystem::permissions(py, std::filesystem::perms::owner_all);
    const HostPlatform h = HostPlatform::parse(output("sh -c " + ShellQuote::quote(HostPlatform::script({py, "/no/such/python"}))));
    ASSERT_FALSE(h.pythons.empty());
    EXPECT_EQ(h.pythons[0].path, py);
    EXPECT_FALSE(h.pythons[0].hasTorch());
    EXPECT_EQ(h.pythons[0].torchProblem, "No module named 'torch'");
    for (const auto& p : h.pythons) EXPECT_NE(p.path, "/no/such/python");
}
