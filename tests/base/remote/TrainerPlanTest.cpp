// TrainerPlan::choose on the hosts our users have, each described as HostPlatform::parse reads the
// probe script's output there: AWS's Deep Learning AMIs (Ubuntu 22.04 and Amazon Linux 2023, torch
// in /opt/pytorch), a p3 box (V100) with a CUDA 13 torch, a Rocky 8 login node with a torch no
// bundle is made for, Debian 12 with Debian's torch, and the hosts that cannot run the trainer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/remote/TrainerPlan.h"
#include "support/TempDir.h"

using namespace streetgan;

namespace {

const std::string kUbuntu2204 =
    "kernel=Linux\nmachine=x86_64\nos_id=ubuntu\nos_version=22.04\nos_name=Ubuntu 22.04.5 LTS\nglibc=2.35\nglibcxx=3.4.30\n"
    "cxx=c++ 11.4.0\ncmake=3.22.1\nnvcc=13.0\ngpu=NVIDIA A10G, 8.6\n"
    "python=/usr/bin/python3\t3.10.12\t\t\t\tNo module named 'torch'\n"
    "python=/opt/pytorch/bin/python3\t3.12.10\t2.11.0+cu130\t13.0\tsm_75 sm_80 sm_86 sm_90 sm_100 sm_120\t\n";

const std::string kAmazonLinux2023 =
    "kernel=Linux\nmachine=x86_64\nos_id=amzn\nos_version=2023\nos_name=Amazon Linux 2023.6.20250115\nglibc=2.34\nglibcxx=3.4.29\n"
    "cxx=c++ 11.5.0\nnvcc=12.8\ngpu=Tesla V100-SXM2-16GB, 7.0\n"
    "python=/usr/bin/python3\t3.9.20\t\t\t\tNo module named 'torch'\n"
    "python=/opt/pytorch/bin/python3\t3.12.8\t2.10.0+cu130\t13.0\tsm_75 sm_80 sm_86 sm_90 sm_100 sm_120\t\n";

std::vector<TrainerBundle> bundles(const std::vector<std::string>& minors, const std::string& glibc = "2.28") {
    std::vector<TrainerBundle> out;
    for (const auto& m : minors) out.push_back(*TrainerBundle::fromFileName("/b/" + TrainerBundle::fileName(m, glibc)));
    return out;
}

}  // namespace

TEST(TrainerPlan, VersionsCompareNumberByNumber) {
    EXPECT_LT(compareVersions("2.9", "2.10"), 0);
    EXPECT_GT(compareVersions("2.10.1", "2.10"), 0);
    EXPECT_EQ(compareVersions("2.11.0+cu130", "2.11.0"), 0);
    EXPECT_EQ(compareVersions("2.11", "2.11.0"), 0);
    EXPECT_LT(compareVersions("2.27", "2.28"), 0);
    EXPECT_GT(compareVersions("3.4.30", "3.4.4"), 0);
    HostPython p;
    p.torch = "2.11.0+cu130";
    EXPECT_EQ(p.torchMinor(), "2.11");
    p.torch = "2.10.0a0+git1234";
    EXPECT_EQ(p.torchMinor(), "2.10");
}

TEST(TrainerPlan, AnAwsUbuntuImageGetsTheBundleForItsTorch) {
    const HostPlatform h = HostPlatform::parse(kUbuntu2204);
    ASSERT_EQ(h.pythons.size(), 2u);
    EXPECT_FALSE(h.pythons[0].hasTorch());
    EXPECT_EQ(h.pythons[0].torchProblem, "No module named 'torch'");
    EXPECT_EQ(h.pythons[1].archs.size(), 6u);
    ASSERT_EQ(h.gpus.size(), 1u);
    EXPECT_EQ(h.gpus[0].name, "NVIDIA A10G");
    EXPECT_EQ(h.gpus[0].capability, "8.6");
    EXPECT_EQ(h.summary(), "Ubuntu 22.04.5 LTS, x86_64, glibc 2.35");

    const TrainerPlan p = TrainerPlan::choose(h, bundles({"2.12", "2.11", "2.10", "2.9"}), true, "gpubox");
    EXPECT_EQ(p.kind, TrainerPlan::Kind::Bundle) << p.reason;
    EXPECT_EQ(p.bundle.torchMinor, "2.11");
    EXPECT_EQ(p.python, "/opt/pytorch/bin/python3");
    EXPECT_EQ(p.reason,
              "torch 2.11.0+cu130 (CUDA 13.0) in /opt/pytorch/bin/python3, glibc 2.35: the prebuilt bundle for torch 2.11 fits "
              "(it needs glibc 2.28); nothing is compiled on gpubox");
    EXPECT_EQ(p.gpuAdvice, "");  // sm_86 is in its list
}

