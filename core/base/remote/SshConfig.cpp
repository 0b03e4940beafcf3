#include "base/remote/SshConfig.h"

#include <glob.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/remote/ShellQuote.h"
#include "base/util/Errors.h"
#include "base/util/Paths.h"

namespace streetgan {

namespace {

constexpr off_t kMaxIncludeBytes = off_t{1} << 20;

struct GlobResult {
    glob_t g{};
    GlobResult() = default;
    GlobResult(const GlobResult&) = delete;
    GlobResult& operator=(const GlobResult&) = delete;
    ~GlobResult() { ::globfree(&g); }
};

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// Splits a config line's arguments: whitespace-separated, "double quoted" words kept whole.
std::vector<std::string> splitArgs(const std::string& s, const std::string& origin, int lineNo) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i >= s.size()) break;
        std::string word;
        if (s[i] == '"') {
            const size_t close = s.find('"', i + 1);
            if (close == std::string::npos) throw ConfigError(origin + " line " + std::to_string(lineNo) + ": unterminated quote; close the \" or remove it");
            word = s.substr(i + 1, close - i - 1);
            i = close + 1;
        } else {
            while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) word += s[i++];
        }
        out.push_back(word);
    }
    return out;
}

int parsePort(const std::string& text, const std::string& what) {
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || v < 1 || v > 65535) throw ConfigError(what + ": port '" + text + "' is not a number from 1 to 65535");
    return static_cast<int>(v);
}

}  // namespace

JumpSpec JumpSpec::parse(const std::string& text) {
    JumpSpec j;
    std::string rest = text;
    if (rest.rfind("ssh://", 0) == 0) rest = rest.substr(6);
    const size_t at = rest.rfind('@');
    if (at != std::string::npos) {
        j.user = rest.substr(0, at);
        rest = rest.substr(at + 1);
    }
    if (!rest.empty() && rest[0] == '[') {
        const size_t close = rest.find(']');
        if (close == std::string::npos) throw ConfigError("jump host '" + text + "': missing ']'; write [ADDRESS]:PORT");
        j.host = rest.substr(1, close - 1);
        const std::string tail = rest.substr(close + 1);
        if (!tail.empty()) {
            if (tail[0] != ':') throw ConfigError("jump host '" + text + "': expected :PORT after ']'");
            j.port = parsePort(tail.substr(1), "jump host '" + text + "'");
        }
    } else {
        const size_t colon = rest.find(':');
        if (colon != std::string::npos) {
            j.port = parsePort(rest.substr(colon + 1), "jump host '" + text + "'");
            rest = rest.substr(0, colon);
        }
        j.host = rest;
    }
    if (j.host.empty() || (at != std::string::npos && j.user.empty()))
        throw ConfigError("jump host '" + text + "' is not [USER@]HOST[:PORT]; give it in that form");
    return j;
}

std::vector<JumpSpec> JumpSpec::parseList(const std::string& text) {
    std::vector<JumpSpec> out;
    if (lower(text) == "none" || text.empty()) return out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        out.push_back(parse(item));
    }
    return out;
}

std::string SshConfig::homeDir() {
    const std::string home = Paths::homeDir();
    return home.empty() ? "/" : home;
}

void SshConfig::checkGivenName(const std::string& kind, const std::string& name) {
    // As ssh.c's valid_hostname() and valid_ruser(): such a name would reach a shell through a
    // ProxyCommand's %h or %r (or a Match exec), so ssh refuses it before any substitution.
    auto refuse = [&](const std::string& why) {
        throw ConfigError("the " + kind + " name '" + name + "' " + why + ": OpenSSH refuses such a name too; check the " + kind +
                          " you typed (an ~/.ssh/config alias, or user@host)");
    };
    if (!name.empty() && name.front() == '-') refuse("starts with '-'");
    for (size_t i = 0; i < name.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(name[i]);
        if (std::strchr("'`\"$\\;&<>|(){}", c) && c != 0) refuse(std::string("has the shell character '") + char(c) + "'");
        if (kind == "host" && (std::isspace(c) || std::iscntrl(c))) refuse("has a space or a control character");
        if (kind != "host" && std::isspace(c) && i + 1 < name.size() && name[i + 1] == '-') refuse("has a '-' after a space");
        if (kind != "host" && std::iscntrl(c)) refuse("has a control character");
    }
}

std::string SshConfig::localUser() {
    if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_name) return pw->pw_name;
    if (const char* u = std::getenv("USER"); u && *u) return u;
    return "root";
}

std::string SshConfig::defaultPath() { return homeDir() + "/.ssh/config"; }

