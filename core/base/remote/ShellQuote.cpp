#include "base/remote/ShellQuote.h"

#include "base/util/Errors.h"

namespace streetgan {

namespace {
bool isPlain(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '@' || c == '%' || c == '+' || c == '=' || c == ':' ||
           c == ',' || c == '.' || c == '/' || c == '-';
}
}  // namespace

std::string ShellQuote::quote(const std::string& word) {
    if (word.find('\0') != std::string::npos) throw ConfigError("a remote command argument contains a NUL byte, which no command line can carry; remove it");
    bool plain = !word.empty() && word[0] != '=';  // zsh expands a leading '=' (=cmd is its path)
    for (char c : word) plain = plain && isPlain(c);
    if (plain) return word;
    std::string q;
    q.reserve(word.size() + 2);
    q += '\'';
    for (char c : word) {
        if (c == '\'')
            q += "'\\''";
        else
            q += c;
    }
    q += '\'';
    return q;
}

std::string ShellQuote::join(const std::vector<std::string>& words) {
    std::string line;
    for (const auto& w : words) {
        if (!line.empty()) line += ' ';
        line += quote(w);
    }
    return line;
}

}  // namespace streetgan
