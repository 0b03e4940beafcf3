// The gallery HTTP server of `streetgan-trainer serve` (cpp-httplib): a drop-in for the reference
// project's image API (api/img_svc.py of msls-pytorch-dcgan: its blog embeds /gan_imgs and
// /gan_gifs in <img> tags and deployments probe /), made deterministic, bounded and safe to leave
// running. A bare request gets what the reference sends; query parameters add our options.
//
//   GET / and /health               JSON: "Health": "OK" (the reference's whole answer), plus
//                                   status, model (checkpoint file name), checkpoint (path), preset,
//                                   nz, img_size, g_params, uptime_s, renders_in_flight,
//                                   max_renders, render_threads, precision. `/` answers the gallery
//                                   page instead to a client whose Accept names text/html (a browser)
//   GET /gan_imgs?n=&nrow=&seed=    PNG grid of n (16) generated images, nrow (4) per row
//                                   (make_grid normalize=True, padding 4): z = LatentSeed::draw(seed,
//                                   nz, n), the same images as `sample --seed S --count n --nrow R
//                                   --padding 4`
//   GET /gan_gifs?frames=&size=&seed=&span=&delay=
//                                   animated GIF, looping forever: the reference's walk, SLERP
//                                   (ml/latent/Slerp) from LatentSeed::draw(seed) to draw(seed + 1)
//                                   at t = linspace(0, span, frames) (span 8: round the great circle
//                                   past both vectors, like the reference), frames (16) rendered in
//                                   one generator batch, each frame min-max normalised on its own
//                                   (the reference's make_grid(normalize=True) per frame), one global
//                                   palette, size x size px (the model's own size; larger: nearest
//                                   neighbour), delay (120) ms per frame
//   GET /gallery                    an HTML page (embedded in the binary) showing a grid and a GIF
//                                   from this server, with a refresh button and a periodic refresh
//                                   with a new seed
//   OPTIONS on those paths          204 with Allow; a CORS preflight also gets the Allow-Methods,
//                                   Allow-Headers (those asked for) and Max-Age headers
// Without `seed` a random seed is drawn; every image response names its seed in the X-Seed header,
// so any picture can be reproduced. Equal parameters give byte-identical responses (for a given
// number of render threads). docs/serve.md lists what still differs from the reference, and why.
//
// CORS: every response carries Access-Control-Allow-Origin: corsOrigin ("*" by default, as the
// reference's flask_cors; one origin to restrict; empty: no CORS headers) and exposes X-Seed.
// Errors: query parameters we do not know are ignored (cache-busters such as ?t=1699999999); a known
// one that is repeated, not a decimal integer or out of range is a 400 with one text line naming
// the parameter and its allowed range; an unknown path is a 404; a method other than GET, HEAD or
// OPTIONS on a known path is a 405 with Allow: GET, HEAD, OPTIONS. Every response carries
// Cache-Control: no-store.
//
// Load (issue 15; the original server tied one of 2 x maxRenders + 8 threads to each connection, so
// fewer than a hundred clients holding half-sent requests starved even /health, and it answered
// 503 at once to any render beyond maxRenders, 14-20 % of a 16-image page at concurrency 4):
// - connections live on one epoll thread (ConnectionLoop): a slow or silent client costs a small
//   buffer, not a thread; heads have a deadline (408) and size caps (413/414/431, 400 for malformed
//   bytes, 505 for other versions) checked as the bytes arrive (HttpRequestHead); /health, the page,
//   OPTIONS and every error are answered on that thread in microseconds, so they never wait for a
//   render;
// - at most maxRenders renders run at once (worker threads); up to maxQueuedRenders more wait
//   first in, first out, each at most queueTimeoutMs; only beyond that is a render answered 503
//   with Retry-After. A 16-image page therefore gets 16 x 200 with 2 slots.
// - at most maxConnections connections (below RLIMIT_NOFILE): beyond it the connection that has
//   waited longest for its request is closed, or the newcomer gets a 503 when all are busy;
//   memory is bounded by maxConnections x (maxHeaderBytes + maxBodyBytes) plus the responses.
// We keep cpp-httplib for parsing, routing and writing responses (GalleryRoutes), so answers are
// byte for byte what they were; only its thread-per-connection socket code is replaced.
//
// Thread contract: construct, then start() or bind()+listen() from one thread; stop() may be called
// from any thread (also before listen() returns); render functions are thread-safe. The destructor
// stops the server and joins its thread. Renders share one FrozenGenerator read-only.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "base/model/ModelConfig.h"
#include "base/serve/GalleryRoutes.h"
#include "ml/model/FrozenGenerator.h"

