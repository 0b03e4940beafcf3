// RemoteTrainerSetup against a real sshd on loopback: the probe (nothing there, the build-tree
// trainer, a protocol-0 trainer), the no-root install of the real streetgan-trainer .deb into a
// temp prefix (then its wrapper run over SSH), the refusal of a .deb whose Depends are missing
// (a small real .deb built with dpkg-deb), the source build up to build-trainer.sh's own checks,
// cancelling a remote build, and where the app finds the files it uploads.
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "base/remote/RemoteTrainerSetup.h"
#include "base/remote/ShellQuote.h"
#include "base/remote/SshSession.h"
#include "base/remote/TrainerPlan.h"
#include "base/util/Errors.h"
#include "base/util/Version.h"
#include "support/RemoteTestBase.h"

using namespace streetgan;
using namespace streetgan::test;
namespace fs = std::filesystem;

namespace {

void writeFile(const std::string& path, const std::string& text, fs::perms perms = fs::perms::owner_read | fs::perms::owner_write) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
    fs::permissions(path, perms);
}

const fs::perms kExec = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec;

/// A real .deb made with dpkg-deb: package `name`, version, Depends (none when empty), one file.
std::string makeDeb(const fs::path& dir, const std::string& name, const std::string& version, const std::string& depends) {
    const fs::path root = dir / (name + "-root");
    writeFile((root / "usr/bin" / name).string(), "#!/bin/sh\necho \"" + name + " " + version + "\"\n", kExec);
    std::string control = "Package: " + name + "\nVersion: " + version + "\nArchitecture: all\nMaintainer: Tests <t@example.org>\n";
    if (!depends.empty()) control += "Depends: " + depends + "\n";
    control += "Description: test package\n";
    writeFile((root / "DEBIAN/control").string(), control);
    const std::string deb = (dir / (name + "_" + version + "_all.deb")).string();
    shellOutput("dpkg-deb --root-owner-group --build " + ShellQuote::quote(root.string()) + " " + ShellQuote::quote(deb) + " >/dev/null");
    return deb;
}

std::string osRelease(const std::string& key) {
    std::ifstream in("/etc/os-release");
    for (std::string l; std::getline(in, l);)
        if (l.rfind(key + "=", 0) == 0) {
            std::string v = l.substr(key.size() + 1);
            if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
            return v;
        }
    return {};
}

}  // namespace

class RemoteTrainerSetupTest : public RemoteTest {
protected:
    void SetUp() override {
        RemoteTest::SetUp();
        session = SshSession::connect(options());
        prefix = tmp / "prefix";
    }
    RemoteTrainerSetup setup() {
        SetupOptions o;
        o.prefix = prefix;
        o.workDir = tmp / "work";
        o.onLine = [this](const std::string& l) { lines.push_back(l); };
        o.cancel = &cancel;
        return RemoteTrainerSetup(*session, o);
    }
    bool sawLine(const std::string& part) const {
        for (const auto& l : lines)
            if (l.find(part) != std::string::npos) return true;
        return false;
    }
    /// A source tarball holding one folder with packaging/build-trainer.sh (`script`: its text).
    std::string sourceTarball(const std::string& script) {
        writeFile(tmp / "src/streetgan-9.9/packaging/build-trainer.sh", script, kExec);
        const std::string tgz = tmp / "streetgan-source.tar.gz";
        shellOutput("tar -czf " + ShellQuote::quote(tgz) + " -C " + ShellQuote::quote(tmp / "src") + " streetgan-9.9");
        return tgz;
    }

    std::unique_ptr<SshSession> session;
    std::string prefix;
    std::vector<std::string> lines;
    std::atomic<bool> cancel{false};
};

TEST_F(RemoteTrainerSetupTest, ProbeOfAnEmptyPrefixFindsNoTrainerAndTheOs) {
    const TrainerProbe p = setup().probe();
    EXPECT_EQ(p.state, TrainerProbe::State::Missing);
    EXPECT_EQ(p.summary(), "not installed");
    EXPECT_EQ(p.protocol, -1);
    EXPECT_EQ(p.osId, osRelease("ID"));
    EXPECT_EQ(p.osVersionId, osRelease("VERSION_ID"));
    EXPECT_EQ(p.isDebian12(), osRelease("ID") == "debian" && osRelease("VERSION_ID") == "12");
    EXPECT_FALSE(p.home.empty());
}

