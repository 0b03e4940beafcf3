// TorchRuntime: the LibTorch this test process was loaded with, and torch/version.py's reading.
// The release build runs against Debian's LibTorch (no version.py beside it); the `cuda` build
// against pip's torch 2.11 unpacked as in site-packages (torch/lib beside torch/version.py), where
// the version read must be the one it was compiled against.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <torch/version.h>

#include "ml/util/TorchRuntime.h"
#include "support/TempDir.h"

using namespace streetgan;
namespace fs = std::filesystem;

TEST(TorchRuntime, NamesTheLoadedLibTorchAndItsPythonVersionWhereThereIsOne) {
    const TorchRuntime& r = TorchRuntime::current();
    ASSERT_FALSE(r.library.empty());
    EXPECT_TRUE(fs::exists(r.library)) << r.library;
    EXPECT_NE(fs::path(r.library).filename().string().find("libtorch_cpu"), std::string::npos) << r.library;
    const fs::path versionPy = fs::path(r.library).parent_path().parent_path() / "version.py";
    if (fs::exists(versionPy)) {
        // "2.11.0+cu130" starts with the compiled-in "2.11.0".
        EXPECT_EQ(r.version.rfind(TORCH_VERSION, 0), 0u) << r.version << " vs " << TORCH_VERSION;
    } else {
        EXPECT_EQ(r.version, "") << "no " << versionPy << ", yet a version";
        EXPECT_EQ(r.cuda, "");
    }
}

TEST(TorchRuntime, ReadsTorchsVersionFile) {
    streetgan::test::TempDir dir;
    const std::string file = (dir.path() / "version.py").string();
    // torch 2.11's own layout of the file.
    std::ofstream(file) << "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']\n"
                           "__version__ = '2.11.0+cu130'\ndebug = False\ncuda: Optional[str] = '13.0'\n"
                           "git_version = '0123456789abcdef'\nhip: Optional[str] = None\nxpu: Optional[str] = None\n";
    TorchRuntime r;
    ASSERT_TRUE(r.readVersionFile(file));
    EXPECT_EQ(r.version, "2.11.0+cu130");
    EXPECT_EQ(r.cuda, "13.0");
    // A CPU build: cuda is None.
    std::ofstream(file) << "__version__ = '2.9.1+cpu'\ncuda: Optional[str] = None\n";
    TorchRuntime cpu;
    ASSERT_TRUE(cpu.readVersionFile(file));
    EXPECT_EQ(cpu.version, "2.9.1+cpu");
    EXPECT_EQ(cpu.cuda, "");
    TorchRuntime none;
    EXPECT_FALSE(none.readVersionFile((dir.path() / "missing.py").string()));
}
