// The output formats of a latent walk's export, in one table: what the exporter writes
// (SessionExporter, through the writer that registers the format: ml/export/ExportWriter.h), what
// the explorer's export dialog offers, names and summarises, and what `render --out` and the
// messages list. Another format is a row here, its writer's file (which registers it) and that
// file's line in core/ml/CMakeLists.txt: nothing else names a format.
// Plain functions; any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace streetgan {

class ExportFormat {
public:
    enum class Kind { Gif, PngGrid, Mp4, Webp, PngSequence };
    /// The session settings a format reads beyond size, frame delay and the walk (the export
    /// dialog enables their boxes only for it).
    enum Uses : unsigned {
        kLoops = 1,         ///< gif_loop_count: an animation's plays (0 forever)
        kGifQuantiser = 2,  ///< gif_palette, gif_dithering, gif_speed
        kGridLayout = 4,    ///< nrow, padding: a grid of every frame
    };
    struct Spec {
        Kind kind;
        const char* extension;  ///< ".gif"; "" for a folder (the PNG sequence)
        const char* name;       ///< "GIF": the exporter's result and the summary's first word
        const char* label;      ///< "GIF animation": what the export dialog says the path will be
        const char* filter;     ///< "GIF (*.gif)": a file dialog's filter ("" for a folder)
        unsigned uses;          ///< Uses bits
        int delayStepMs;        ///< the delay's resolution in the file (GIF: 10 ms); 1 for milliseconds
        bool evenSize;          ///< the frame size must be even (MP4's yuv420p)
        bool still;             ///< one image of every frame (the grid), not played
        /// A build may leave the format out: what it needs and the CMake option ("" for none).
        const char* needs;   ///< "MP4 support (FFmpeg)"
        const char* option;  ///< "STREETGAN_WITH_MP4"
    };

    /// Every format, in the order the messages list them.
    static const std::vector<Spec>& all() {
        static const std::vector<Spec> formats = {
            {Kind::Gif, ".gif", "GIF", "GIF animation", "GIF (*.gif)", kLoops | kGifQuantiser, 10, false, false, "", ""},
            {Kind::PngGrid, ".png", "PNG grid", "PNG grid of every frame", "PNG grid (*.png)", kGridLayout, 1, false, true, "", ""},
            {Kind::Mp4, ".mp4", "MP4", "MP4 video (H.264)", "MP4 video (*.mp4)", 0, 1, true, false, "MP4 support (FFmpeg)", "STREETGAN_WITH_MP4"},
            {Kind::Webp, ".webp", "WebP", "animated WebP", "WebP animation (*.webp)", kLoops, 1, false, false, "animated WebP support (libwebp)",
             "STREETGAN_WITH_WEBP"},
            {Kind::PngSequence, "", "PNG sequence", "PNG sequence (one file per frame in the folder)", "", 0, 1, false, false, "", ""},
        };
        return formats;
    }
    static const Spec& of(Kind kind);
    /// The format of `out` by its extension (any case); else a path ending in '/', without an
    /// extension or naming a folder is a PNG sequence; nullopt for another extension.
    static std::optional<Kind> forPath(const std::string& out);
    /// "FILE.gif, FILE.png, FILE.mp4 or a folder (PNG sequence)", for help and messages.
    static std::string choices();
    /// "GIF, PNG grid, MP4 or PNG sequence", for descriptions and tool tips.
    static std::string names();
    /// The file dialog's filters of the file formats: "GIF (*.gif);;PNG grid (*.png);;...".
    static std::string fileFilters();
    /// Throws ConfigError: "<name> export to '<out>' needs <needs>, which this streetgan-trainer was
    /// built without (<option>=OFF, as in the GPU bundle): <the formats it has instead>".
    /// `available`: the kinds this build writes.
    [[noreturn]] static void missing(Kind kind, const std::string& out, const std::vector<Kind>& available);
};

}  // namespace streetgan
