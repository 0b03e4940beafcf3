// The built-in synthetic street-scene data set (`--data synthetic`): procedural dash-cam style
// pictures of roads so that a DCGAN can be trained without downloading anything.
//
// Each scene is a straight street seen from a camera at driver/pedestrian height: a road in
// perspective towards a vanishing point with lane markings (dashed centre line, lane dividers,
// edge lines, sometimes a zebra crossing), kerbs and sidewalks, building facades with rows of
// windows on both sides (urban blocks, suburban houses with pitched roofs, or an open road with
// fields, tree lines and hills), a sky with a gradient and clouds, street lights, utility poles,
// signs, trees, pedestrians, parked cars and cars ahead. Scenes vary in time of day (day, dusk,
// night with lit windows and street lights), weather (clear with cast shadows, overcast,
// haze/fog, rain with a wet road), season (summer, spring, autumn, winter with snow) and camera
// (focal length, height, yaw, pitch, lane), so the vanishing point moves from scene to scene.
//
// Determinism: a scene is a pure function of (seed, index). The same pair gives the same bytes on
// every call, on every thread and on every machine and build: only IEEE-exact float operations
// are used (+ - * / sqrt, no libm transcendentals), multiply-add contraction is switched off for
// every file of the renderer by the build (-ffp-contract=off in core/base/CMakeLists.txt, placed
// after the user's flags), random draws are sequenced explicitly, and the generator is a
// self-contained splitmix64 (no <random> distributions, no rand()). Checked on x86-64: GCC and
// Clang, -O0 to -O3 -march=native, give identical bytes. Only this header is included outside the
// folder, and it has no inline arithmetic. The golden-checksum test guards other platforms.
//
// Resolution independence: a scene is described in normalised image coordinates and world
// metres, then rasterised at the requested size with analytic area coverage (exact horizontally,
// 4 sub-scanlines vertically) so edges are antialiased. A 32x32 and a 256x256 render of the same
// index show the same scene; area-downscaling the large one gives (nearly) the small one. Detail
// too small for the target size (far windows) is drawn as its average colour. Scenes are
// composed for a square frame; other aspect ratios stretch the same composition.
//
// The renderer's parts live beside this header (SceneParams, SceneLayout, the painters, Canvas,
// CameraResponse; namespace streetgan::synthetic): only this header is for use outside the folder.
//
// Thread contract: every member function is const and uses no shared mutable state (scratch
// buffers are thread_local), so any number of threads may call render() on one instance at once.
#pragma once

#include <cstdint>
#include <vector>

namespace streetgan {

class SyntheticStreets {
public:
    /// Largest width or height render() accepts.
    static constexpr int kMaxSize = 2048;

    enum class TimeOfDay : uint8_t { Day, Dusk, Night };
    enum class Weather : uint8_t { Clear, Overcast, Fog, Rain };
    enum class Season : uint8_t { Summer, Spring, Autumn, Winter };
    enum class Layout : uint8_t { Urban, Suburban, Open };

    /// The drawn-from-the-dice attributes of one scene (for tests, labels and the GUI).
    struct SceneInfo {
        TimeOfDay timeOfDay;
        Weather weather;
        Season season;
        Layout layout;
        bool snow;           ///< ground covered with snow (winter only)
        float vanishingX;    ///< vanishing point of the road, normalised [0,1] from the left
        float horizonY;      ///< horizon row, normalised [0,1] from the top
        float cameraHeight;  ///< metres above the road
    };

    /// `seed` selects the data set; indices select scenes within it (2^64 of them).
    explicit SyntheticStreets(uint64_t seed = 0);

    uint64_t seed() const { return seed_; }

    /// Renders scene `index` as `height` rows of `width` RGB pixels (R, G, B bytes in that order,
    /// row-major, top row first, no padding: height*width*3 bytes) into `rgb`, which the caller
    /// owns and must hold that many bytes. Throws ConfigError when width or height is outside
    /// [1, kMaxSize]. Thread-safe. Frames up to 512x512 reuse per-thread scratch buffers (no
    /// allocation after a thread's first call at its largest size); larger ones allocate per call.
    void render(uint64_t index, int width, int height, uint8_t* rgb) const;

    /// Same, returning an owning buffer of height*width*3 bytes in the layout above.
    std::vector<uint8_t> render(uint64_t index, int width, int height) const;

    /// The attributes of scene `index` (cheap: no rasterisation). Thread-safe.
    SceneInfo describe(uint64_t index) const;

private:
    uint64_t seed_;
};

}  // namespace streetgan
