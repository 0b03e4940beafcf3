// Quoting for command lines that run through the remote user's POSIX shell (an SSH exec request
// is always interpreted by `$SHELL -c`). Every argument becomes one word, whatever it contains:
// spaces, quotes, `;`, `$()`, backticks, globs, newlines.
#pragma once

#include <string>
#include <vector>

namespace streetgan {

/// Stateless; thread-safe.
class ShellQuote {
public:
    /// One shell word: returned as is when it has only characters no shell treats specially
    /// ([A-Za-z0-9_@%+=:,./-], not empty), else wrapped in single quotes with every ' written
    /// as '\''. The result is safe for sh, dash, bash, ksh and zsh. Throws ConfigError on a NUL byte.
    static std::string quote(const std::string& word);
    /// The words quoted and joined with single spaces: a command line for `sh -c`.
    static std::string join(const std::vector<std::string>& words);
};

}  // namespace streetgan
