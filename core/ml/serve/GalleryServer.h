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
// OPTIONS on a known path is a 405 with Allow: GET, HEAD, OPTIONS. At most maxRenders renders run
// at once; a render request beyond that is answered at once with 503 and Retry-After (never
// queued). Connections wait in a bounded queue (beyond it the acceptor serves them itself, which
// throttles accepting). Every response carries Cache-Control: no-store.
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
#include "ml/serve/FrozenGenerator.h"

namespace streetgan {

struct GalleryOptions {
    std::string host = "127.0.0.1";  ///< address to bind (loopback unless told otherwise)
    int port = 8080;                 ///< 0: any free port (see port() after bind())
    int maxRenders = 0;              ///< renders at once; 0: the number of CPU cores
    int renderThreads = 1;           ///< LibTorch intra-op threads per render (process-wide setting)
    /// Generator arithmetic: Float32 (the default; the `sample` command's images) or BFloat16
    /// (opt-in, faster on CPUs with AVX512-BF16/AMX, pixels a few levels off; see FrozenGenerator).
    FrozenGenerator::Precision precision = FrozenGenerator::Precision::Float32;
    int httpThreads = 0;                 ///< connection threads; 0: 2 * maxRenders + 8
    int maxQueuedConnections = 64;       ///< accepted connections waiting for a thread
    int retryAfterSeconds = 1;           ///< Retry-After of a 503
    int maxImages = 64;                  ///< /gan_imgs n: 1..maxImages (default 16); nrow: 1..maxImages (4)
    int minFrames = 2, maxFrames = 128;  ///< /gan_gifs frames (default 16)
    int maxGifSize = 512;                ///< /gan_gifs size: img_size..maxGifSize (default img_size)
    /// Access-Control-Allow-Origin of every response: "*" (any page may fetch by script, like the
    /// reference), one origin "scheme://host[:port]" (only that page), or "" (no CORS headers).
    std::string corsOrigin = "*";
    /// Test hook: runs on the render's thread while it holds its render slot, before rendering.
    std::function<void()> beforeRender;

    /// Throws ConfigError naming the first invalid field.
    void validate() const;
};

/// One /gan_gifs render; the defaults are the reference's (a bare request).
struct GifSpec {
    int frames = 16;
    int size = 0;  ///< edge in px; 0: the model's own
    uint64_t seed = 0;
    int span = 8;       ///< the walk's t runs over linspace(0, span, frames)
    int delayMs = 120;  ///< per frame
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
