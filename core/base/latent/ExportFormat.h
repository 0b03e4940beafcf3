// The output formats of a latent walk's export, in one table: what the exporter writes
// (SessionExporter), what the explorer's export dialog offers and names, and what `render --out`
// and the messages list. Another format is a row here and its writer's case in
// SessionExporter::write.
// Plain functions; any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace streetgan {

class ExportFormat {
public:
    enum class Kind { Gif, PngGrid, Mp4, PngSequence };
    struct Spec {
        Kind kind;
        const char* extension;  ///< ".gif"; "" for a folder (the PNG sequence)
        const char* name;       ///< "GIF": the exporter's result and the summary's first word
        const char* label;      ///< "GIF animation": what the export dialog says the path will be
        const char* filter;     ///< "GIF (*.gif)": a file dialog's filter ("" for a folder)
        bool needsMp4;          ///< needs the build's MP4 feature (BuildFeatures; the GPU bundle leaves it out)
    };

    /// Every format, in the order the messages list them.
    static const std::vector<Spec>& all();
    static const Spec& of(Kind kind);
    /// The format of `out` by its extension (any case); else a path ending in '/', without an
    /// extension or naming a folder is a PNG sequence; nullopt for another extension.
    static std::optional<Kind> forPath(const std::string& out);
    /// "FILE.gif, FILE.png, FILE.mp4 or a folder (PNG sequence)", for help and messages.
    static std::string choices();
    /// The file dialog's filters of the file formats: "GIF (*.gif);;PNG grid (*.png);;...".
    static std::string fileFilters();
};

}  // namespace streetgan
