// SlurmHostList against the lists Slurm writes (the expansions as `scontrol show hostnames`
// prints them) and malformed ones.
#include <gtest/gtest.h>

#include "base/slurm/SlurmHostList.h"
#include "base/util/Errors.h"

using streetgan::ConfigError;
using streetgan::SlurmHostList;
using Names = std::vector<std::string>;

namespace {

std::string errorOf(const std::string& list) {
    try {
        SlurmHostList::expand(list, "SLURM_JOB_NODELIST");
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(SlurmHostList, ExpandsNamesRangesAndCommas) {
    EXPECT_EQ(SlurmHostList::expand("vm"), Names{"vm"});
    EXPECT_EQ(SlurmHostList::expand("gpu[01-03,07],login"), (Names{"gpu01", "gpu02", "gpu03", "gpu07", "login"}));
    EXPECT_EQ(SlurmHostList::expand("a,b,c"), (Names{"a", "b", "c"}));
    EXPECT_EQ(SlurmHostList::expand("node[7]"), Names{"node7"});
    EXPECT_EQ(SlurmHostList::expand("n[1-2],m[3-4]"), (Names{"n1", "n2", "m3", "m4"}));
    // names with dots and dashes, and text after the brackets
    EXPECT_EQ(SlurmHostList::expand("cn-[1-2].cluster.example"), (Names{"cn-1.cluster.example", "cn-2.cluster.example"}));
}

TEST(SlurmHostList, KeepsTheFirstBoundsWidth) {
    EXPECT_EQ(SlurmHostList::expand("gpu[08-11]"), (Names{"gpu08", "gpu09", "gpu10", "gpu11"}));
    EXPECT_EQ(SlurmHostList::expand("gpu[8-11]"), (Names{"gpu8", "gpu9", "gpu10", "gpu11"}));
    EXPECT_EQ(SlurmHostList::expand("n[0098-0100]"), (Names{"n0098", "n0099", "n0100"}));
    EXPECT_EQ(SlurmHostList::expand("n[1-2,005]"), (Names{"n1", "n2", "n005"}));
}

TEST(SlurmHostList, SeveralBracketsInOneNameMultiply) {
    EXPECT_EQ(SlurmHostList::expand("rack[1-2]-node[01-02]"), (Names{"rack1-node01", "rack1-node02", "rack2-node01", "rack2-node02"}));
    EXPECT_EQ(SlurmHostList::expand("r[1,3]n[5]x"), (Names{"r1n5x", "r3n5x"}));
}

TEST(SlurmHostList, FirstIsTheFirstExpansion) {
    EXPECT_EQ(SlurmHostList::first("gpu[01-03,07],login"), "gpu01");
    EXPECT_EQ(SlurmHostList::first("login,gpu[01-03]"), "login");
    EXPECT_EQ(SlurmHostList::first("rack[3-4]-node[09-10]"), "rack3-node09");
    EXPECT_EQ(SlurmHostList::first("n[000001-999999]"), "n000001");  // not expanded to find it
    // ... but the whole list is checked
    EXPECT_THROW(SlurmHostList::first("gpu01,gpu[02"), ConfigError);
}

TEST(SlurmHostList, MalformedListsAreOneLineErrorsNamingTheVariable) {
    for (const std::string bad : {"", "gpu[01-03", "gpu01-03]", "gpu[[1-2]]", "gpu[]", "gpu[3-1]", "gpu[a-b]", "gpu[1-]", "gpu[-2]", "a,,b", ",a", "a,",
                                  "gpu[1,,2]", "gpu 01", "gpu[1-2-3]", "n[1-1999999]"}) {
        const std::string e = errorOf(bad);
        EXPECT_NE(e, "") << "accepted: '" << bad << "'";
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
        EXPECT_EQ(e.rfind("SLURM_JOB_NODELIST '" + bad + "' is not a Slurm host list (", 0), 0u) << e;
    }
    EXPECT_EQ(errorOf("gpu[3-1]"),
              "SLURM_JOB_NODELIST 'gpu[3-1]' is not a Slurm host list (the range 3-1 runs backwards): expected names like gpu[01-03,07],login");
    EXPECT_EQ(errorOf("a,"), "SLURM_JOB_NODELIST 'a,' is not a Slurm host list (it ends with a comma): expected names like gpu[01-03,07],login");
}
