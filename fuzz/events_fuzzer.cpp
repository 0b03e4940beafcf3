// Fuzz target: events.jsonl and attach-protocol lines through EventReader (its fast scan and
// nlohmann's SAX parser behind it), each line read as an event and as an attach line, then written
// back with toJson as EventLog would. EventReader reports bad lines in its result and never
// throws, so no exception at all may escape. Events.h promises that a line read and written again
// is the same JSON (up to number types, which nlohmann's == ignores, and members the schema always
// writes, such as a data event's "skipped": {} or a checkpoint's "path": ""): checked for every line read.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "FuzzSupport.h"
#include "base/run/Events.h"

namespace {

bool isEmpty(const nlohmann::json& v) {
    return v.is_null() || (v.is_string() && v.get_ref<const std::string&>().empty()) || ((v.is_object() || v.is_array()) && v.empty());
}

/// `written` is `original` read and written again: the same members with equal values, except
/// that either side may lack a member the other has as null or empty (a default).
bool sameEvent(const nlohmann::json& original, const nlohmann::json& written) {
    if (!original.is_object() || !written.is_object()) return original == written;
    for (const auto& [k, v] : original.items())
        if (!(written.contains(k) ? written.at(k) == v : isEmpty(v))) return false;
    for (const auto& [k, v] : written.items())
        if (!original.contains(k) && !isEmpty(v)) return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static streetgan::EventReader reader;  // one per thread, reused from line to line as the dashboard does
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const std::string_view line : streetgan::fuzz::lines(text)) {
        const streetgan::ParsedEvent p = reader.read(line);
        if (p.ok()) {
            const nlohmann::json j = streetgan::toJson(p.event);
            (void)j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);  // as EventLog writes
            (void)streetgan::kindOf(p.event);
            (void)streetgan::stampOf(p.event);
            (void)streetgan::eventFromJson(j);
            const nlohmann::json original = nlohmann::json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
            if (original.is_discarded() || !sameEvent(original, j)) {
                std::fprintf(stderr, "events round trip differs:\n  line:    %.*s\n  written: %s\n", static_cast<int>(line.size()), line.data(),
                             j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
                std::abort();
            }
        }
        const streetgan::ParsedAttachLine a = reader.readAttach(line);
        if (a.ok() && a.line.type == streetgan::AttachLine::Type::Event) (void)streetgan::toJson(a.line.event);
    }
    return 0;
}