TEST(TrainerPlan, AV100WithACuda13TorchIsToldToInstallTheCuda126Build) {
    const HostPlatform h = HostPlatform::parse(kAmazonLinux2023);
    const TrainerPlan p = TrainerPlan::choose(h, bundles({"2.10"}), false, "p3");
    EXPECT_EQ(p.kind, TrainerPlan::Kind::Bundle) << p.reason;
    EXPECT_EQ(p.gpuAdvice,
              "Tesla V100-SXM2-16GB (sm_70) is older than torch 2.10.0+cu130 (CUDA 13.0) supports (sm_75 and newer): install its "
              "CUDA 12.6 build: pip install --force-reinstall torch==2.10.* --index-url https://download.pytorch.org/whl/cu126");
    // Once it is the cu126 build, whose list reaches down to sm_50, nothing is said.
    HostPlatform fixed = h;
    fixed.pythons[1].torch = "2.10.0+cu126";
    fixed.pythons[1].torchCuda = "12.6";
    fixed.pythons[1].archs = {"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"};
    EXPECT_EQ(TrainerPlan::gpuAdviceFor(fixed, fixed.pythons[1]), "");
    // Without the arch list (a torch whose _C does not say), the CUDA version decides.
    fixed.pythons[1].archs.clear();
    EXPECT_EQ(TrainerPlan::gpuAdviceFor(fixed, fixed.pythons[1]), "");
    fixed.pythons[1].torchCuda = "13.0";
    EXPECT_NE(TrainerPlan::gpuAdviceFor(fixed, fixed.pythons[1]).find("(sm_70) is older than"), std::string::npos);
}

TEST(TrainerPlan, PtxAndSameMajorBinaryCodeCountAsFitting) {
    HostPlatform h = HostPlatform::parse(kUbuntu2204);
    HostPython& py = h.pythons[1];
    py.archs = {"sm_80", "compute_90"};
    h.gpus = {{"NVIDIA A10G", "8.6"}};  // sm_80 code runs on sm_86
    EXPECT_EQ(TrainerPlan::gpuAdviceFor(h, py), "");
    h.gpus = {{"NVIDIA RTX 5090", "12.0"}};  // PTX of compute_90 is compiled for it by the driver
    EXPECT_EQ(TrainerPlan::gpuAdviceFor(h, py), "");
    h.gpus = {{"Tesla T4", "7.5"}};
    EXPECT_NE(TrainerPlan::gpuAdviceFor(h, py).find("Tesla T4 (sm_75) is older than torch 2.11.0+cu130 (CUDA 13.0) supports (sm_80 and newer)"),
              std::string::npos);
    h.gpus = {{"Tesla K80", "3.7"}};
    EXPECT_NE(TrainerPlan::gpuAdviceFor(h, py).find("older than any torch 2.9+ supports"), std::string::npos);
    h.gpus = {{"Tesla K80", ""}};  // a driver without the capability query: nothing to judge
    EXPECT_EQ(TrainerPlan::gpuAdviceFor(h, py), "");
    py.torchCuda.clear();
    py.archs.clear();
    h.gpus = {{"NVIDIA H100 80GB HBM3", "9.0"}};
    EXPECT_NE(TrainerPlan::gpuAdviceFor(h, py).find("is a CPU build: to train on the GPU, install a CUDA build"), std::string::npos);
}

