// Typed exceptions thrown by core. Boundaries (CLI mains, worker slots) turn them into one-line
// messages and exit codes; core never prints. Every message names the thing and what to do.
// (A family of one-line exception types shares this header on purpose: they are one concept.)
#pragma once

#include <stdexcept>
#include <string>

namespace streetgan {

/// Base of every error core throws on bad input or a failing environment.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A configuration value, preset name or command-line value that cannot be used.
class ConfigError : public Error {
public:
    using Error::Error;
};

/// A checkpoint that cannot be read, is corrupt, or belongs to another architecture.
class CheckpointError : public Error {
public:
    using Error::Error;
};

/// A file or directory that cannot be read or written (permissions, full disk, ...).
class IoError : public Error {
public:
    using Error::Error;
};

/// A data source with no usable images or a sample that cannot be produced.
class DataError : public Error {
public:
    using Error::Error;
};

/// Exit codes used by the command-line front end for each error kind.
enum class ExitCode : int { Ok = 0, Failure = 1, Usage = 2, Config = 3, Checkpoint = 4, Io = 5, Data = 6, Interrupted = 130 };

/// The exit code for an exception of one of the kinds above (Failure for anything else).
inline int exitCodeFor(const std::exception& e) {
    if (dynamic_cast<const ConfigError*>(&e)) return static_cast<int>(ExitCode::Config);
    if (dynamic_cast<const CheckpointError*>(&e)) return static_cast<int>(ExitCode::Checkpoint);
    if (dynamic_cast<const IoError*>(&e)) return static_cast<int>(ExitCode::Io);
    if (dynamic_cast<const DataError*>(&e)) return static_cast<int>(ExitCode::Data);
    return static_cast<int>(ExitCode::Failure);
}

/// Rethrows `message` as the error kind that `exitCodeFor` maps to `code` (e.g. from a child).
[[noreturn]] inline void throwForExitCode(int code, const std::string& message) {
    switch (code) {
        case static_cast<int>(ExitCode::Config):
            throw ConfigError(message);
        case static_cast<int>(ExitCode::Checkpoint):
            throw CheckpointError(message);
        case static_cast<int>(ExitCode::Io):
            throw IoError(message);
        case static_cast<int>(ExitCode::Data):
            throw DataError(message);
        default:
            throw Error(message);
    }
}

}  // namespace streetgan
