// ShellQuote against real shells: every hostile word comes back as one argument, unchanged,
// and nothing it tries to run runs.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "base/remote/ShellQuote.h"
#include "base/util/Errors.h"
#include "support/TempDir.h"

using streetgan::ShellQuote;
using streetgan::test::TempDir;

namespace {

std::string run(const std::string& shell, const std::string& commandLine) {
    // The command line goes to the shell exactly as an SSH exec request would: as `sh -c LINE`.
    std::string outer = shell + " -c " + ShellQuote::quote(commandLine);
    FILE* f = ::popen(outer.c_str(), "r");
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    ::pclose(f);
    return out;
}

std::vector<std::string> hostile(const std::string& marker) {
    return {"x; touch " + marker,
            "x && touch " + marker,
            "$(touch " + marker + ")",
            "`touch " + marker + "`",
            "x\ntouch " + marker,
            "x' ; touch " + marker + " ; '",
            "x\" ; touch " + marker + " ; \"",
            "x | touch " + marker,
            "x > " + marker,
            "${IFS}$(touch " + marker + ")",
            "'\\''; touch " + marker + "; #",
            "run with spaces and 'quotes' and \"doubles\"",
            "*",
            "~",
            "=ls",
            "-n",
            "",
            "a\\b\\\\c",
            "tab\there",
            "ünïcödé ☃"};
}

}  // namespace

TEST(ShellQuote, PlainWordsStayReadable) {
    EXPECT_EQ(ShellQuote::quote("runs/dcgan-1"), "runs/dcgan-1");
    EXPECT_EQ(ShellQuote::quote("--from-offset"), "--from-offset");
    EXPECT_EQ(ShellQuote::quote("a b"), "'a b'");
    EXPECT_EQ(ShellQuote::quote("it's"), "'it'\\''s'");
    EXPECT_EQ(ShellQuote::quote(""), "''");
    EXPECT_EQ(ShellQuote::join({"streetgan-trainer", "attach", "my run"}), "streetgan-trainer attach 'my run'");
}

TEST(ShellQuote, RejectsNulBytes) { EXPECT_THROW(ShellQuote::quote(std::string("a\0b", 3)), streetgan::ConfigError); }

TEST(ShellQuote, HostileWordsArriveIntactAndRunNothing) {
    TempDir tmp;
    const std::string marker = tmp / "pwned";
    for (const std::string shell : {"/bin/sh", "/bin/bash", "/bin/dash"}) {
        if (::access(shell.c_str(), X_OK) != 0) continue;
        for (const auto& word : hostile(marker)) {
            // printf prints each argument on its own line between markers: exactly one argument.
            const std::string out = run(shell, ShellQuote::join({"printf", "<%s>\\n", word}));
            EXPECT_EQ(out, "<" + word + ">\n") << shell << " word: " << word;
            struct stat st {};
            EXPECT_NE(::stat(marker.c_str(), &st), 0) << shell << " ran something from: " << word;
        }
    }
}
