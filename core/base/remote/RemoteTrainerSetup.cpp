#include "base/remote/RemoteTrainerSetup.h"

#include <sys/stat.h>

#include <cstdlib>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/remote/RemoteError.h"
#include "base/remote/SftpClient.h"
#include "base/remote/ShellQuote.h"
#include "base/remote/SshChannel.h"
#include "base/remote/SshSession.h"
#include "base/util/Errors.h"
#include "base/util/Version.h"

namespace streetgan {

namespace {

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
    size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
    return s.substr(i);
}

std::string lastLineOf(const std::string& text) {
    std::istringstream in(text);
    std::string l, last;
    while (std::getline(in, l))
        if (!trim(l).empty()) last = trim(l);
    return last;
}

bool fileExists(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Remote temp folders and the process-group line of stream() carry this marker.
const char* const kPidMarker = "@@streetgan-setup-pid ";

// A remote temporary folder, removed (best effort) when it goes out of scope.
struct RemoteTempDir {
    SshSession& session;
    std::string dir;
    RemoteTempDir(SshSession& s, std::string d) : session(s), dir(std::move(d)) {}
    RemoteTempDir(const RemoteTempDir&) = delete;
    RemoteTempDir& operator=(const RemoteTempDir&) = delete;
    ~RemoteTempDir() {
        try {
            session.exec("rm -rf " + ShellQuote::quote(dir));
        } catch (...) {  // a lost connection leaves it to the host's tmp cleaning
        }
    }
};

}  // namespace

std::string TrainerProbe::summary() const {
    switch (state) {
        case State::Ready:
            return "streetgan-trainer " + version + " (protocol " + std::to_string(protocol) + ")";
        case State::Incompatible:
            return "incompatible (protocol " + std::to_string(protocol) + ")";
        case State::Missing:
            break;
    }
    return problem.empty() ? "not installed" : "not working (" + problem + ")";
}

const char* BuildEnvironment::kindName(Kind k) {
    switch (k) {
        case Kind::Conda:
            return "conda";
        case Kind::Venv:
            return "venv";
        case Kind::LibTorch:
            return "libtorch";
        case Kind::Python:
            break;
    }
    return "python";
}

std::optional<BuildEnvironment::Kind> BuildEnvironment::kindFromName(const std::string& name) {
    for (Kind k : {Kind::Python, Kind::Conda, Kind::Venv, Kind::LibTorch})
        if (name == kindName(k)) return k;
    return std::nullopt;
}

RemoteTrainerSetup::RemoteTrainerSetup(SshSession& session, SetupOptions options) : session_(session), options_(std::move(options)) {}

std::string RemoteTrainerSetup::protocolMismatch(const std::string& host, const std::string& version, int protocol) {
    if (protocol == Version::kProtocol) return {};
    return "host " + host + " runs streetgan-trainer " + version + " (protocol " + std::to_string(protocol) + "); this app speaks protocol " +
           std::to_string(Version::kProtocol) + ": set it up again (Set up… in the hosts list)";
}

std::string RemoteTrainerSetup::locateBundled(const std::string& appDir, const std::string& envVar, const std::string& fileName) {
    if (const char* v = std::getenv(envVar.c_str()); v && *v) {
        if (!fileExists(v)) throw ConfigError(envVar + " names " + v + ", which is not a file: point it at " + fileName + " or unset it");
        return v;
    }
    for (const std::string& dir : bundledDirs(appDir))
        if (fileExists(dir + "/" + fileName)) return dir + "/" + fileName;
    return {};
}

std::vector<std::string> RemoteTrainerSetup::bundledDirs(const std::string& appDir) { return {appDir + "/../share/streetgan/remote", appDir + "/../remote"}; }

std::string RemoteTrainerSetup::missingBundleMessage(const std::string& appDir, const std::string& envVar, const std::string& fileName) {
    const std::vector<std::string> dirs = bundledDirs(appDir);
    return "no " + fileName + " to upload: neither " + dirs[0] + "/" + fileName + " nor " + dirs[1] + "/" + fileName + " (a build tree's) is there and " +
           envVar + " is not set; choose the file, or install the streetgan package that ships it";
}

std::string RemoteTrainerSetup::run(const std::string& command, const std::string& what, const std::string& stdinData) {
    const ExecResult r = session_.exec(command, stdinData);
    if (!r.ok()) {
        std::string why = lastLineOf(r.err);
        if (why.empty()) why = lastLineOf(r.out);
        if (why.empty()) why = r.exitStatus ? "exit status " + std::to_string(*r.exitStatus) : "killed by a signal";
        throw RemoteError("cannot " + what + " on " + session_.label() + ": " + why);
    }
    return r.out;
}

std::string RemoteTrainerSetup::home() {
    if (home_.empty()) {
        home_ = trim(run("printf '%s' \"$HOME\"", "read $HOME"));
        if (home_.empty()) throw RemoteError("$HOME is empty on " + session_.label() + ": pass an absolute install folder");
    }
    return home_;
}

std::string RemoteTrainerSetup::absolute(const std::string& path) const {
    if (path == "~") return home_;
    if (path.rfind("~/", 0) == 0) return home_ + path.substr(1);
    return path;
}

std::string RemoteTrainerSetup::makeTempDir() {
    // 0755: apt's _apt user reads a local .deb from it (installDebWithSudo).
    return trim(run("d=$(mktemp -d \"${TMPDIR:-/tmp}/streetgan-setup-XXXXXX\") && chmod 755 \"$d\" && printf '%s' \"$d\"", "make a temporary folder"));
}

namespace {

// The line of a build's output that says what went wrong: the compiler's or the linker's first
// error, or CMake's, rather than ninja's closing "build stopped" that a failed build ends with.
bool isBuildError(const std::string& l) {
    return l.find(": error: ") != std::string::npos || l.find(": fatal error: ") != std::string::npos ||
           l.find("undefined reference to") != std::string::npos || l.rfind("CMake Error", 0) == 0;
}

}  // namespace

int RemoteTrainerSetup::stream(const std::string& command, const std::string& stdinData, std::string& lastLine, std::string* firstError) {
    // sshd starts each exec in its own session, so the shell's pid is the process group of all it
    // runs: printing it first lets cancel kill the whole build (closing the channel does not).
    const std::string wrapped = "exec 2>&1; echo \"" + std::string(kPidMarker) + "$$\"; " + command;
    auto ch = session_.openExec(wrapped);
    if (!stdinData.empty()) ch->writeUnlessEnded(stdinData);  // an early exit (sudo refusing) says why below
    ch->sendEof();
    std::string buf, pid;
    bool cmakeError = false;  // CMake's message is on the line after "CMake Error at FILE:LINE (message):"
    auto noteError = [&](const std::string& l) {
        if (!firstError) return;
        if (firstError->empty() && isBuildError(l)) {
            *firstError = trim(l);
            cmakeError = l.rfind("CMake Error", 0) == 0;
        } else if (cmakeError && !trim(l).empty()) {
            *firstError += " " + trim(l);
            cmakeError = false;
        }
        if (firstError->size() > 400) *firstError = firstError->substr(0, 400) + "...";
    };
    auto flush = [&](bool all) {
        size_t nl;
        while ((nl = buf.find('\n')) != std::string::npos || (all && !buf.empty())) {
            std::string l = nl == std::string::npos ? buf : buf.substr(0, nl);
            buf.erase(0, nl == std::string::npos ? buf.size() : nl + 1);
            if (!l.empty() && l.back() == '\r') l.pop_back();
            if (l.rfind(kPidMarker, 0) == 0) {
                pid = l.substr(std::string(kPidMarker).size());
                continue;
            }
            if (!trim(l).empty()) lastLine = l;
            noteError(l);
            line(l);
        }
    };
    while (!ch->atEof()) {
        if (cancelled()) {
            ch->close();
            if (!pid.empty() && pid.find_first_not_of("0123456789") == std::string::npos)
                session_.exec("kill -TERM -- -" + pid + " 2>/dev/null; kill -TERM " + pid + " 2>/dev/null; true");
            return -1;
        }
        ch->read(buf, 100);
        flush(false);
    }
    flush(true);
    const auto status = ch->exitStatus();
    return status ? *status : 255;
}

TrainerProbe RemoteTrainerSetup::probe(const std::string& remembered) {
    TrainerProbe p;
    p.home = home();
    const std::string prefixBin = absolute(options_.prefix) + "/bin/streetgan-trainer";
    std::string candidates;
    if (!remembered.empty()) candidates += ShellQuote::quote(absolute(remembered)) + " ";
    candidates += "\"$(command -v streetgan-trainer)\" " + ShellQuote::quote(prefixBin);
    // One round trip: os-release, architecture, conda, then the first candidate that runs.
    const std::string script = HostPlatform::distributionScript() + "printf 'arch=%s\\n' \"$(dpkg --print-architecture 2>/dev/null || uname -m)\"; " +
                               "for t in " + candidates +
                               "; do "
                               "if [ -n \"$t\" ] && command -v -- \"$t\" >/dev/null 2>&1; then "
                               "printf 'trainer=%s\\n' \"$t\"; "
                               "printf 'json=%s\\n' \"$(\"$t\" version --json 2>/dev/null | grep '^{' | tail -n 1)\"; "
                               "printf 'vline=%s\\n' \"$(\"$t\" --version 2>&1 | grep -v '^ *$' | head -n 1)\"; "
                               "break; fi; done; true";
    const std::string out = run(script, "probe for streetgan-trainer");
    // The os_* and conda lines are HostPlatform's (the same keys as its script prints).
    const HostPlatform platform = HostPlatform::parse(out);
    p.osId = platform.osId;
    p.osVersionId = platform.osVersionId;
    p.osName = platform.osName;
    p.hasConda = platform.hasConda;
    std::istringstream in(out);
    std::string l, json, vline;
    while (std::getline(in, l)) {
        const auto eq = l.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = l.substr(0, eq), value = l.substr(eq + 1);
        if (key == "arch")
            p.arch = value;
        else if (key == "trainer")
            p.trainer = value;
        else if (key == "json")
            json = value;
        else if (key == "vline")
            vline = value;
    }
    if (p.trainer.empty()) return p;
    if (!json.empty()) {
        try {
            const auto j = nlohmann::json::parse(json);
            p.version = j.value("version", "");
            p.protocol = j.value("protocol", 0);
            p.libtorch = j.value("libtorch", "");
            p.device = j.value("device", "");
        } catch (const nlohmann::json::exception&) {
            json.clear();
        }
    }
    if (json.empty()) {
        // A trainer from before `version --json` (protocol 0) prints
        // "streetgan-trainer VERSION (LibTorch X, CUDA)".
        const std::string head = "streetgan-trainer ";
        if (vline.rfind(head, 0) != 0) {
            p.problem = vline.empty() ? "no output from " + p.trainer + " --version" : vline;
            return p;
        }
        std::string rest = vline.substr(head.size());
        p.version = rest.substr(0, rest.find(' '));
        p.protocol = 0;
        const auto lt = rest.find("(LibTorch ");
        if (lt != std::string::npos) {
            const auto comma = rest.find(", ", lt);
            p.libtorch = rest.substr(lt + 10, comma == std::string::npos ? std::string::npos : comma - lt - 10);
            if (comma != std::string::npos) p.device = rest.substr(comma + 2, rest.find(')', comma) - comma - 2);
        }
    }
    p.state = p.protocol == Version::kProtocol ? TrainerProbe::State::Ready : TrainerProbe::State::Incompatible;
    return p;
}

HostPlatform RemoteTrainerSetup::probePlatform(const std::vector<std::string>& extraPythons) {
    std::vector<std::string> pythons;
    for (const auto& p : extraPythons) pythons.push_back(absolute(p));
    home();
    // Through sh: the login shell may be csh or fish.
    return HostPlatform::parse(run("sh -c " + ShellQuote::quote(HostPlatform::script(pythons)), "find out what system it is"));
}

SetupResult RemoteTrainerSetup::installBundle(const std::string& localTarball, const std::string& python) {
    SetupResult res;
    home();
    const std::string lib = absolute(options_.prefix) + "/lib/streetgan-trainer";
    run("mkdir -p " + ShellQuote::quote(lib), "make " + lib);
    // The new folder is made beside the installed ones (same file system: the final mv is a
    // rename), named so that no version can clash with it; removed whatever happens below.
    const RemoteTempDir fresh(session_, trim(run("mktemp -d " + ShellQuote::quote(lib + "/.new-XXXXXX"), "make a folder in " + lib)));
    const std::string tarball = fresh.dir + "/bundle.tar.gz";
    if (!upload(localTarball, tarball, res)) return res;
    line("unpacking into " + fresh.dir);
    run("cd " + ShellQuote::quote(fresh.dir) +
            " && mkdir t && tar -xzf bundle.tar.gz -C t && rm bundle.tar.gz && top=t; [ -x t/run ] || top=$(dirname \"$(ls -d t/*/run 2>/dev/null | head -n "
            "1)\"); "
            "[ -x \"$top/run\" ] || { echo 'the bundle has no run script at its top or in one folder' >&2; exit 1; }; mv \"$top\" b",
        "unpack " + localTarball);
    const std::string dir = fresh.dir + "/b";
    // Where the torch is, asked once (find_spec: no import, no GPU start-up); the wrapper carries
    // it, so that each `ls` or `attach` the app runs does not start Python.
    const ExecResult site = session_.exec(ShellQuote::quote(absolute(python)) +
                                          " -c 'import importlib.util, os; s = importlib.util.find_spec(\"torch\"); "
                                          "print(os.path.dirname(os.path.dirname(s.origin)) if s else \"\")'");
    const std::string sitePackages = trim(site.out);
    if (!site.ok() || sitePackages.empty()) {
        res.message = python + " on " + session_.label() + " has no torch" + (site.ok() ? std::string() : " (" + lastLineOf(site.err) + ")") +
                      ": name the Python of the environment that has PyTorch";
        return res;
    }
    const std::vector<std::pair<std::string, std::string>> env{{"STREETGAN_PYTHON", absolute(python)}, {"STREETGAN_TORCH_SITE", sitePackages}};
    std::vector<std::string> words{"env"};
    for (const auto& [name, value] : env) words.push_back(name + "=" + value);
    words.insert(words.end(), {dir + "/run", "version", "--json"});
    const ExecResult check = session_.exec(ShellQuote::join(words) + " 2>&1");
    std::string json;
    {
        std::istringstream in(check.out);
        for (std::string l; std::getline(in, l);)
            if (l.rfind('{', 0) == 0) json = l;
    }
    std::string libtorch;
    try {
        const auto j = nlohmann::json::parse(json);
        res.version = j.value("version", "");
        libtorch = j.value("libtorch", "");
        line(json);
    } catch (const nlohmann::json::exception&) {  // no JSON line: the output's last line says why
    }
    if (!check.ok() || res.version.empty()) {
        const std::string why = lastLineOf(check.out);
        res.message = "the bundle does not run on " + session_.label() + " against " + python + "'s torch: " + (why.empty() ? "no output" : why) +
                      "; the previous trainer is left as it was";
        return res;
    }
    const std::string dest = lib + "/" + res.version + "-torch" + libtorch;
    line("moving it into place: " + dest);
    switchIn(dir, dest, "move the bundle into " + dest);
    writeWrapper(dest + "/run", "streetgan-trainer " + res.version + " (bundle for LibTorch " + libtorch + ") against the torch of " + python, env);
    res.trainer = absolute(options_.prefix) + "/bin/streetgan-trainer";
    const std::string installed = lastLineOf(run(ShellQuote::quote(res.trainer) + " --version", "run the installed " + res.trainer));
    line(installed);
    res.ok = true;
    res.message = "installed " + installed + " as " + res.trainer + ", running against torch in " + sitePackages;
    return res;
}

std::vector<std::string> RemoteTrainerSetup::missingPackages(const std::string& depends) {
    // Each clause "a (>= 1) | b:any": satisfied when one alternative is installed. Versions are
    // not compared: a package built on Debian 12 names Debian 12's versions, which a Debian 12
    // host has; a too-old one shows up when the installed trainer's --version is run.
    std::vector<std::vector<std::string>> clauses;
    std::vector<std::string> names;
    std::istringstream in(depends);
    std::string clause;
    while (std::getline(in, clause, ',')) {
        std::vector<std::string> alts;
        std::istringstream ai(clause);
        std::string alt;
        while (std::getline(ai, alt, '|')) {
            alt = trim(alt);
            alt = trim(alt.substr(0, alt.find_first_of(" (")));
            alt = alt.substr(0, alt.find(':'));
            if (alt.empty()) continue;
            alts.push_back(alt);
            names.push_back(alt);
        }
        if (!alts.empty()) clauses.push_back(alts);
    }
    if (clauses.empty()) return {};
    std::vector<std::string> words{"dpkg-query", "-W", "-f=${Package} ${db:Status-Abbrev}\\n"};
    words.insert(words.end(), names.begin(), names.end());
    // dpkg-query exits 1 when a name is unknown: that is an answer here, not a failure.
    const ExecResult r = session_.exec(ShellQuote::join(words) + " 2>/dev/null; true");
    std::vector<std::string> installed;
    std::istringstream out(r.out);
    std::string l;
    while (std::getline(out, l)) {
        std::istringstream w(l);
        std::string pkg, status;
        w >> pkg >> status;
        if (status == "ii") installed.push_back(pkg.substr(0, pkg.find(':')));
    }
    std::vector<std::string> missing;
    for (const auto& alts : clauses) {
        bool ok = false;
        for (const auto& a : alts)
            for (const auto& i : installed) ok = ok || a == i;
        if (!ok) missing.push_back(alts.front());
    }
    return missing;
}

void RemoteTrainerSetup::switchIn(const std::string& fresh, const std::string& dest, const std::string& what) {
    const std::string d = ShellQuote::quote(dest), old = ShellQuote::quote(dest + ".old");
    run("rm -rf " + old + " && { [ ! -e " + d + " ] || mv " + d + " " + old + "; } && mv " + ShellQuote::quote(fresh) + " " + d + " && rm -rf " + old, what);
}

void RemoteTrainerSetup::writeWrapper(const std::string& target, const std::string& note, const std::vector<std::pair<std::string, std::string>>& env) {
    const std::string bin = absolute(options_.prefix) + "/bin";
    std::string exports;
    for (const auto& [name, value] : env) exports += name + "=" + ShellQuote::quote(value) + "; export " + name + "\n";
    const std::string wrapper = "#!/bin/sh\n# " + note + "\n# Written by StreetGAN Studio's remote set-up (docs/remote-setup.md).\n" + exports + "exec " +
                                ShellQuote::quote(target) + " \"$@\"\n";
    const std::string file = bin + "/streetgan-trainer";
    run("mkdir -p " + ShellQuote::quote(bin) + " && cat > " + ShellQuote::quote(file + ".tmp") + " && chmod 755 " + ShellQuote::quote(file + ".tmp") +
            " && mv -f " + ShellQuote::quote(file + ".tmp") + " " + ShellQuote::quote(file),
        "write " + file, wrapper);
}

bool RemoteTrainerSetup::checkPackage(const std::string& localDeb, const std::string& deb, SetupResult& res, std::string& depends) {
    std::string package;
    std::istringstream fields(run("dpkg-deb -f " + ShellQuote::quote(deb) + " Package Version Depends", "read the package " + localDeb));
    for (std::string l; std::getline(fields, l);) {
        if (l.rfind("Package: ", 0) == 0) package = trim(l.substr(9));
        if (l.rfind("Version: ", 0) == 0) res.version = trim(l.substr(9));
        if (l.rfind("Depends: ", 0) == 0) depends = trim(l.substr(9));
    }
    if (package == "streetgan-trainer") return true;
    res.message = localDeb + " is the package '" + package + "', not streetgan-trainer: choose streetgan-trainer_<version>_<arch>.deb";
    return false;
}

bool RemoteTrainerSetup::upload(const std::string& local, const std::string& remote, SetupResult& res) {
    line("uploading " + local + " to " + session_.label() + ":" + remote);
    if (SftpClient(session_).upload(local, remote, 0644, options_.onUpload, options_.cancel)) return true;
    res.cancelled = true;
    res.message = "cancelled";
    return false;
}

SetupResult RemoteTrainerSetup::installDeb(const std::string& localDeb) {
    SetupResult res;
    home();
    const RemoteTempDir tmp(session_, makeTempDir());
    const std::string deb = tmp.dir + "/streetgan-trainer.deb";
    if (!upload(localDeb, deb, res)) return res;
    std::string depends;
    if (!checkPackage(localDeb, deb, res, depends)) return res;
    res.missing = missingPackages(depends);
    if (!res.missing.empty()) {
        std::string list;
        for (const auto& m : res.missing) list += (list.empty() ? "" : " ") + m;
        res.message = session_.label() + " lacks packages streetgan-trainer " + res.version + " needs: " + list + "; install them with: sudo apt install " +
                      list + " (or choose the sudo apt set-up)";
        return res;
    }
    // Versions may contain ':' (an epoch) or '~': fine in a folder name.
    const std::string dest = absolute(options_.prefix) + "/lib/streetgan-trainer/" + res.version;
    line("unpacking into " + dest);
    run("rm -rf " + ShellQuote::quote(dest + ".new") + " && mkdir -p " + ShellQuote::quote(dest + ".new") + " && dpkg-deb -x " + ShellQuote::quote(deb) + " " +
            ShellQuote::quote(dest + ".new"),
        "unpack " + localDeb + " into " + dest + ".new");
    switchIn(dest + ".new", dest, "move " + dest + ".new into place");
    writeWrapper(dest + "/usr/bin/streetgan-trainer", "streetgan-trainer " + res.version + " unpacked from its .deb without root");
    res.trainer = absolute(options_.prefix) + "/bin/streetgan-trainer";
    const std::string check = lastLineOf(run(ShellQuote::quote(res.trainer) + " --version", "run the installed " + res.trainer));
    line(check);
    res.ok = true;
    res.message = "installed " + check + " as " + res.trainer;
    return res;
}

SetupResult RemoteTrainerSetup::installDebWithSudo(const std::string& localDeb, const PasswordCallback& password) {
    SetupResult res;
    home();
    const RemoteTempDir tmp(session_, makeTempDir());
    const std::string deb = tmp.dir + "/streetgan-trainer.deb";
    if (!upload(localDeb, deb, res)) return res;
    std::string depends;
    if (!checkPackage(localDeb, deb, res, depends)) return res;
    // root installs with apt itself; anyone else through sudo (asked for its password if needed).
    const bool root = trim(run("id -u", "read the user id")) == "0";
    if (!root && !session_.exec("command -v sudo").ok()) {
        res.message = session_.label() + " has no sudo: choose the set-up without root (under ~/.local), or install the package there as root with apt";
        return res;
    }
    std::string secret;
    if (!root && !session_.exec("sudo -n true").ok()) {
        std::optional<std::string> pw = password ? password("sudo password for " + session_.label()) : std::nullopt;
        if (!pw) {
            res.cancelled = true;
            res.message = "cancelled (no sudo password given)";
            return res;
        }
        secret = *pw + "\n";
        std::fill(pw->begin(), pw->end(), '\0');
    }
    std::string last;
    const int status =
        stream(std::string(root ? "" : "sudo -S -p '' ") + "env DEBIAN_FRONTEND=noninteractive apt-get install -y " + ShellQuote::quote(deb), secret, last);
    std::fill(secret.begin(), secret.end(), '\0');
    if (status < 0) {
        res.cancelled = true;
        res.message = "cancelled";
        return res;
    }
    if (status != 0) {
        res.message = std::string(root ? "" : "sudo ") + "apt-get install on " + session_.label() + " failed: " + last;
        return res;
    }
    res.trainer = "/usr/bin/streetgan-trainer";
    const std::string check = lastLineOf(run("/usr/bin/streetgan-trainer --version", "run the installed /usr/bin/streetgan-trainer"));
    res.version = check;
    res.ok = true;
    res.message = "installed " + check + " with apt";
    return res;
}

SetupResult RemoteTrainerSetup::buildFromSource(const std::string& localTarball, const BuildEnvironment& env) {
    SetupResult res;
    home();
    const std::string work = absolute(options_.workDir.empty() ? options_.prefix + "/src/streetgan" : options_.workDir);
    const std::string src = work + "/source", build = work + "/build";
    run("mkdir -p " + ShellQuote::quote(work), "make the build folder " + work);
    const std::string tarball = work + "/streetgan-source.tar.gz";
    if (!upload(localTarball, tarball, res)) return res;
    line("unpacking into " + src);
    // The tarball may hold the tree at its top or inside one folder: find packaging/build-trainer.sh.
    run("cd " + ShellQuote::quote(work) +
            " && rm -rf source.new && mkdir source.new && tar -xzf streetgan-source.tar.gz -C source.new && "
            "top=source.new; [ -f source.new/packaging/build-trainer.sh ] || top=$(dirname \"$(dirname \"$(ls -d source.new/*/packaging/build-trainer.sh "
            "2>/dev/null | head -n 1)\")\"); [ -f \"$top/packaging/build-trainer.sh\" ] || { echo 'the tarball has no packaging/build-trainer.sh' >&2; "
            "exit 1; }; rm -rf source && mv \"$top\" source && rm -rf source.new",
        "unpack " + localTarball);
    std::vector<std::string> script{"bash", "packaging/build-trainer.sh", "--build-dir", build};
    std::string command = "cd " + ShellQuote::quote(src) + " && ";
    switch (env.kind) {
        case BuildEnvironment::Kind::Python:
            script.insert(script.end(), {"--python", env.value.empty() ? "python3" : absolute(env.value)});
            command += "exec " + ShellQuote::join(script);
            break;
        case BuildEnvironment::Kind::Venv:
            script.insert(script.end(), {"--python", absolute(env.value) + "/bin/python"});
            command += "exec " + ShellQuote::join(script);
            break;
        case BuildEnvironment::Kind::LibTorch:
            script.insert(script.end(), {"--libtorch", absolute(env.value)});
            command += "exec " + ShellQuote::join(script);
            break;
        case BuildEnvironment::Kind::Conda:
            // Non-interactive SSH shells seldom have conda on PATH: look where installers put it.
            // `conda run` activates the env (its cmake, ninja and compilers come first on PATH).
            script.insert(script.end(), {"--python", "python"});
            command +=
                "c=$(command -v conda) || for c in \"$HOME/miniconda3/bin/conda\" \"$HOME/anaconda3/bin/conda\" /opt/conda/bin/conda "
                "\"$HOME/miniforge3/bin/conda\" ''; do [ -x \"$c\" ] && break; done; [ -n \"$c\" ] || { echo 'conda not found (PATH, "
                "~/miniconda3, ~/anaconda3, /opt/conda, ~/miniforge3): choose the venv or Python of the environment instead'; exit 2; }; "
                "exec \"$c\" run --no-capture-output -n " +
                ShellQuote::quote(env.value) + " " + ShellQuote::join(script);
            break;
    }
    line("$ " + command);
    std::string last, firstError;
    const int status = stream(command, {}, last, &firstError);
    if (status < 0) {
        res.cancelled = true;
        res.message = "cancelled";
        return res;
    }
    if (status != 0) {
        // The first error says what to fix; ninja's last line only that something failed.
        const std::string why = !firstError.empty() ? firstError + " (the whole output is above)"
                                : last.empty()      ? "exit status " + std::to_string(status)
                                                    : last;
        res.message = "building streetgan-trainer on " + session_.label() + " failed: " + why;
        return res;
    }
    // The wrapper points at a copy of the built programs, not at the build folder: the next
    // build rewrites that folder in place, and a failed one must leave this trainer working.
    // The copy goes into a new folder, is checked, and only then takes the place of the last one.
    const std::string lib = absolute(options_.prefix) + "/lib/streetgan-trainer";
    const std::string dest = lib + "/host-build";
    line("copying the built trainer into " + dest);
    const std::string app = ShellQuote::quote(build + "/app/"), fresh = ShellQuote::quote(dest + ".new/");
    run("mkdir -p " + ShellQuote::quote(lib) + " && rm -rf " + fresh + " && mkdir " + fresh +
            " && for f in streetgan-trainer streetgan-trainer-torch; do [ ! -e " + app + "$f ] || cp -p " + app + "$f " + fresh + " || exit 1; done && " +
            fresh + "streetgan-trainer --version >/dev/null",
        "copy the built trainer into " + dest + ".new");
    switchIn(dest + ".new", dest, "move " + dest + ".new into place");
    writeWrapper(dest + "/streetgan-trainer", "streetgan-trainer built from source in " + work);
    res.trainer = absolute(options_.prefix) + "/bin/streetgan-trainer";
    res.version = last;
    res.ok = true;
    res.message = "built " + last + "; installed as " + res.trainer;
    return res;
}

}  // namespace streetgan