TEST_F(RemoteTrainerSetupTest, ProbeOfTheBuildTreeTrainerReportsThisProtocol) {
    const TrainerProbe p = setup().probe(STREETGAN_TRAINER);
    EXPECT_EQ(p.state, TrainerProbe::State::Ready) << p.summary();
    EXPECT_EQ(p.trainer, STREETGAN_TRAINER);
    // Its --version line (CLI11's flag, another code path) names the same version. (Not
    // Version::text(): the trainer may have been rebuilt at a later commit than this test.)
    const std::string line = shellOutput(std::string(STREETGAN_TRAINER) + " --version");
    const std::string version = line.substr(18, line.find(' ', 18) - 18);
    EXPECT_EQ(line.rfind("streetgan-trainer ", 0), 0u) << line;
    EXPECT_EQ(p.version, version);
    EXPECT_EQ(p.protocol, Version::kProtocol);
    EXPECT_FALSE(p.libtorch.empty());
    EXPECT_TRUE(p.device == "CPU" || p.device == "CUDA") << p.device;
    EXPECT_EQ(p.summary(), "streetgan-trainer " + version + " (protocol " + std::to_string(Version::kProtocol) + ")");
    EXPECT_EQ(RemoteTrainerSetup::protocolMismatch("h", p.version, p.protocol), "");
}

TEST_F(RemoteTrainerSetupTest, ATrainerWithoutTheVersionCommandIsProtocolZeroAndIncompatible) {
    // What a trainer from before `version --json` answers: CLI11's usage error, and --version.
    writeFile(prefix + "/bin/streetgan-trainer",
              "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'streetgan-trainer 0.1.0+git60.gabcdef0 (LibTorch 2.1.2, CPU)'; exit 0; fi\n"
              "echo \"The following argument was not expected: $1\" >&2; exit 2\n",
              kExec);
    const TrainerProbe p = setup().probe();
    EXPECT_EQ(p.state, TrainerProbe::State::Incompatible);
    EXPECT_EQ(p.trainer, prefix + "/bin/streetgan-trainer");
    EXPECT_EQ(p.version, "0.1.0+git60.gabcdef0");
    EXPECT_EQ(p.protocol, 0);
    EXPECT_EQ(p.libtorch, "2.1.2");
    EXPECT_EQ(p.device, "CPU");
    EXPECT_EQ(p.summary(), "incompatible (protocol 0)");
    EXPECT_EQ(RemoteTrainerSetup::protocolMismatch("gpu-box", p.version, p.protocol),
              "host gpu-box runs streetgan-trainer 0.1.0+git60.gabcdef0 (protocol 0); this app speaks protocol " + std::to_string(Version::kProtocol) +
                  ": set it up again (Set up… in the hosts list)");
}

TEST_F(RemoteTrainerSetupTest, ATrainerThatDoesNotAnswerIsReportedWithItsOutput) {
    writeFile(prefix + "/bin/streetgan-trainer", "#!/bin/sh\necho 'error while loading shared libraries: libtorch.so' >&2; exit 127\n", kExec);
    const TrainerProbe p = setup().probe();
    EXPECT_EQ(p.state, TrainerProbe::State::Missing);
    EXPECT_EQ(p.summary(), "not working (error while loading shared libraries: libtorch.so)");
}

