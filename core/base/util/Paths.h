// Where StreetGAN keeps files that are not part of a run: the one rule for cache, data and
// temporary folders (XDG Base Directory specification, TMPDIR), used by every cache in base, ml,
// the trainer and the app.
//   cacheDir(sub)  $XDG_CACHE_HOME/streetgan/sub, else $HOME/.cache/streetgan/sub, else
//                  tempDir()/streetgan-cache-<uid>/sub (no home: a service account)
//   dataDir(sub)   $XDG_DATA_HOME/streetgan/sub, else $HOME/.local/share/streetgan/sub, else
//                  tempDir()/streetgan-data-<uid>/sub
//   tempDir()      $TMPDIR if set and non-empty, else /tmp
// Relative XDG values are ignored, as the specification says. Nothing is created: callers create
// what they write (their error then names the folder).
//
// Thread contract: stateless; reads the environment on every call.
#pragma once

#include <string>

namespace streetgan {

class Paths {
public:
    static std::string cacheDir(const std::string& sub = "");
    static std::string dataDir(const std::string& sub = "");
    static std::string tempDir();
    /// A cache file for something at absPath that cannot be cached next to it (a read-only data
    /// folder): cacheDir(sub)/<FNV-1a of absPath, 16 hex digits><ext>.
    static std::string cacheFileFor(const std::string& sub, const std::string& absPath, const std::string& ext);
    /// The user's home folder: $HOME, else the password database, else "" (never throws).
    static std::string homeDir();
    /// This program's own path (/proc/self/exe); IoError when /proc cannot tell it.
    static std::string selfExecutable();
};

}  // namespace streetgan
