#include "base/latent/Easing.h"

#include <algorithm>

#include "base/util/Errors.h"

namespace streetgan {

double Easing::apply(Kind kind, double t) {
    t = std::clamp(t, 0.0, 1.0);
    switch (kind) {
        case Kind::Linear:
            return t;
        case Kind::EaseIn:
            return t * t * t;
        case Kind::EaseOut: {
            const double u = 1.0 - t;
            return 1.0 - u * u * u;
        }
        case Kind::EaseInOut:
            return t * t * (3.0 - 2.0 * t);
    }
    return t;
}

std::vector<std::string> Easing::names() { return {"linear", "ease-in-out", "ease-in", "ease-out"}; }

std::string Easing::name(Kind kind) {
    switch (kind) {
        case Kind::Linear:
            return "linear";
        case Kind::EaseInOut:
            return "ease-in-out";
        case Kind::EaseIn:
            return "ease-in";
        case Kind::EaseOut:
            return "ease-out";
    }
    return "linear";
}

Easing::Kind Easing::parse(const std::string& name, const std::string& key) {
    if (name == "linear") return Kind::Linear;
    if (name == "ease-in-out") return Kind::EaseInOut;
    if (name == "ease-in") return Kind::EaseIn;
    if (name == "ease-out") return Kind::EaseOut;
    throw ConfigError("'" + key + "' is '" + name + "'; use one of linear, ease-in-out, ease-in, ease-out");
}

}  // namespace streetgan
