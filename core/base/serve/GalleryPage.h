// The HTML of GET /gallery, embedded in the binary: a PNG grid and a SLERP GIF from the same server
// (relative URLs /gan_imgs and /gan_gifs), a "New seed" button and an automatic refresh with a new
// random seed (every 10 s; the page's own query ?every=S sets S seconds, 0 turns it off; ?seed=N
// starts at seed N). The seed of each picture is shown and links to the image itself.
//
// Layout contract (CSS pixels, device scale 1; the gallery test checks these regions):
//   grid image: left 16, top 72, 552 x 552;  GIF: left 584, top 72, 256 x 256; background #202124.
// Stateless; html() returns the same immutable string to every thread.
#pragma once

#include <string>

namespace streetgan {

class GalleryPage {
public:
    static const std::string& html();
};

}  // namespace streetgan