TEST(TrainerPlan, ATorchWithoutABundleIsBuiltOnTheHostWhenItHasACompiler) {
    const std::string rocky8 =
        "kernel=Linux\nmachine=x86_64\nos_id=rocky\nos_version=8.10\nos_name=Rocky Linux 8.10 (Green Obsidian)\nglibc=2.28\nglibcxx=3.4.25\n"
        "cxx=g++ 12.2.1\nnvcc=13.0\npython=/home/me/torch/bin/python\t3.11.9\t2.15.0+cu130\t13.0\t\t\nconda=1\n";
    HostPlatform h = HostPlatform::parse(rocky8);
    EXPECT_TRUE(h.hasConda);
    EXPECT_TRUE(h.gpus.empty());
    EXPECT_EQ(h.nvcc, "13.0");
    const TrainerPlan p = TrainerPlan::choose(h, bundles({"2.12", "2.9"}), true, "login1");
    EXPECT_EQ(p.kind, TrainerPlan::Kind::HostBuild) << p.reason;
    EXPECT_EQ(p.python, "/home/me/torch/bin/python");
    EXPECT_EQ(p.reason,
              "torch 2.15.0+cu130 (CUDA 13.0) in /home/me/torch/bin/python: no prebuilt bundle for torch 2.15 (the app has: 2.9, 2.12); "
              "builds the lean trainer on login1 against it with g++ 12.2.1 and nvcc 13.0 (no root; the libraries travel in the source archive)");
    // Without the toolkit, LibTorch is imported from the package (cmake/TorchPackage.cmake): still a host build.
    h.nvcc.clear();
    const TrainerPlan noToolkit = TrainerPlan::choose(h, bundles({"2.12"}), true, "login1");
    EXPECT_EQ(noToolkit.kind, TrainerPlan::Kind::HostBuild) << noToolkit.reason;
    EXPECT_NE(noToolkit.reason.find("with g++ 12.2.1 (no CUDA toolkit needed: the CUDA headers come with torch's wheels) (no root"), std::string::npos)
        << noToolkit.reason;
    // Rocky 8's own GCC 8 cannot build it: one line says so before anything is uploaded.
    h.cxx = "c++ 8.5.0";
    const TrainerPlan oldGcc = TrainerPlan::choose(h, bundles({"2.12"}), true, "login1");
    EXPECT_EQ(oldGcc.kind, TrainerPlan::Kind::Unsupported);
    EXPECT_NE(oldGcc.reason.find("its compiler, c++ 8.5.0, is older than GCC 10, the oldest that builds streetgan-trainer: install a newer one"),
              std::string::npos)
        << oldGcc.reason;
    h.cxx = "c++ 10.2.1";
    EXPECT_EQ(TrainerPlan::choose(h, bundles({"2.12"}), true, "login1").kind, TrainerPlan::Kind::HostBuild);
    h.cxx = "clang++ 9.0.0";  // not GCC: the build itself judges
    EXPECT_EQ(TrainerPlan::choose(h, bundles({"2.12"}), true, "login1").kind, TrainerPlan::Kind::HostBuild);
    h.cxx = "g++ 12.2.1";
    // A CPU build of torch needs no toolkit.
    h.pythons[0].torch = "2.15.0+cpu";
    h.pythons[0].torchCuda.clear();
    EXPECT_EQ(TrainerPlan::choose(h, bundles({"2.12"}), true, "login1").kind, TrainerPlan::Kind::HostBuild);
    h.pythons[0] = HostPlatform::parse(rocky8).pythons[0];
    h.cxx.clear();
    const TrainerPlan none = TrainerPlan::choose(h, bundles({"2.12"}), true, "login1");
    EXPECT_EQ(none.kind, TrainerPlan::Kind::Unsupported);
    EXPECT_NE(none.reason.find("no C++ compiler there to build one: install g++ (dnf install gcc-c++, or apt install g++)"), std::string::npos) << none.reason;
}