TEST_F(RemoteTrainerSetupTest, InstallsTheRealTrainerDebWithoutRootAndRunsIt) {
    std::string deb;
    for (const auto& e : fs::directory_iterator(STREETGAN_TEST_DEBS, fs::directory_options::skip_permission_denied))
        if (e.path().filename().string().rfind("streetgan-trainer_", 0) == 0 && e.path().extension() == ".deb") deb = e.path().string();
    ASSERT_FALSE(deb.empty()) << "no streetgan-trainer_*.deb in " STREETGAN_TEST_DEBS ": the `debs` test fixture builds it (packaging/build-debs.sh)";
    const std::string version = shellOutput("dpkg-deb -f " + ShellQuote::quote(deb) + " Version");
    const std::string ver = version.substr(0, version.find('\n'));

    uint64_t uploaded = 0;
    SetupOptions o;
    o.prefix = prefix;
    o.onLine = [this](const std::string& l) { lines.push_back(l); };
    o.onUpload = [&](uint64_t done, uint64_t) { uploaded = done; };
    const SetupResult r = RemoteTrainerSetup(*session, o).installDeb(deb);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(uploaded, fs::file_size(deb));
    EXPECT_EQ(r.version, ver);
    EXPECT_EQ(r.trainer, prefix + "/bin/streetgan-trainer");
    EXPECT_TRUE(exists(prefix + "/lib/streetgan-trainer/" + ver + "/usr/bin/streetgan-trainer"));
    // The wrapper, run over SSH, is the packaged trainer.
    const ExecResult run = session->exec(ShellQuote::join({r.trainer, "--version"}));
    ASSERT_TRUE(run.ok()) << run.err;
    EXPECT_EQ(run.out.rfind("streetgan-trainer ", 0), 0u) << run.out;
    EXPECT_NE(r.message.find(r.trainer), std::string::npos) << r.message;
    // The probe now finds it under the prefix (not on the test sshd's PATH).
    const TrainerProbe p = setup().probe();
    EXPECT_EQ(p.trainer, r.trainer);
    EXPECT_NE(p.state, TrainerProbe::State::Missing) << p.summary();
    EXPECT_FALSE(p.version.empty());
}

TEST_F(RemoteTrainerSetupTest, ADebWithMissingDependenciesIsRefusedWithTheAptLine) {
    const std::string deb = makeDeb(tmp.path(), "streetgan-trainer", "9.9.9", "libc6, streetgan-no-such-pkg-a (>= 1.0), streetgan-no-such-pkg-b | libc6:any");
    const SetupResult r = setup().installDeb(deb);
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.cancelled);
    EXPECT_EQ(r.missing, std::vector<std::string>{"streetgan-no-such-pkg-a"});
    EXPECT_NE(r.message.find("sudo apt install streetgan-no-such-pkg-a"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("9.9.9"), std::string::npos) << r.message;
    EXPECT_FALSE(exists(prefix + "/lib/streetgan-trainer/9.9.9"));
    EXPECT_FALSE(exists(prefix + "/bin/streetgan-trainer"));
}

TEST_F(RemoteTrainerSetupTest, ADebOfAnotherPackageIsRefused) {
    const std::string deb = makeDeb(tmp.path(), "hello-streetgan", "1.0", "");
    const SetupResult r = setup().installDeb(deb);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.message.find("'hello-streetgan', not streetgan-trainer"), std::string::npos) << r.message;
    EXPECT_FALSE(exists(prefix + "/bin/streetgan-trainer"));
}

TEST_F(RemoteTrainerSetupTest, TheAptSetUpAlsoRefusesAnotherPackageBeforeRunningApt) {
    const std::string deb = makeDeb(tmp.path(), "hello-streetgan", "1.0", "");
    bool asked = false;
    const SetupResult r = setup().installDebWithSudo(deb, [&](const std::string&) {
        asked = true;
        return std::optional<std::string>();
    });
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.cancelled);
    EXPECT_NE(r.message.find("'hello-streetgan', not streetgan-trainer"), std::string::npos) << r.message;
    EXPECT_FALSE(asked);  // no password is asked for a package that will not be installed
    EXPECT_FALSE(sawLine("apt-get"));
}

// The apt set-up for real: as root (CI runs the suite as root) apt-get installs the package itself,
// without sudo. A stand-in streetgan-trainer package is installed, run and removed again; skipped
// where that would replace a streetgan-trainer installed on this machine.
TEST_F(RemoteTrainerSetupTest, TheAptSetUpInstallsThePackageWithAptAndRunsIt) {
    if (::geteuid() != 0) GTEST_SKIP() << "not root: apt would need sudo and its password";
    if (std::system("dpkg-query -W -f='${Status}' streetgan-trainer 2>/dev/null | grep -q 'ok installed'") == 0)
        GTEST_SKIP() << "streetgan-trainer is installed on this machine: the test would replace it";
    const std::string deb = makeDeb(tmp.path(), "streetgan-trainer", "0.0.1~apttest", "");
    struct Remove {
        ~Remove() {
            if (std::system("dpkg -r streetgan-trainer >/dev/null 2>&1") != 0) ADD_FAILURE() << "dpkg -r streetgan-trainer failed";
        }
    } remove;
    bool asked = false;
    const SetupResult r = setup().installDebWithSudo(deb, [&](const std::string&) {
        asked = true;
        return std::optional<std::string>();
    });
    EXPECT_TRUE(r.ok) << r.message;
    EXPECT_FALSE(asked);  // root: no sudo, no password
    EXPECT_EQ(r.trainer, "/usr/bin/streetgan-trainer");
    EXPECT_NE(r.message.find("streetgan-trainer 0.0.1~apttest"), std::string::npos) << r.message;
    EXPECT_TRUE(sawLine("streetgan-trainer")) << "apt-get's output is streamed";
}