namespace streetgan {

struct GalleryOptions {
    std::string host = "127.0.0.1";  ///< address to bind (loopback unless told otherwise)
    int port = 8080;                 ///< 0: any free port (see port() after bind())
    int maxRenders = 0;              ///< renders at once; 0: the number of CPU cores
    int renderThreads = 1;           ///< LibTorch intra-op threads per render (process-wide setting)
    /// Generator arithmetic: Float32 (the default; the `sample` command's images) or BFloat16
    /// (opt-in, faster on CPUs with AVX512-BF16/AMX, pixels a few levels off; see FrozenGenerator).
    FrozenGenerator::Precision precision = FrozenGenerator::Precision::Float32;
    /// Renders that may wait for a slot (first in, first out) before a 503; -1: max(16, 4 x
    /// maxRenders), so that a page's 16 images queue rather than fail; 0: 503 at once.
    int maxQueuedRenders = -1;
    int queueTimeoutMs = 10000;                ///< a render waiting longer is answered 503
    int maxConnections = 1024;                 ///< open connections (lowered to fit RLIMIT_NOFILE)
    int headerTimeoutMs = 10000;               ///< a request's head must arrive within this of its first byte
    int idleTimeoutSeconds = 5;                ///< keep-alive idle time between requests (sent in Keep-Alive)
    int writeTimeoutMs = 10000;                ///< a response making no progress this long is dropped
    size_t maxUnsentBytes = size_t(64) << 20;  ///< answers waiting for slow clients, in all (ConnectionLimits)
    int retryAfterSeconds = 1;                 ///< Retry-After of a 503
    int maxImages = 64;                        ///< /gan_imgs n: 1..maxImages (default 16); nrow: 1..maxImages (4)
    int minFrames = 2, maxFrames = 128;        ///< /gan_gifs frames (default 16)
    int maxGifSize = 512;                      ///< /gan_gifs size: img_size..maxGifSize (default img_size)
    /// Access-Control-Allow-Origin of every response: "*" (any page may fetch by script, like the
    /// reference), one origin "scheme://host[:port]" (only that page), or "" (no CORS headers).
    std::string corsOrigin = "*";
    /// More names a request's Host may carry (a reverse proxy's, a machine's name). A loopback bind
    /// answers only Host 127.0.0.1, localhost, ::1 (and the bind address) otherwise, with 421: a
    /// web page that resolves its own name to 127.0.0.1 (DNS rebinding) cannot read the gallery.
    /// Another bind checks no Host (its names are not known here).
    std::vector<std::string> allowedHosts;
    /// Which of the checkpoint's generators to serve: "ema" | "raw" | "" (G_ema where it has one).
    std::string generator;
    /// Test hook: runs on the render's thread while it holds its render slot, before rendering.
    std::function<void()> beforeRender;

    /// Throws ConfigError naming the first invalid field.
    void validate() const;
};

class GalleryServer {
public:
    /// Loads `checkpointPath` (project or reference checkpoint) through ModelLoader; `preset`
    /// (may be empty) refuses another architecture. Throws CheckpointError/ConfigError/IoError.
    GalleryServer(const std::string& checkpointPath, const std::string& preset, GalleryOptions options);
    ~GalleryServer();
    GalleryServer(const GalleryServer&) = delete;
    GalleryServer& operator=(const GalleryServer&) = delete;

    /// Binds host:port; returns the port (the chosen one for port 0). Throws IoError naming the
    /// address when it cannot bind.
    int bind();
    /// Serves until stop(); call after bind(). Returns once stopped.
    void listen();
    /// bind(), then listen() on a background thread; returns the port once accepting.
    int start();
    /// Stops accepting and serving; in-flight requests finish. Idempotent, any thread.
    void stop();
    int port() const { return port_; }
    /// True for 127.0.0.0/8, ::1 and "localhost".
    static bool isLoopback(const std::string& host);

    const ModelConfig& model() const { return model_; }
    /// Render entry points behind the HTTP handlers (no slot accounting). Thread-safe.
    std::string renderGrid(int n, int nrow, uint64_t seed) const;
    /// Throws ConfigError for frames < 1 or a negative span or size.
    std::string renderGif(const GifSpec& spec) const;

private:
    class Impl;
    GalleryOptions options_;
    ModelConfig model_;
    std::string checkpointPath_, preset_;
    int64_t generatorParams_ = 0;
    std::unique_ptr<FrozenGenerator> generator_;
    std::unique_ptr<Impl> impl_;
    std::thread thread_;
    int port_ = 0;
    std::chrono::steady_clock::time_point started_;
    std::atomic<int> inFlight_{0};
};

}  // namespace streetgan