TEST(TrainerPlan, TheFloorBundlesServeRocky8) {
    // The names gpu-bundle-floor.sh gives its bundles (glibc 2.27; a libstdc++ carried, so no
    // glibcxx part): Rocky 8's glibc 2.28 and GCC 8's libstdc++ (3.4.25) take them.
    const std::string rocky8 =
        "kernel=Linux\nmachine=x86_64\nos_id=rocky\nos_version=8.10\nos_name=Rocky Linux 8.10 (Green Obsidian)\nglibc=2.28\nglibcxx=3.4.25\n"
        "cxx=g++ 8.5.0\npython=/home/me/torch/bin/python\t3.11.9\t2.15.0+cu130\t13.0\t\t\n";
    std::vector<TrainerBundle> offered;
    for (const char* name : {"streetgan-trainer-bundle-torch2.9-glibc2.27-x86_64.tar.gz", "streetgan-trainer-bundle-torch2.15-glibc2.27-x86_64.tar.gz"}) {
        const auto b = TrainerBundle::fromFileName(std::string("/share/") + name);
        ASSERT_TRUE(b) << name;
        EXPECT_EQ(b->glibcxx, "") << name;
        offered.push_back(*b);
    }
    const TrainerPlan p = TrainerPlan::choose(HostPlatform::parse(rocky8), offered, true, "login1");
    EXPECT_EQ(p.kind, TrainerPlan::Kind::Bundle) << p.reason;
    EXPECT_EQ(p.bundle.torchMinor, "2.15");
}

TEST(TrainerPlan, ABundleAboveTheHostsGlibcIsNotChosen) {
    HostPlatform h = HostPlatform::parse(kUbuntu2204);
    h.glibc = "2.31";
    const TrainerPlan p = TrainerPlan::choose(h, bundles({"2.11"}, "2.34"), false, "old");
    EXPECT_EQ(p.kind, TrainerPlan::Kind::HostBuild) << p.reason;
    EXPECT_NE(p.reason.find("the bundle for torch 2.11 needs glibc 2.34 and old has 2.31"), std::string::npos) << p.reason;
}

TEST(TrainerPlan, ABundleNeedingANewerLibstdcxxThanTheHostsIsNotChosen) {
    // Amazon Linux 2023: glibc 2.34 meets the bundle's, GCC 11's libstdc++ (3.4.29) does not.
    HostPlatform h = HostPlatform::parse(kAmazonLinux2023);
    const auto bundle = TrainerBundle::fromFileName("/b/" + TrainerBundle::fileName("2.10", "2.34", "3.4.30"));
    ASSERT_TRUE(bundle);
    EXPECT_EQ(bundle->glibcxx, "3.4.30");
    EXPECT_EQ(TrainerBundle::fileName("2.10", "2.34", "3.4.30"), "streetgan-trainer-bundle-torch2.10-glibc2.34-glibcxx3.4.30-x86_64.tar.gz");
    const TrainerPlan p = TrainerPlan::choose(h, {*bundle}, false, "al2023");
    EXPECT_EQ(p.kind, TrainerPlan::Kind::HostBuild) << p.reason;
    EXPECT_NE(p.reason.find("the bundle for torch 2.10 needs libstdc++ with GLIBCXX_3.4.30 and al2023's stops at GLIBCXX_3.4.29"), std::string::npos)
        << p.reason;
    // Where the probe found no libstdc++ to read, the install's own run decides.
    h.glibcxx.clear();
    EXPECT_EQ(TrainerPlan::choose(h, {*bundle}, false, "al2023").kind, TrainerPlan::Kind::Bundle);
}

TEST(TrainerPlan, TheNewestTorchOfSeveralPythonsIsUsed) {
    const HostPlatform h = HostPlatform::parse(
        "kernel=Linux\nmachine=x86_64\nglibc=2.39\ncxx=c++ 13.3.0\n"
        "python=/usr/bin/python3\t3.12.3\t2.9.1+cpu\t\t\t\npython=/home/me/miniconda3/bin/python\t3.12.4\t2.12.0+cu130\t13.0\t\t\n"
        "python=/home/me/.venv/bin/python\t3.12.3\t2.12.0+cu128\t12.8\t\t\n");
    ASSERT_NE(h.bestTorch(), nullptr);
    EXPECT_EQ(h.bestTorch()->path, "/home/me/miniconda3/bin/python");  // the first of the two 2.12s
    const TrainerPlan p = TrainerPlan::choose(h, bundles({"2.12", "2.9"}), false, "h");
    EXPECT_EQ(p.bundle.torchMinor, "2.12");
}

