// Sets up streetgan-trainer on a remote host over an SshSession (docs/remote-setup.md):
// - probe(): which trainer the host runs (a remembered path, PATH, PREFIX/bin), its version and
//   protocol (`version --json`; a trainer without it is protocol 0), and the host's OS;
// - installDeb(): no root: the .deb goes up over SFTP, `dpkg-deb -x` unpacks it under
//   PREFIX/lib/streetgan-trainer/<version> and PREFIX/bin/streetgan-trainer execs it; refused, with
//   the missing packages and the `sudo apt install` line, when its Depends are not installed;
// - installDebWithSudo(): `sudo -S apt-get install -y ./file.deb`, the password asked through a
//   callback and never stored;
// - buildFromSource(): the source tarball goes up, is unpacked under WORKDIR and
//   packaging/build-trainer.sh builds it against the host's own PyTorch (conda env, venv, Python
//   or LibTorch folder); then PREFIX/bin/streetgan-trainer execs the built trainer.
// Every install location is a parameter (SetupOptions::prefix, default ~/.local).
//
// Thread contract: one thread (a worker) calls the methods, using the session as SshSession says;
// the callbacks run on that thread; `cancel` may be set from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/remote/HostPlatform.h"

namespace streetgan {

class SshSession;

/// What probe() found on a host.
struct TrainerProbe {
    enum class State { Missing, Incompatible, Ready };
    State state = State::Missing;
    std::string trainer;  ///< the command that ran it (as found: a path or "streetgan-trainer")
    std::string version;  ///< e.g. "0.1.0+git60.g1234567"; empty when missing
    int protocol = -1;    ///< 0: a trainer without `version --json`; -1: none found
    std::string libtorch, device;
    std::string problem;                    ///< a trainer was found but did not answer (its first output line)
    std::string home;                       ///< $HOME on the host
    std::string osId, osVersionId, osName;  ///< from /etc/os-release (ID, VERSION_ID, PRETTY_NAME)
    std::string arch;                       ///< dpkg's architecture, or uname -m without dpkg
    bool hasConda = false;                  ///< conda on PATH or in a usual place

    bool isDebian12() const { return osId == "debian" && osVersionId == "12"; }
    /// "streetgan-trainer 0.1.0+git60 (protocol 1)" / "not installed" / "incompatible (protocol 0)".
    std::string summary() const;
};

/// The PyTorch a source build uses (packaging/build-trainer.sh's --python / --libtorch).
struct BuildEnvironment {
    enum class Kind { Python, Conda, Venv, LibTorch };
    Kind kind = Kind::Python;
    std::string value;                    ///< Python: interpreter (empty: python3); Conda: env name; Venv/LibTorch: folder
    static const char* kindName(Kind k);  ///< "python", "conda", "venv", "libtorch" (settings keys)
    static std::optional<Kind> kindFromName(const std::string& name);
};

struct SetupOptions {
    std::string prefix = "~/.local";                              ///< lib/streetgan-trainer/<version>/ and bin/streetgan-trainer go here
    std::string workDir;                                          ///< source builds; empty: PREFIX/src/streetgan
    std::function<void(const std::string& line)> onLine;          ///< each output line of a remote command
    std::function<void(uint64_t done, uint64_t total)> onUpload;  ///< upload progress
    const std::atomic<bool>* cancel = nullptr;                    ///< set: the work stops soon (remote commands killed)
};

struct SetupResult {
    bool ok = false;
    bool cancelled = false;
    std::string trainer;               ///< ok: absolute path of PREFIX/bin/streetgan-trainer (remember it)
    std::string version;               ///< the version set up
    std::vector<std::string> missing;  ///< installDeb: packages the host lacks
    std::string message;               ///< one line: what was done, or why not and what to do
};

class RemoteTrainerSetup {
public:
    using PasswordCallback = std::function<std::optional<std::string>(const std::string& prompt)>;

    RemoteTrainerSetup(SshSession& session, SetupOptions options = {});

