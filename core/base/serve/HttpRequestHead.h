// The gallery server's first look at a request (before cpp-httplib parses it): finds where the
// head (request line and header fields) and the body end in the bytes received so far, and
// rejects what we will not take, as early as the bytes allow: a malformed request line (400), an
// HTTP version other than 1.0/1.1 (505), a request line over maxRequestLine (414), a header
// section over maxHeaderBytes or maxHeaders fields (431), a body over maxBodyBytes (413), a
// chunked body (411: send a Content-Length), control bytes, bare LF line ends, folded or nameless
// header lines (400). Garbage is refused on its first bytes rather than at a timeout.
// Pure: no sockets, no state between calls (the connection loop calls scan() again on the grown
// buffer; the fuzz target calls it on arbitrary bytes). Thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace streetgan {

struct HttpLimits {
    size_t maxRequestLine = 8192;   ///< bytes of method, target and version (cpp-httplib's URI limit)
    size_t maxHeaderBytes = 16384;  ///< the whole head, request line included
    size_t maxHeaders = 100;        ///< header fields
    size_t maxBodyBytes = 65536;    ///< Content-Length
};

struct HttpRequestHead {
    enum class State { Incomplete, Complete, Rejected };
    State state = State::Incomplete;
    int status = 0;        ///< Rejected: the 4xx/505 to answer
    std::string reason;    ///< Rejected: one line saying what was wrong and what to do
    size_t headBytes = 0;  ///< Complete: request line + fields + the empty line
    size_t bodyBytes = 0;  ///< Complete (and Incomplete once the head is whole): Content-Length
    bool headComplete = false;
    bool expectContinue = false;  ///< "Expect: 100-continue" with a body to come
    std::string method;           ///< once the request line is whole
    std::string target;

    /// Complete and the whole body received: head + body bytes, the request's length in `buffered`.
    size_t requestBytes() const { return headBytes + bodyBytes; }

    /// Scans the start of `buffered` (the bytes of one connection not yet consumed).
    static HttpRequestHead scan(std::string_view buffered, const HttpLimits& limits);
};

}  // namespace streetgan
