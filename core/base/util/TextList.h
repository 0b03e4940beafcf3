// Lists in messages and help: "a, b or c". Plain functions; any thread.
#pragma once

#include <string>
#include <vector>

namespace streetgan {

class TextList {
public:
    /// "a", "a or b", "a, b or c"; "" for none.
    static std::string oneOf(const std::vector<std::string>& items) {
        std::string out;
        for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
        return out;
    }
};

}  // namespace streetgan
