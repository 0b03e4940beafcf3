// Typed exceptions of the SSH client (core/remote). They derive from streetgan::Error, so the
// command-line front end prints them as one line; each names the host and says what to do.
// (A family of one-line exception types shares this header on purpose: they are one concept.)
#pragma once

#include "base/util/Errors.h"

namespace streetgan {

/// Any failure of the SSH client: cannot resolve or reach a host, SFTP or exec failure.
class RemoteError : public Error {
public:
    using Error::Error;
};

/// The server's host key is unknown and was not accepted, or differs from known_hosts.
/// Never retried: reconnecting cannot fix it.
class HostKeyError : public RemoteError {
public:
    using RemoteError::RemoteError;
};

/// The server refused every authentication method tried (agent, key files, password).
/// Never retried.
class AuthError : public RemoteError {
public:
    using RemoteError::RemoteError;
};

/// An established connection dropped (socket closed, reset or timed out). Callers that can
/// resume (RemoteAttach, SftpClient downloads through their .part file) reconnect on this one.
class ConnectionLostError : public RemoteError {
public:
    using RemoteError::RemoteError;
};

}  // namespace streetgan