TEST_F(RemoteTrainerSetupTest, SourceBuildWithAPythonWithoutTorchStopsAtTheScriptsCheck) {
    // A venv-shaped folder whose python cannot see site-packages (so no torch), and the real
    // build-trainer.sh: the build must stop at its own check, with its one-line error streamed.
    writeFile(tmp / "venv/bin/python", "#!/bin/sh\nexec /usr/bin/python3 -I -S \"$@\"\n", kExec);
    const std::string tgz = sourceTarball(slurp(STREETGAN_SOURCE_DIR "/packaging/build-trainer.sh"));
    BuildEnvironment env{BuildEnvironment::Kind::Venv, tmp / "venv"};
    const SetupResult r = setup().buildFromSource(tgz, env);
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.cancelled);
    EXPECT_NE(r.message.find("cannot import torch"), std::string::npos) << r.message;
    EXPECT_EQ(r.message.find('\n'), std::string::npos);
    EXPECT_TRUE(sawLine("cannot import torch"));
    EXPECT_TRUE(exists(tmp / "work/source/packaging/build-trainer.sh"));  // unpacked from its top folder
    EXPECT_FALSE(exists(prefix + "/bin/streetgan-trainer"));
}

TEST_F(RemoteTrainerSetupTest, SourceBuildWithACondaEnvWithoutCondaSaysSo) {
    const std::string tgz = sourceTarball("#!/bin/sh\necho never run\n");
    // The test sshd's user (root) may have a conda; only assert when none is in the usual places.
    if (setup().probe().hasConda) GTEST_SKIP() << "this machine has conda";
    const SetupResult r = setup().buildFromSource(tgz, {BuildEnvironment::Kind::Conda, "pytorch"});
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.message.find("conda not found"), std::string::npos) << r.message;
    EXPECT_FALSE(sawLine("never run"));
}

TEST_F(RemoteTrainerSetupTest, ASuccessfulBuildInstallsTheWrapperAndStreamsItsOutput) {
    // A stand-in build script with the real one's contract: builds BUILD_DIR/app/streetgan-trainer
    // and ends with its --version line.
    const std::string tgz = sourceTarball(
        "#!/usr/bin/env bash\nset -e\nwhile [[ $# -gt 0 ]]; do case $1 in --build-dir) b=$2; shift 2;; *) echo \"arg $1\"; shift;; esac; done\n"
        "mkdir -p \"$b/app\"\nprintf '#!/bin/sh\\necho \"streetgan-trainer 9.9-src (LibTorch 2.1.2, CPU)\"\\n' > \"$b/app/streetgan-trainer\"\n"
        "chmod +x \"$b/app/streetgan-trainer\"\necho 'step one'\n\"$b/app/streetgan-trainer\" --version\n");
    const SetupResult r = setup().buildFromSource(tgz, {BuildEnvironment::Kind::LibTorch, "/opt/libtorch"});
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_TRUE(sawLine("arg --libtorch"));
    EXPECT_TRUE(sawLine("arg /opt/libtorch"));
    EXPECT_TRUE(sawLine("step one"));
    EXPECT_EQ(r.version, "streetgan-trainer 9.9-src (LibTorch 2.1.2, CPU)");
    const ExecResult run = session->exec(ShellQuote::quote(r.trainer) + " --version");
    EXPECT_EQ(run.out, "streetgan-trainer 9.9-src (LibTorch 2.1.2, CPU)\n");
}