bool SshConfig::matchPattern(const std::string& pattern, const std::string& text) {
    // Iterative glob with backtracking to the last '*'.
    size_t p = 0, t = 0, star = std::string::npos, mark = 0;
    while (t < text.size()) {
        if (p < pattern.size() &&
            (pattern[p] == '?' || std::tolower(static_cast<unsigned char>(pattern[p])) == std::tolower(static_cast<unsigned char>(text[t])))) {
            ++p;
            ++t;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = t;
        } else if (star != std::string::npos) {
            p = star + 1;
            t = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

std::string SshConfig::expandPath(const std::string& path, const std::string& host, int port, const std::string& remoteUser) {
    std::string s = path;
    if (s == "~" || s.rfind("~/", 0) == 0) s = homeDir() + s.substr(1);
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%' || i + 1 >= s.size()) {
            out += s[i];
            continue;
        }
        const char t = s[++i];
        switch (t) {
            case '%':
                out += '%';
                break;
            case 'd':
                out += homeDir();
                break;
            case 'h':
                out += host;
                break;
            case 'p':
                out += std::to_string(port);
                break;
            case 'r':
                out += remoteUser;
                break;
            case 'u':
                out += localUser();
                break;
            default:
                out += '%';
                out += t;
        }
    }
    return out;
}

SshConfig SshConfig::parse(const std::string& text, const std::string& origin, const std::string& baseDir) {
    SshConfig c;
    c.parseInto(text, origin, baseDir.empty() ? homeDir() + "/.ssh" : baseDir, 0);
    return c;
}

SshConfig SshConfig::load(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return SshConfig{};
    std::stringstream ss;
    ss << in.rdbuf();
    const size_t slash = path.find_last_of('/');
    return parse(ss.str(), path, slash == std::string::npos ? "." : path.substr(0, slash));
}

void SshConfig::parseInto(const std::string& text, const std::string& origin, const std::string& baseDir, int depth) {
    // Lines before the first Host apply to every host.
    Block current;
    current.matchAll = true;
    current.leading = true;
    auto flush = [&](Block next) {
        if (!current.entries.empty()) blocks_.push_back(current);
        current = std::move(next);
    };
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        size_t i = line.find_first_not_of(" \t");
        if (i == std::string::npos || line[i] == '#') continue;
        size_t k = i;
        while (k < line.size() && !std::isspace(static_cast<unsigned char>(line[k])) && line[k] != '=') ++k;
        const std::string key = lower(line.substr(i, k - i));
        size_t v = line.find_first_not_of(" \t", k);
        if (v != std::string::npos && line[v] == '=') v = line.find_first_not_of(" \t", v + 1);
        const std::vector<std::string> args = v == std::string::npos ? std::vector<std::string>{} : splitArgs(line.substr(v), origin, lineNo);
        if (args.empty()) throw ConfigError(origin + " line " + std::to_string(lineNo) + ": '" + key + "' has no value; give one or remove the line");
        if (key == "host") {
            Block b;
            b.patterns = args;
            flush(std::move(b));
        } else if (key == "match") {
            Block b;
            if (lower(args[0]) == "all" && args.size() == 1)
                b.matchAll = true;
            else
                b.never = true;  // Match exec/host/user/...: not evaluated, its lines are not applied
            flush(std::move(b));
        } else if (key == "include") {
            if (depth >= 8) throw ConfigError(origin + " line " + std::to_string(lineNo) + ": Include nested too deeply; check for an Include loop");
            Block shape = current;
            shape.entries.clear();
            shape.leading = false;
            flush(shape);
            for (const auto& a : args) {
                std::string pattern = expandPath(a, "", 0, "");
                if (pattern[0] != '/') pattern = baseDir + "/" + pattern;
                GlobResult result;  // freed however this loop is left (a ConfigError from an included file)
                glob_t& g = result.g;
                if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
                    for (size_t n = 0; n < g.gl_pathc; ++n) {
                        // Regular files only, and of a config's size: a pattern may match a
                        // device (Include /dev/*: /dev/zero never ends) or a folder.
                        struct stat st {};
                        if (::stat(g.gl_pathv[n], &st) != 0 || !S_ISREG(st.st_mode)) continue;
                        if (st.st_size > kMaxIncludeBytes) {
                            throw ConfigError(origin + " line " + std::to_string(lineNo) + ": included file '" + g.gl_pathv[n] + "' is " +
                                              std::to_string(st.st_size) + " bytes, not an ssh config (at most 1 MiB); fix the Include pattern");
                        }
                        std::ifstream f(g.gl_pathv[n], std::ios::binary);
                        std::stringstream ss;
                        ss << f.rdbuf();
                        // An included file starts in the includer's Host context.
                        SshConfig inner;
                        inner.parseInto(ss.str(), g.gl_pathv[n], baseDir, depth + 1);
                        for (auto& b : inner.blocks_) {
                            if (b.leading) {
                                b.matchAll = shape.matchAll;
                                b.patterns = shape.patterns;
                                b.never = shape.never;
                            }
                            b.leading = false;
                            blocks_.push_back(std::move(b));
                        }
                    }
                }
            }
            flush(shape);
        } else {
            std::string value = args[0];
            if (key == "proxyjump" || key == "identityfile" || key == "hostname" || key == "user" || key == "port") {
                if (key == "proxyjump") {
                    for (size_t n = 1; n < args.size(); ++n) value += "," + args[n];
                    (void)JumpSpec::parseList(value);  // reject malformed values at parse time
                }
                if (key == "port") (void)parsePort(value, origin + " line " + std::to_string(lineNo));
                current.entries.push_back({key, value});
            }
        }
    }
    flush(Block{});
}

