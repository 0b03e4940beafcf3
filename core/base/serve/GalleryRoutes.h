// What the gallery server answers, without sockets or a generator: cpp-httplib's request parser,
// router and response writer (httplib::Server::process_request on an in-memory stream) with the
// gallery's handlers: /, /health, /gallery, /gan_imgs, /gan_gifs, OPTIONS, 404/405, one-line 400s
// for bad query parameters, CORS and Cache-Control on every answer (GalleryServer.h lists them).
// ConnectionLoop hands it one complete request (HttpRequestHead delimited it) and sends the bytes
// it returns; the fuzz target (fuzz/gallery_request_fuzzer.cpp) feeds it arbitrary bytes.
//
// Renders are answered in two passes so that a render never runs on the connection thread:
//   Pass::Classify  parses and validates; a valid /gan_imgs or /gan_gifs request renders nothing
//                   and comes back with needsRender (its bytes are to be dropped); anything else
//                   (health, page, 400, 404, ...) is the final answer.
//   Pass::Render    the same request again on a render worker: the image.
//   Pass::Busy      the same request when no render slot or queue place is left: 503 + Retry-After.
// Thread contract: const after construction; answer() may run concurrently on any threads (the
// pass is per call); the hooks must be thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace streetgan {

/// One /gan_gifs render; the defaults are the reference's (a bare request).
struct GifSpec {
    int frames = 16;
    int size = 0;  ///< edge in px; 0: the model's own
    uint64_t seed = 0;
    int span = 8;       ///< the walk's t runs over linspace(0, span, frames)
    int delayMs = 120;  ///< per frame
};

struct GalleryRouteConfig {
    int imgSize = 64;  ///< the model's; /gan_gifs size starts there
    int maxImages = 64, minFrames = 2, maxFrames = 128, maxGifSize = 512;
    std::string corsOrigin = "*";  ///< "" for no CORS headers
    int retryAfterSeconds = 1;
    int keepAliveSeconds = 5;     ///< announced in Keep-Alive (ConnectionLoop enforces it)
    int keepAliveMax = 1000;      ///< requests per connection, announced likewise
    size_t maxBodyBytes = 65536;  ///< httplib's payload limit (HttpRequestHead refuses larger first)
    /// The names a request's Host may carry (any case; an IPv6 address with or without brackets);
    /// empty: any. A page on
    /// another site that resolves its own name to 127.0.0.1 (DNS rebinding) sends its own name as
    /// Host, and is answered 421. A request without Host (HTTP/1.0) passes.
    std::vector<std::string> allowedHosts;
};

struct GalleryRouteHooks {
    std::function<std::string()> healthJson;                          ///< the body of / and /health
    std::function<std::string(int n, int nrow, uint64_t seed)> grid;  ///< PNG bytes (Pass::Render only)
    std::function<std::string(const GifSpec&)> gif;                   ///< GIF bytes (Pass::Render only)
    std::function<std::string()> busyLine;                            ///< the 503's text line
};

class GalleryRoutes {
public:
    enum class Pass { Classify, Render, Busy };
    struct Answer {
        std::string bytes;         ///< the whole HTTP response
        int status = 0;            ///< its status code (0: nothing to send, the client closed)
        bool close = false;        ///< it says Connection: close (asked for, HTTP/1.0 or closeAfter)
        bool needsRender = false;  ///< Classify: a valid render request; `bytes` are to be dropped
    };

    GalleryRoutes(GalleryRouteConfig config, const GalleryRouteHooks& hooks);
    ~GalleryRoutes();
    GalleryRoutes(const GalleryRoutes&) = delete;
    GalleryRoutes& operator=(const GalleryRoutes&) = delete;

    /// Answers one complete request (head and body). `closeAfter`: the connection closes after it.
    Answer answer(std::string_view request, Pass pass, bool closeAfter, const std::string& peerIp = "127.0.0.1", int peerPort = 0) const;
    /// A response for what never reached the router (too large, malformed, timed out, over the
    /// connection cap): `status` with one text line, the default headers, Connection: close;
    /// a 503 also carries Retry-After.
    std::string refusal(int status, const std::string& line) const;

private:
    class Router;
    std::unique_ptr<Router> router_;
    GalleryRouteConfig config_;
};

}  // namespace streetgan
