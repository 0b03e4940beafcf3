// How a training run reads photos (issue 46 item 3): decoded image by image, or through a packed
// cache of them (pre-cropped, pre-scaled: no decoding), and the one line that says which and why.
// --data-path (TrainOption "data_path") sets the mode:
//   photos  decode them, always;
//   packed  a packed cache made of the same photos with the run's size and augmentation: the
//           registered one (PackRegistry), else packed now, before the first step;
//   auto    (default) the registered pack when there is one; else, on a GPU, packed first when the
//           run reads the photos at least kMinEpochsToPack times (a GPU step outruns JPEG decoding
//           on every core of a GPU box: naive-64 at 60,000 img/s needs ~30 cores) and the pack
//           takes at most 1/kSpaceShare of the free space where it goes; else decoded, saying why
//           not packed where that matters.
// Only a single-process run packs by itself: the ranks of a distributed run would race to pack;
// they use a registered pack or decode (and `data pack` makes the pack once).
// Pure decision, no I/O: DataSources::openForTraining gathers the inputs and acts on it.
// Plain data; any thread.
#pragma once

#include <cstdint>
#include <string>

namespace streetgan {

class DataPathChoice {
public:
    static constexpr double kMinEpochsToPack = 2;
    static constexpr double kSpaceShare = 4;

    enum class Mode { Auto, Photos, Packed };
    enum class Kind { Photos, UsePack, PackFirst };

    struct Inputs {
        Mode mode = Mode::Auto;
        std::string spec;         ///< --data as given (in messages)
        std::string packCommand;  ///< the `data pack` command for these photos and settings (DataSources::packCommand)
        std::string matchDir;     ///< a registered pack that matches ("": none)
        std::string staleDir;     ///< a registered pack of these photos that no longer matches ("": none)
        std::string packDir;      ///< where a pack made now would go
        bool cuda = false;        ///< the run's device is a GPU
        int worldSize = 1;        ///< ranks of the run
        double epochs = 1;        ///< passes over the photos the run will make
        int64_t packBytes = 0;    ///< the pack's size, estimated
        int64_t freeBytes = -1;   ///< free space where packDir goes (-1: unknown)
    };
    struct Choice {
        Kind kind = Kind::Photos;
        std::string message;  ///< one line to say ("": nothing worth saying)
    };

    /// "auto" | "photos" | "packed" (TrainOption checks the choices; ConfigError otherwise).
    static Mode parseMode(const std::string& text);
    /// What to do. Throws ConfigError where --data-path packed cannot be followed (several ranks,
    /// not enough space), naming what to do instead.
    static Choice decide(const Inputs& in);
    /// The bytes of a pack of `images` photos at `size` px with `maxShift`, for photos
    /// `widthPerCrop` times as wide as their crop (source width / (crop factor x size)).
    static int64_t estimatePackBytes(int64_t images, int size, double maxShift, double widthPerCrop);
};

}  // namespace streetgan
