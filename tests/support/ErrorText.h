// The message of the error of kind E a call throws, for tests that check an error's wording
// (one line, naming the thing and what to do); "(no error of the expected kind)" when it throws
// none (an error of another kind goes through, failing the test).
#pragma once

#include <functional>
#include <string>

namespace streetgan::test {

template <class E>
std::string messageOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "(no error of the expected kind)";
}

}  // namespace streetgan::test