TEST_F(RemoteTrainerSetupTest, AFailedRebuildLeavesThePreviousTrainerWorking) {
    // The first build installs; the second breaks its own build folder (as a failed compile or link
    // leaves it) and fails: the wrapper must still run the first trainer.
    const std::string good = sourceTarball(
        "#!/usr/bin/env bash\nset -e\nwhile [[ $# -gt 0 ]]; do case $1 in --build-dir) b=$2; shift 2;; *) shift;; esac; done\n"
        "mkdir -p \"$b/app\"\nprintf '#!/bin/sh\\necho \"streetgan-trainer 1.0-first (LibTorch 2.11.0, CPU)\"\\n' > \"$b/app/streetgan-trainer\"\n"
        "chmod +x \"$b/app/streetgan-trainer\"\n\"$b/app/streetgan-trainer\" --version\n");
    const SetupResult first = setup().buildFromSource(good, {BuildEnvironment::Kind::Python, ""});
    ASSERT_TRUE(first.ok) << first.message;
    EXPECT_TRUE(exists(prefix + "/lib/streetgan-trainer/host-build/streetgan-trainer"));
    const std::string bad = sourceTarball(
        "#!/usr/bin/env bash\nwhile [[ $# -gt 0 ]]; do case $1 in --build-dir) b=$2; shift 2;; *) shift;; esac; done\n"
        "rm -f \"$b/app/streetgan-trainer\"; echo 'ld: cannot find -ltorch_cpu'; exit 1\n");
    const SetupResult second = setup().buildFromSource(bad, {BuildEnvironment::Kind::Python, ""});
    EXPECT_FALSE(second.ok);
    EXPECT_NE(second.message.find("ld: cannot find -ltorch_cpu"), std::string::npos) << second.message;
    const ExecResult run = session->exec(ShellQuote::quote(first.trainer) + " --version");
    EXPECT_EQ(run.out, "streetgan-trainer 1.0-first (LibTorch 2.11.0, CPU)\n") << run.err;
}

TEST_F(RemoteTrainerSetupTest, AFailedBuildIsReportedByItsFirstErrorNotByNinjasLastLine) {
    // Output as a real failed build gives it: progress, the compiler's error and its notes, then
    // ninja's summary. The one line must say what failed.
    const std::string compile = sourceTarball(
        "#!/usr/bin/env bash\necho '[12/281] Building CXX object core/a.cpp.o'\necho 'FAILED: core/b.cpp.o'\n"
        "echo '/src/core/b.cpp:7:3: error: no member named \"span\" in namespace \"std\"'\necho '    7 |   std::span<int> s;'\n"
        "echo '/src/core/c.cpp:9:1: error: a second error'\necho 'ninja: build stopped: subcommand failed.'\nexit 1\n");
    const SetupResult r = setup().buildFromSource(compile, {BuildEnvironment::Kind::Python, ""});
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.message.find("failed: /src/core/b.cpp:7:3: error: no member named \"span\" in namespace \"std\" (the whole output is above)"),
              std::string::npos)
        << r.message;
    EXPECT_TRUE(sawLine("ninja: build stopped"));
    // CMake's message is on the line after its "CMake Error at": both make the line.
    const std::string configure = sourceTarball(
        "#!/usr/bin/env bash\necho 'CMake Error at CMakeLists.txt:64 (find_package):'\necho '  Could not find a package configuration file provided by "
        "\"Torch\"'\n"
        "echo ''\necho '-- Configuring incomplete, errors occurred!'\nexit 1\n");
    const SetupResult c = setup().buildFromSource(configure, {BuildEnvironment::Kind::Python, ""});
    EXPECT_FALSE(c.ok);
    EXPECT_NE(c.message.find("failed: CMake Error at CMakeLists.txt:64 (find_package): Could not find a package configuration file provided by \"Torch\""),
              std::string::npos)
        << c.message;
}

