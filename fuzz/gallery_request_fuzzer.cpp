// Fuzz target: the gallery server's request handling without sockets or a generator, as its
// connection loop runs it: HttpRequestHead::scan delimits (or refuses) request after request in
// the input, and every complete one goes through GalleryRoutes (cpp-httplib's parser and router
// with our handlers and query validation) in the classify pass, then, for a valid render request,
// the render pass (stub images) and the busy pass. Checked: a refusal is a 4xx/505 with a reason,
// a delimited request lies within the input, every answer is an HTTP/1.1 response, a render is
// only asked for with parameters within their ranges.
//
// The three sources are compiled into this target (not linked from streetgan_ml): the fuzz build
// instruments project code with clang, and streetgan_ml as a whole would mean compiling every
// LibTorch source with it; these need only cpp-httplib.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "../core/base/serve/GalleryPage.cpp"
#include "../core/base/serve/GalleryRoutes.cpp"
#include "../core/base/serve/HttpRequestHead.cpp"

namespace {

using streetgan::GalleryRoutes;
using streetgan::HttpRequestHead;

void check(bool ok) {
    if (!ok) std::abort();
}

const GalleryRoutes& routes() {
    static const GalleryRoutes r = [] {
        streetgan::GalleryRouteConfig c;
        c.imgSize = 32;
        streetgan::GalleryRouteHooks h;
        h.healthJson = [] { return std::string("{\"Health\": \"OK\"}\n"); };
        h.grid = [c](int n, int nrow, uint64_t) {
            check(n >= 1 && n <= c.maxImages && nrow >= 1 && nrow <= c.maxImages);
            return std::string("\x89PNG", 4);
        };
        h.gif = [c](const streetgan::GifSpec& s) {
            check(s.frames >= c.minFrames && s.frames <= c.maxFrames && s.size >= c.imgSize && s.size <= c.maxGifSize && s.span >= 1 && s.delayMs >= 20);
            return std::string("GIF89a");
        };
        h.busyLine = [] { return std::string("busy"); };
        return GalleryRoutes(c, h);
    }();
    return r;
}

bool isResponse(const GalleryRoutes::Answer& a) { return a.bytes.rfind("HTTP/1.1 ", 0) == 0 && a.status >= 100 && a.status < 600; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const streetgan::HttpLimits limits;
    std::string_view in(reinterpret_cast<const char*>(data), size);
    for (int k = 0; k < 16 && !in.empty(); ++k) {
        const HttpRequestHead h = HttpRequestHead::scan(in, limits);
        if (h.state == HttpRequestHead::State::Rejected) {
            check(((h.status >= 400 && h.status < 500) || h.status == 505) && !h.reason.empty());
            check(routes().refusal(h.status, h.reason).rfind("HTTP/1.1 " + std::to_string(h.status) + " ", 0) == 0);
            break;
        }
        if (h.state == HttpRequestHead::State::Incomplete) break;
        check(h.requestBytes() <= in.size() && h.headBytes >= 4);
        const std::string_view request = in.substr(0, h.requestBytes());
        const GalleryRoutes::Answer a = routes().answer(request, GalleryRoutes::Pass::Classify, false);
        check(isResponse(a));
        if (a.needsRender) {
            check(isResponse(routes().answer(request, GalleryRoutes::Pass::Render, true)));
            const GalleryRoutes::Answer busy = routes().answer(request, GalleryRoutes::Pass::Busy, false);
            check(isResponse(busy) && busy.status == 503);
        }
        in.remove_prefix(h.requestBytes());
    }
    return 0;
}