bool SshConfig::blockMatches(const Block& b, const std::string& alias) {
    if (b.never) return false;
    if (b.matchAll) return true;
    bool positive = false;
    for (const auto& p : b.patterns) {
        if (!p.empty() && p[0] == '!') {
            if (matchPattern(p.substr(1), alias)) return false;
        } else if (matchPattern(p, alias)) {
            positive = true;
        }
    }
    return positive;
}

SshHostSettings SshConfig::resolve(const std::string& alias) const {
    SshHostSettings s;
    bool seenIdentitiesOnly = false;
    for (const auto& b : blocks_) {
        if (!blockMatches(b, alias)) continue;
        for (const auto& e : b.entries) {
            if (e.key == "hostname" && !s.hostName) {
                std::string h;
                for (size_t i = 0; i < e.value.size(); ++i) {
                    if (e.value[i] == '%' && i + 1 < e.value.size() && e.value[i + 1] == 'h') {
                        h += alias;
                        ++i;
                    } else if (e.value[i] == '%' && i + 1 < e.value.size() && e.value[i + 1] == '%') {
                        h += '%';
                        ++i;
                    } else {
                        h += e.value[i];
                    }
                }
                s.hostName = h;
            } else if (e.key == "user" && !s.user) {
                s.user = e.value;
            } else if (e.key == "port" && !s.port) {
                s.port = std::stoi(e.value);
            } else if (e.key == "identityfile") {
                s.identityFiles.push_back(e.value);
            } else if (e.key == "proxyjump" && !s.proxyJump) {
                s.proxyJump = e.value;
            } else if (e.key == "proxycommand" && !s.proxyCommand) {
                s.proxyCommand = e.value;
            } else if (e.key == "identitiesonly" && !seenIdentitiesOnly) {
                seenIdentitiesOnly = true;
                s.identitiesOnly = e.value == "yes" || e.value == "true";
            }
        }
    }
    return s;
}

std::optional<SshHostSettings> SshConfig::resolveWithOpenSsh(const std::string& alias, const std::string& configFile) {
    std::string cmd = "ssh -G";
    if (!configFile.empty()) cmd += " -F " + ShellQuote::quote(configFile);
    cmd += " -- " + ShellQuote::quote(alias) + " 2>&1 </dev/null";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return std::nullopt;
    std::string out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int status = ::pclose(p);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 127) return std::nullopt;  // no ssh program: the caller parses the file itself
    std::istringstream lines(out);
    if (code != 0) {
        std::string first, l;
        while (std::getline(lines, l))
            if (first.empty() && l.find("Pseudo-terminal") == std::string::npos) first = l;
        throw ConfigError("ssh rejects its configuration for '" + alias + "': " + first + "; fix " + (configFile.empty() ? "~/.ssh/config" : configFile));
    }
    SshHostSettings s;
    for (std::string l; std::getline(lines, l);) {
        const size_t sp = l.find(' ');
        if (sp == std::string::npos) continue;
        std::string key = l.substr(0, sp);
        std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        const std::string value = l.substr(sp + 1);
        if (key == "hostname")
            s.hostName = value;
        else if (key == "user")
            s.user = value;
        else if (key == "port")
            s.port = std::atoi(value.c_str());
        else if (key == "identityfile")
            s.identityFiles.push_back(value);
        else if (key == "proxyjump")
            s.proxyJump = value;
        else if (key == "proxycommand")
            s.proxyCommand = value;
        else if (key == "identitiesonly")
            s.identitiesOnly = value == "yes";
    }
    // ssh lists its default keys when the configuration names none: report none, as the parser
    // does, so that SshOptions::useDefaultIdentities keeps deciding about them.
    static const std::vector<std::string> kOpenSshDefaults = {"~/.ssh/id_rsa",        "~/.ssh/id_ecdsa", "~/.ssh/id_ecdsa_sk", "~/.ssh/id_ed25519",
                                                              "~/.ssh/id_ed25519_sk", "~/.ssh/id_xmss",  "~/.ssh/id_dsa"};
    if (s.identityFiles == kOpenSshDefaults) s.identityFiles.clear();
    return s;
}

}  // namespace streetgan
