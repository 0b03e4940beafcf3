// Fuzz target: requests on a run's control socket, one per line, through TrainControl::submitLine
// with each reply serialised exactly as ControlServer sends it (strict UTF-8 dump), then the queue
// taken as the trainer takes it. submitLine refuses bad requests with a reply and never throws,
// so no exception at all may escape.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "FuzzSupport.h"
#include "base/daemon/TrainControl.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    streetgan::TrainControl control;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const std::string_view line : streetgan::fuzz::lines(text)) {
        const nlohmann::json reply = control.submitLine(std::string(line));
        (void)reply.dump();  // ControlServer's reply line
    }
    for (const streetgan::ControlRequest& r : control.take())
        (void)(r.rejected.size() + r.raw.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size());  // the trainer's event
    return 0;
}