TEST_F(RemoteTrainerSetupTest, ThePlatformProbeOverSshSaysWhatThisMachineIs) {
    const HostPlatform h = setup().probePlatform();
    EXPECT_EQ(h.kernel, "Linux");
    EXPECT_EQ("glibc " + h.glibc + "\n", shellOutput("getconf GNU_LIBC_VERSION"));
    EXPECT_EQ(h.osId, osRelease("ID"));
    // The first Python is the SSH session's python3 (its PATH, not this test's), torch or not.
    ASSERT_FALSE(h.pythons.empty());
    const ExecResult python3 = session->exec("command -v python3");
    EXPECT_EQ(h.pythons[0].path + "\n", python3.out);
    const ExecResult torch = session->exec("python3 -c 'import torch; print(torch.__version__, end=\"\")'");
    EXPECT_EQ(h.pythons[0].torch, torch.ok() ? torch.out : "");
}

// A bundle made by packaging/gpu-bundle.sh from this build's trainer (against Debian's LibTorch and
// the Python torch of python3-torch, where the GPU bundle has pip's): uploaded, run against the
// named Python's torch, switched in; then a broken bundle is refused and leaves it in place.
TEST_F(RemoteTrainerSetupTest, ABundleIsCheckedAgainstTheHostsTorchBeforeItIsSwitchedIn) {
    const std::string trainer = STREETGAN_TRAINER;
    const std::string made =
        shellOutput("cd " + ShellQuote::quote(STREETGAN_SOURCE_DIR) + " && packaging/gpu-bundle.sh " + ShellQuote::quote(tmp / "bundle") + " --trainer " +
                    ShellQuote::quote(trainer) + " --max-mb 100000 --tar " + ShellQuote::quote(tmp / "out") + " | tail -n 1");
    const std::string tarball = made.substr(0, made.find('\n'));
    const auto info = TrainerBundle::fromFileName(tarball);
    ASSERT_TRUE(info) << "gpu-bundle.sh printed " << made;
    EXPECT_EQ(info->torchMinor,
              shellOutput(ShellQuote::quote(trainer) + " version --json | sed -n 's/.*\"libtorch\":\"\\([0-9]*\\.[0-9]*\\).*/\\1/p' | tr -d '\\n'"));
    const SetupResult r = setup().installBundle(tarball, "/usr/bin/python3");
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.trainer, prefix + "/bin/streetgan-trainer");
    const ExecResult v = session->exec(ShellQuote::quote(r.trainer) + " version --json");
    ASSERT_TRUE(v.ok()) << v.err;
    EXPECT_NE(v.out.find("\"protocol\":" + std::to_string(Version::kProtocol)), std::string::npos) << v.out;
    // The wrapper carries the Python and its site-packages.
    const std::string wrapper = slurp(r.trainer);
    EXPECT_NE(wrapper.find("STREETGAN_PYTHON=/usr/bin/python3"), std::string::npos) << wrapper;
    EXPECT_NE(wrapper.find("STREETGAN_TORCH_SITE="), std::string::npos) << wrapper;
    EXPECT_EQ(setup().probe().state, TrainerProbe::State::Ready);

    // A bundle whose trainer cannot start: refused with its error, the installed one untouched.
    shellOutput("rm -rf " + ShellQuote::quote(tmp / "broken") + " && cp -r " + ShellQuote::quote(tmp / "bundle") + " " + ShellQuote::quote(tmp / "broken") +
                " && printf '#!/bin/sh\\necho \"error while loading shared libraries: libtorch_cpu.so: cannot open shared object file\" >&2; exit 127\\n' > " +
                ShellQuote::quote(tmp / "broken/streetgan-trainer") + " && tar -czf " + ShellQuote::quote(tmp / "broken.tar.gz") + " -C " +
                ShellQuote::quote(tmp / "broken") + " .");
    const SetupResult bad = setup().installBundle(tmp / "broken.tar.gz", "/usr/bin/python3");
    EXPECT_FALSE(bad.ok);
    EXPECT_NE(bad.message.find("libtorch_cpu.so: cannot open shared object file"), std::string::npos) << bad.message;
    EXPECT_NE(bad.message.find("the previous trainer is left as it was"), std::string::npos) << bad.message;
    EXPECT_EQ(session->exec(ShellQuote::quote(r.trainer) + " version --json").out, v.out);
    // A Python without torch is named before anything runs.
    const SetupResult noTorch = setup().installBundle(tarball, "/no/such/python3");
    EXPECT_FALSE(noTorch.ok);
    EXPECT_NE(noTorch.message.find("/no/such/python3 on"), std::string::npos) << noTorch.message;
    // Nothing is left of the refused attempts beside the installed trainer.
    EXPECT_EQ(shellOutput("ls -A " + ShellQuote::quote(prefix + "/lib/streetgan-trainer") + " | grep -c '^\\.new-' || true"), "0\n");
}

