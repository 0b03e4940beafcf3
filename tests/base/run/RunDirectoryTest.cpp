// RunDirectory's rule for the folder it writes into (issue 41, item 13): a folder it makes is
// private; one that exists must be this user's and not writable by every user, and is left with the
// mode its owner gave it; links planted by another user are refused; files of the run are opened
// without following links.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "base/run/EventLog.h"
#include "base/run/RunDirectory.h"
#include "base/util/Errors.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

namespace {

mode_t modeOf(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
}

// The message of the IoError that making a RunDirectory at `dir` throws ("" when it does not).
std::string refusal(const fs::path& dir) {
    try {
        RunDirectory d(dir.string(), /*create=*/true);
    } catch (const IoError& e) {
        return e.what();
    }
    return "";
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// An unprivileged uid other than ours (nobody), for folders and links of "another user": only root
// can give one away, so the cases that need it run where the suite runs as root (CI does).
constexpr uid_t kNobody = 65534;

}  // namespace

TEST(RunDirectory, AFolderItMakesIsPrivate) {
    TempDir t;
    RunDirectory d((t.path() / "run").string(), true);
    EXPECT_EQ(modeOf(t.path() / "run"), 0700u);
    EXPECT_TRUE(fs::is_directory(d.checkpointsDir()));
}

TEST(RunDirectory, AnExistingFolderOfOursKeepsItsMode) {
    TempDir t;
    fs::create_directory(t.path() / "run");
    ASSERT_EQ(::chmod((t.path() / "run").c_str(), 0750), 0);
    EXPECT_EQ(refusal(t.path() / "run"), "");
    EXPECT_EQ(modeOf(t.path() / "run"), 0750u);
}

TEST(RunDirectory, AWorldWritableFolderIsRefusedAndLeftAsItIs) {
    TempDir t;
    fs::create_directory(t.path() / "shared");
    ASSERT_EQ(::chmod((t.path() / "shared").c_str(), 01777), 0);
    const std::string why = refusal(t.path() / "shared");
    EXPECT_NE(why.find("can be written by any user"), std::string::npos) << why;
    EXPECT_NE(why.find("shared"), std::string::npos) << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    EXPECT_EQ(modeOf(t.path() / "shared"), 01777u);  // the trainer took nobody's permission away
    EXPECT_FALSE(fs::exists(t.path() / "shared/checkpoints"));
}

TEST(RunDirectory, AWorldWritableSubFolderIsRefused) {
    TempDir t;
    fs::create_directories(t.path() / "run/checkpoints");
    ASSERT_EQ(::chmod((t.path() / "run/checkpoints").c_str(), 0777), 0);
    const std::string why = refusal(t.path() / "run");
    EXPECT_NE(why.find("run/checkpoints' can be written by any user"), std::string::npos) << why;
}

TEST(RunDirectory, AFolderOfAnotherUserIsRefused) {
    TempDir t;
    fs::path other = "/usr";  // root's, not writable by others: another user's unless we are root
    if (::geteuid() == 0) {
        other = t.path() / "theirs";
        fs::create_directory(other);
        ASSERT_EQ(::chown(other.c_str(), kNobody, kNobody), 0);
        ASSERT_EQ(::chmod(other.c_str(), 0755), 0);
    }
    const std::string why = refusal(other);
    EXPECT_NE(why.find("belongs to another user"), std::string::npos) << why;
    EXPECT_EQ(modeOf(other), 0755u);
    EXPECT_FALSE(fs::exists(other / "checkpoints"));
}

TEST(RunDirectory, ALinkedSubFolderIsCheckedWhereItLeads) {
    TempDir t;
    fs::create_directories(t.path() / "run");
    fs::create_directories(t.path() / "elsewhere");
    ASSERT_EQ(::chmod((t.path() / "elsewhere").c_str(), 0777), 0);
    fs::create_directory_symlink(t.path() / "elsewhere", t.path() / "run/checkpoints");
    std::string why = refusal(t.path() / "run");
    EXPECT_NE(why.find("run/checkpoints' can be written by any user"), std::string::npos) << why;
    if (::geteuid() == 0) {  // a link planted by another user is refused whatever it points to
        ASSERT_EQ(::chmod((t.path() / "elsewhere").c_str(), 0700), 0);
        ASSERT_EQ(::lchown((t.path() / "run/checkpoints").c_str(), kNobody, kNobody), 0);
        why = refusal(t.path() / "run");
        EXPECT_NE(why.find("is a link another user made"), std::string::npos) << why;
    }
}

TEST(RunDirectory, OurOwnLinkToOurFolderIsFollowed) {
    TempDir t;
    fs::create_directories(t.path() / "disk/run");
    fs::create_directory_symlink(t.path() / "disk/run", t.path() / "run");
    EXPECT_EQ(refusal(t.path() / "run"), "");
    EXPECT_TRUE(fs::is_directory(t.path() / "disk/run/checkpoints"));
}

TEST(RunDirectory, TheEventLogIsNotAppendedThroughALink) {
    TempDir t;
    RunDirectory d((t.path() / "run").string(), true);
    std::ofstream(t.path() / "victim") << "precious\n";
    fs::create_symlink(t.path() / "victim", d.events());
    try {
        EventLog log(d.events());
        log.append(nlohmann::json{{"kind", "status"}});
        FAIL() << "the event log was opened through a link";
    } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("symbolic link"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("events.jsonl"), std::string::npos) << e.what();
    }
    EXPECT_EQ(slurp(t.path() / "victim"), "precious\n");
}
