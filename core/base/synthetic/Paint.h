// Internal to SyntheticStreets: how a shape is blended into the Canvas (colour, alpha, blend mode,
// constant or per-pixel fog, a vertical alpha gradient, or a facade texture).
// Thread contract: a plain value.
#pragma once

#include <cstdint>

#include "base/synthetic/SceneMaths.h"

namespace streetgan::synthetic {

enum class Blend : uint8_t { Normal, Add, Shadow };

struct FacadeTex;

struct Paint {
    const FacadeTex* tex = nullptr;
    Col c{0.f, 0.f, 0.f};
    float alpha = 1.f;
    Blend blend = Blend::Normal;
    bool plane = false;  // per-pixel fog from 1/z = A*x + B*y + C (pixel centres)
    float A = 0.f, B = 0.f, C = 0.f;
    float m = 0.f;      // constant fog amount when !plane
    bool grad = false;  // alpha *= clamp01(ga + gb * y)
    float ga = 1.f, gb = 0.f;
};

}  // namespace streetgan::synthetic