    /// Looks for the trainer: `remembered` first (a path or command; empty: skipped), then PATH,
    /// then PREFIX/bin/streetgan-trainer. Throws RemoteError / ConnectionLostError.
    TrainerProbe probe(const std::string& remembered = {});
    /// What the host is (HostPlatform::script, one exec; `extraPythons` are asked first). Throws
    /// RemoteError / ConnectionLostError.
    HostPlatform probePlatform(const std::vector<std::string>& extraPythons = {});
    /// No root: uploads a trainer bundle (packaging/gpu-bundle.sh --tar), unpacks it into a new
    /// folder under PREFIX/lib/streetgan-trainer/, runs its `version --json` against `python`'s torch
    /// and only then moves it into place and points PREFIX/bin/streetgan-trainer at it. A bundle
    /// that does not run is a SetupResult with ok false (its error quoted), and the previous
    /// trainer is left as it was.
    SetupResult installBundle(const std::string& localTarball, const std::string& python);
    /// No root (see the header comment). Throws RemoteError on failures of the connection or of
    /// a remote command (the error quoted); a refused install (missing packages, not a trainer
    /// package) is a SetupResult with ok false.
    SetupResult installDeb(const std::string& localDeb);
    /// Through sudo and apt; `password` is asked only when sudo needs one (nullopt: cancelled).
    SetupResult installDebWithSudo(const std::string& localDeb, const PasswordCallback& password);
    /// Uploads and unpacks `localTarball`, runs packaging/build-trainer.sh with `env`, streams its
    /// output to onLine; a failure's message is the script's last line.
    SetupResult buildFromSource(const std::string& localTarball, const BuildEnvironment& env);

    /// Packages of `depends` (a Depends field: "a (>= 1), b | c") not installed on the host, each
    /// clause as its first alternative. Version constraints are not checked (see the .cpp).
    std::vector<std::string> missingPackages(const std::string& depends);

    /// "host X runs streetgan-trainer V (protocol N); this app speaks protocol P: set it up again
    /// (Set up… in the hosts list)"; empty when `protocol` is this app's.
    static std::string protocolMismatch(const std::string& host, const std::string& version, int protocol);
    /// Where the app keeps the files it uploads: APPDIR/../share/streetgan/remote (installed), then
    /// APPDIR/../remote (a build tree: build/release/app/streetgan beside build/release/remote/).
    static std::vector<std::string> bundledDirs(const std::string& appDir);
    /// A file the app uploads: the path in environment variable `envVar` when set (ConfigError
    /// when it names no file), else the first bundledDirs() folder holding `fileName`, else empty
    /// (the caller asks the user and names the places: see missingBundleMessage).
    static std::string locateBundled(const std::string& appDir, const std::string& envVar, const std::string& fileName);
    static std::string missingBundleMessage(const std::string& appDir, const std::string& envVar, const std::string& fileName);

private:
    std::string absolute(const std::string& path) const;  // "~" and "~/..." -> $HOME/...
    std::string home();
    std::string run(const std::string& command, const std::string& what, const std::string& stdinData = {});
    int stream(const std::string& command, const std::string& stdinData, std::string& lastLine, std::string* firstError = nullptr);
    std::string makeTempDir();
    /// Uploads `local` to `remote`; false (and `res` says cancelled) when the user cancelled.
    bool upload(const std::string& local, const std::string& remote, SetupResult& res);
    /// Reads the uploaded package `deb`'s fields into res.version and `depends`; false (and
    /// res.message says why) unless it is streetgan-trainer.
    bool checkPackage(const std::string& localDeb, const std::string& deb, SetupResult& res, std::string& depends);
    /// Moves the folder `fresh` to `dest` (same file system): a `dest` already there is moved
    /// aside first and removed only once `fresh` is in its place, so a failure on the way leaves
    /// one of the two complete. Throws RemoteError naming `what`.
    void switchIn(const std::string& fresh, const std::string& dest, const std::string& what);
    /// PREFIX/bin/streetgan-trainer, replaced atomically: `env` lines (NAME=VALUE, values quoted
    /// here) are exported, then `target` is exec'd.
    void writeWrapper(const std::string& target, const std::string& note, const std::vector<std::pair<std::string, std::string>>& env = {});
    bool cancelled() const { return options_.cancel && options_.cancel->load(); }
    void line(const std::string& s) const {
        if (options_.onLine) options_.onLine(s);
    }

    SshSession& session_;
    SetupOptions options_;
    std::string home_;
};

}  // namespace streetgan