TEST(TrainerPlan, Debian12WithDebiansTorchGetsThePackage) {
    const HostPlatform h = HostPlatform::parse(
        "kernel=Linux\nmachine=x86_64\nos_id=debian\nos_version=12\nos_name=Debian GNU/Linux 12 (bookworm)\nglibc=2.36\n"
        "python=/usr/bin/python3\t3.11.2\t1.13.0a0+git7c98e70\t\t\t\n");
    const TrainerPlan p = TrainerPlan::choose(h, bundles({"2.11"}), true, "deb12");
    EXPECT_EQ(p.kind, TrainerPlan::Kind::Deb) << p.reason;
    EXPECT_NE(p.reason.find("Debian 12 with torch 1.13.0a0+git7c98e70 only"), std::string::npos) << p.reason;
    // Without the package, the old torch is the problem to name.
    const TrainerPlan q = TrainerPlan::choose(h, bundles({"2.11"}), false, "deb12");
    EXPECT_EQ(q.kind, TrainerPlan::Kind::Unsupported);
    EXPECT_NE(q.reason.find("torch 1.13.0a0+git7c98e70 in /usr/bin/python3 on deb12 is older than 2.9"), std::string::npos) << q.reason;
}

TEST(TrainerPlan, HostsThatCannotRunTheTrainerGetOneLineEach) {
    struct Case {
        std::string probe, expected;
    };
    const std::vector<Case> cases = {
        {"kernel=Darwin\nmachine=arm64\n", "mac runs macOS (Darwin): streetgan-trainer runs on x86_64 Linux only"},
        {"kernel=Linux\nmachine=aarch64\nglibc=2.35\n", "mac is aarch64 (ARM): streetgan-trainer is built for x86_64 Linux only"},
        {"kernel=Linux\nmachine=i686\nglibc=2.35\n", "mac is i686 (32-bit)"},
        {"kernel=Linux\nmachine=x86_64\nglibc=2.17\n", "mac has glibc 2.17, older than 2.28"},
        {"kernel=Linux\nmachine=x86_64\nglibc=\n", "mac has no GNU C library (musl, e.g. Alpine?)"},
        {"", "mac did not say what system it runs"},
        {"kernel=Linux\nmachine=x86_64\nglibc=2.35\npython=/usr/bin/python3\t3.10.12\t\t\t\tNo module named 'torch'\n",
         "no Python on mac imports torch (/usr/bin/python3: No module named 'torch'): install PyTorch 2.9 or newer"},
        {"kernel=Linux\nmachine=x86_64\nglibc=2.35\npython=/usr/bin/python3\t3.10.12\t2.8.0+cu128\t12.8\t\t\n",
         "torch 2.8.0+cu128 in /usr/bin/python3 on mac is older than 2.9"},
    };
    for (const auto& c : cases) {
        const TrainerPlan p = TrainerPlan::choose(HostPlatform::parse(c.probe), bundles({"2.11"}), true, "mac");
        EXPECT_EQ(p.kind, TrainerPlan::Kind::Unsupported) << c.probe;
        EXPECT_NE(p.reason.find(c.expected), std::string::npos) << p.reason;
        EXPECT_EQ(p.reason.find('\n'), std::string::npos) << p.reason;
    }
}

TEST(TrainerPlan, BundlesAreFoundByTheirFileNames) {
    streetgan::test::TempDir dir;
    for (const char* name : {"streetgan-trainer-bundle-torch2.9-glibc2.28-x86_64.tar.gz", "streetgan-trainer-bundle-torch2.11-glibc2.28-x86_64.tar.gz",
                             "streetgan-trainer-bundle-torch2.11-glibc2.34-x86_64.tar.gz", "streetgan-trainer-bundle-torch2.11-x86_64.tar.gz",
                             "streetgan-trainer.deb", "notes.txt"})
        std::ofstream(dir / name) << "x";
    const auto found = TrainerBundle::findIn(dir.path().string());
    ASSERT_EQ(found.size(), 3u);
    EXPECT_EQ(found[0].torchMinor, "2.11");
    EXPECT_EQ(found[0].glibc, "2.28");  // the lower floor first among one torch's
    EXPECT_EQ(found[1].glibc, "2.34");
    EXPECT_EQ(found[2].torchMinor, "2.9");
    EXPECT_EQ(found[2].path, dir / "streetgan-trainer-bundle-torch2.9-glibc2.28-x86_64.tar.gz");
    EXPECT_TRUE(TrainerBundle::findIn((dir.path() / "missing").string()).empty());
}