TEST_F(RemoteTrainerSetupTest, CancellingABuildKillsTheRemoteProcesses) {
    const std::string marker = "streetgan-setup-cancel-" + std::to_string(::getpid());
    const std::string tgz = sourceTarball("#!/usr/bin/env bash\necho started\nexec -a " + marker + " sleep 600\n");
    // "[s]..." matches the marker but not the pgrep command line of the shell that runs it.
    const std::string pattern = ShellQuote::quote("[s]" + marker.substr(1));
    std::thread canceller([&] {
        waitFor([&] { return shellOutput("pgrep -f " + pattern + " | wc -l || true") != "0\n"; }, 60);
        cancel = true;
    });
    const SetupResult r = setup().buildFromSource(tgz, {BuildEnvironment::Kind::Python, ""});
    canceller.join();
    EXPECT_TRUE(r.cancelled) << r.message;
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(waitFor([&] { return shellOutput("pgrep -f " + pattern + " | wc -l || true") == "0\n"; }, 30)) << "the remote build is still running";
}

TEST(RemoteTrainerSetupFiles, BundledFilesComeFromTheEnvironmentOrNextToTheApp) {
    TempDir dir;
    const std::string appDir = dir / "bin";
    fs::create_directories(appDir);
    ::unsetenv("STREETGAN_TEST_BUNDLE");
    EXPECT_EQ(RemoteTrainerSetup::locateBundled(appDir, "STREETGAN_TEST_BUNDLE", "streetgan-trainer.deb"), "");
    const std::string msg = RemoteTrainerSetup::missingBundleMessage(appDir, "STREETGAN_TEST_BUNDLE", "streetgan-trainer.deb");
    EXPECT_NE(msg.find("neither " + appDir + "/../share/streetgan/remote/streetgan-trainer.deb nor " + appDir + "/../remote/streetgan-trainer.deb"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("STREETGAN_TEST_BUNDLE"), std::string::npos) << msg;
    // Issue 41 item 11: run from a build tree (build/release/app/streetgan), the package the build
    // made (build/release/remote/streetgan-trainer.deb) is found.
    writeFile(dir / "remote/streetgan-trainer.deb", "b");
    EXPECT_EQ(RemoteTrainerSetup::locateBundled(appDir, "STREETGAN_TEST_BUNDLE", "streetgan-trainer.deb"), appDir + "/../remote/streetgan-trainer.deb");
    writeFile(dir / "share/streetgan/remote/streetgan-trainer.deb", "x");
    EXPECT_EQ(RemoteTrainerSetup::locateBundled(appDir, "STREETGAN_TEST_BUNDLE", "streetgan-trainer.deb"),
              appDir + "/../share/streetgan/remote/streetgan-trainer.deb");
    ::setenv("STREETGAN_TEST_BUNDLE", (dir / "nope.deb").c_str(), 1);
    EXPECT_THROW(RemoteTrainerSetup::locateBundled(appDir, "STREETGAN_TEST_BUNDLE", "streetgan-trainer.deb"), ConfigError);
    writeFile(dir / "mine.deb", "y");
    ::setenv("STREETGAN_TEST_BUNDLE", (dir / "mine.deb").c_str(), 1);
    EXPECT_EQ(RemoteTrainerSetup::locateBundled(appDir, "STREETGAN_TEST_BUNDLE", "streetgan-trainer.deb"), dir / "mine.deb");
    ::unsetenv("STREETGAN_TEST_BUNDLE");
}

TEST(RemoteTrainerSetupFiles, EnvironmentKindsRoundTripThroughTheirNames) {
    for (auto k : {BuildEnvironment::Kind::Python, BuildEnvironment::Kind::Conda, BuildEnvironment::Kind::Venv, BuildEnvironment::Kind::LibTorch})
        EXPECT_EQ(BuildEnvironment::kindFromName(BuildEnvironment::kindName(k)), k);
    EXPECT_EQ(BuildEnvironment::kindFromName("docker"), std::nullopt);
}
