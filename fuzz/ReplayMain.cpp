// The main of a fuzz target in the regular test build (fuzz_replay_<name>): runs
// LLVMFuzzerTestOneInput once on every file of the folders (or files) given on the command line,
// in name order, and prints how many it ran. A crash or an exception escaping the target fails
// the test, so that an input once found by fuzzing and added to fuzz/corpus/<name>/ stays fixed.
// Single-threaded.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    std::vector<fs::path> files;
    for (int i = 1; i < argc; ++i) {
        const fs::path p(argv[i]);
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            for (const auto& e : fs::recursive_directory_iterator(p))
                if (e.is_regular_file()) files.push_back(e.path());
        } else if (fs::is_regular_file(p, ec)) {
            files.push_back(p);
        } else {
            std::fprintf(stderr, "%s: '%s' is neither a file nor a folder: pass the corpus folder\n", argv[0], argv[i]);
            return 2;
        }
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        std::fprintf(stderr, "%s: no inputs found: the corpus folder is empty\n", argv[0]);
        return 2;
    }
    for (const fs::path& f : files) {
        std::ifstream in(f, std::ios::binary);
        const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        try {
            LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "FAIL: %s: exception escaped the parser: %s\n", f.c_str(), e.what());
            return 1;
        } catch (...) {
            std::fprintf(stderr, "FAIL: %s: a non-standard exception escaped the parser\n", f.c_str());
            return 1;
        }
    }
    std::printf("replayed %zu inputs\n", files.size());
    return 0;
}
