// Helpers shared by the TorchPickleReader tests of test_pickle (TorchPickleReaderTest.cpp,
// TorchPickleReaderErrorsTest.cpp): the Python fixtures (tests/python/make_pickle_fixtures.py,
// generated once per test process), comparison of a value tree with the fixture script's JSON
// encoding, and archives built in memory.
#pragma once

#include <gtest/gtest.h>

#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/util/Errors.h"
#include "ml/checkpoint/PickleValue.h"
#include "support/TempDir.h"

namespace streetgan::test::pickle {

namespace fs = std::filesystem;
using json = nlohmann::json;
using streetgan::test::TempDir;

// --- helpers -------------------------------------------------------------------------------------

inline std::vector<char> readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void writeFile(const fs::path& p, const char* data, size_t size) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(data, static_cast<std::streamsize>(size));
}

inline bool hasReferencePython() {
    static const bool has = [] {
        const std::string cmd = std::string("\"") + STREETGAN_PYTHON + "\" -c 'import torch, numpy' >/dev/null 2>&1";
        return std::system(cmd.c_str()) == 0;
    }();
    return has;
}

/// A string literal with embedded NULs, whole.
template <size_t N>
std::string bin(const char (&s)[N]) {
    return std::string(s, N - 1);
}

/// The Python fixtures, generated once per test process into a temporary directory.
struct Fixtures {
    TempDir dir;
    json expected;
    bool ok = false;
    std::string error;
};

inline const Fixtures& fixtures() {
    static Fixtures f;
    static const bool generated = [](Fixtures& x) {
        const std::string cmd =
            std::string("\"") + STREETGAN_PYTHON + "\" \"" + STREETGAN_TEST_PYTHON_DIR + "/make_pickle_fixtures.py\" \"" + x.dir.path().string() + "\"";
        if (std::system(cmd.c_str()) != 0) {
            x.error = "fixture script failed: " + cmd;
            return false;
        }
        std::ifstream in(x.dir.path() / "expected.json");
        x.expected = json::parse(in);
        x.ok = true;
        return true;
    }(f);
    (void)generated;
    return f;
}

// Skips only when the Python has no torch/numpy; any other fixture failure fails the test.
#define REQUIRE_FIXTURES()                                                                                      \
    do {                                                                                                        \
        if (!fixtures().ok && !hasReferencePython()) GTEST_SKIP() << STREETGAN_PYTHON << " has no torch/numpy"; \
        ASSERT_TRUE(fixtures().ok) << fixtures().error;                                                         \
    } while (0)

inline fs::path fixture(const std::string& name) { return fixtures().dir.path() / name; }

/// Runs f, which must throw a CheckpointError whose message names `name` (and contains `also`).
template <class F>
void expectCheckpointError(F&& f, const std::string& name, const std::string& also = "") {
    try {
        f();
        ADD_FAILURE() << "no CheckpointError for " << name;
    } catch (const CheckpointError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(name), std::string::npos) << "message does not name the file: " << msg;
        if (!also.empty()) {
            EXPECT_NE(msg.find(also), std::string::npos) << "message lacks '" << also << "': " << msg;
        }
        EXPECT_EQ(msg.find('\n'), std::string::npos) << "message is not one line: " << msg;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "wrong exception type for " << name << ": " << e.what();
    }
}

// --- comparing a value tree with the fixture script's JSON encoding --------------------------------

inline at::ScalarType dtypeOf(const std::string& name) {
    static const std::map<std::string, at::ScalarType> kTypes = {
        {"float32", at::kFloat}, {"float64", at::kDouble}, {"float16", at::kHalf}, {"bfloat16", at::kBFloat16}, {"int64", at::kLong},
        {"int32", at::kInt},     {"int16", at::kShort},    {"int8", at::kChar},    {"uint8", at::kByte},        {"bool", at::kBool},
    };
    auto it = kTypes.find(name);
    return it == kTypes.end() ? at::kComplexHalf : it->second;
}

struct MatchStats {
    int tensors = 0;
    int values = 0;
};

inline void expectTensor(const at::Tensor& t, const json& e, const std::string& path, MatchStats& stats) {
    ++stats.tensors;
    ASSERT_TRUE(t.defined()) << path;
    EXPECT_TRUE(t.device().is_cpu()) << path;
    EXPECT_EQ(t.scalar_type(), dtypeOf(e["dtype"].get<std::string>())) << path;
    EXPECT_EQ(t.sizes().vec(), e["shape"].get<std::vector<int64_t>>()) << path;
    EXPECT_EQ(t.strides().vec(), e["stride"].get<std::vector<int64_t>>()) << path;
    EXPECT_EQ(t.storage_offset(), e["offset"].get<int64_t>()) << path;
    const auto d = t.to(at::kDouble);
    const double absSum = e["abs_sum"].get<double>();
    const double tol = 1e-10 * absSum + 1e-30;
    EXPECT_NEAR(d.sum().item<double>(), e["sum"].get<double>(), tol) << path;
    EXPECT_NEAR(d.abs().sum().item<double>(), absSum, tol) << path;
    const auto flat = d.reshape({-1});
    const json& first = e["first"];
    ASSERT_LE(first.size(), static_cast<size_t>(flat.numel())) << path;
    for (size_t i = 0; i < first.size(); ++i) {
        const double got = flat[static_cast<int64_t>(i)].item<double>();
        const double want = first[i].is_boolean() ? (first[i].get<bool>() ? 1.0 : 0.0) : first[i].get<double>();
        EXPECT_EQ(got, want) << path << " element " << i;
    }
}

inline void expectMatches(const PickleValue& v, const json& e, const std::string& path, MatchStats& stats) {
    ++stats.values;
    using K = PickleValue::Kind;
    const auto kindIs = [&](K k) {
        if (v.kind() == k) return true;
        ADD_FAILURE() << path << ": expected " << PickleValue::kindName(k) << " for " << e.dump().substr(0, 80) << ", read " << v.describe();
        return false;
    };
    if (e.is_null()) {
        kindIs(K::None);
    } else if (e.is_boolean()) {
        if (kindIs(K::Bool)) {
            EXPECT_EQ(v.asBool(), e.get<bool>()) << path;
        }
    } else if (e.is_number_integer()) {
        if (kindIs(K::Int)) {
            EXPECT_EQ(v.asInt(), e.get<int64_t>()) << path;
        }
    } else if (e.is_number_float()) {
        if (kindIs(K::Float)) {
            EXPECT_EQ(v.asDouble(), e.get<double>()) << path;
            EXPECT_EQ(std::signbit(v.asDouble()), std::signbit(e.get<double>())) << path;
        }
    } else if (e.is_string()) {
        if (kindIs(K::String)) {
            EXPECT_EQ(v.asString(), e.get<std::string>()) << path;
        }
    } else if (e.is_array()) {
        if (!kindIs(K::List)) return;
        ASSERT_EQ(v.items().size(), e.size()) << path;
        for (size_t i = 0; i < e.size(); ++i) expectMatches(v.items()[i], e[i], path + "[" + std::to_string(i) + "]", stats);
    } else if (e.contains("tuple")) {
        if (!kindIs(K::Tuple)) return;
        const json& items = e["tuple"];
        ASSERT_EQ(v.items().size(), items.size()) << path;
        for (size_t i = 0; i < items.size(); ++i) expectMatches(v.items()[i], items[i], path + "(" + std::to_string(i) + ")", stats);
    } else if (e.contains("dict")) {
        if (!kindIs(K::Dict)) return;
        const json& entries = e["dict"];
        ASSERT_EQ(v.entries().size(), entries.size()) << path;
        for (size_t i = 0; i < entries.size(); ++i) {
            const std::string key = entries[i][0].is_string() ? entries[i][0].get<std::string>() : entries[i][0].dump();
            expectMatches(v.entries()[i].first, entries[i][0], path + "{key " + key + "}", stats);
            expectMatches(v.entries()[i].second, entries[i][1], path + "." + key, stats);
        }
    } else if (e.contains("bytes")) {
        if (!kindIs(K::Bytes)) return;
        std::string hex;
        static const char* kHex = "0123456789abcdef";
        for (unsigned char c : v.asBytes()) hex += {kHex[c >> 4], kHex[c & 15]};
        EXPECT_EQ(hex, e["bytes"].get<std::string>()) << path;
    } else if (e.contains("float")) {
        if (!kindIs(K::Float)) return;
        const std::string s = e["float"].get<std::string>();
        const double d = v.asDouble();
        if (s == "nan")
            EXPECT_TRUE(std::isnan(d)) << path;
        else
            EXPECT_EQ(d, s == "inf" ? HUGE_VAL : -HUGE_VAL) << path;
    } else if (e.contains("opaque")) {
        if (kindIs(K::Opaque)) {
            EXPECT_EQ(v.opaqueName(), e["opaque"].get<std::string>()) << path;
        }
    } else if (e.contains("recursive")) {
        if (kindIs(K::Opaque)) {
            EXPECT_NE(v.opaqueName().find("recursive reference"), std::string::npos) << path;
        }
    } else if (e.contains("tensor")) {
        if (kindIs(K::Tensor)) expectTensor(v.asTensor(), e["tensor"], path, stats);
    } else {
        ADD_FAILURE() << path << ": unknown expectation " << e.dump().substr(0, 80);
    }
}

// --- building archives in memory ------------------------------------------------------------------

using Records = std::vector<std::pair<std::string, std::string>>;

/// All records of an archive (names relative to its top-level folder), in archive order.
inline Records recordsOf(const fs::path& p) {
    caffe2::serialize::PyTorchStreamReader reader(p.string());
    Records out;
    for (const auto& name : reader.getAllRecords()) {
        if (name == "version" || name == ".data/version") continue;  // the writer adds its own
        auto [ptr, size] = reader.getRecord(name);
        out.emplace_back(name, std::string(static_cast<const char*>(ptr.get()), size));
    }
    return out;
}

inline std::vector<char> makeArchive(const Records& records) {
    std::vector<char> out;
    {
        caffe2::serialize::PyTorchStreamWriter writer([&](const void* data, size_t n) {
            const char* c = static_cast<const char*>(data);
            out.insert(out.end(), c, c + n);
            return n;
        });
        for (const auto& [name, data] : records) writer.writeRecord(name, data.data(), data.size());
        writer.writeEndOfFile();
    }
    return out;
}

inline std::string& recordData(Records& records, const std::string& name) {
    for (auto& r : records)
        if (r.first == name) return r.second;
    throw std::runtime_error("no record " + name);
}

/// A pickle for _rebuild_tensor_v2(storage '0' of `numel` floats, offset, (size,), (stride,)).
inline std::string tensorPickle(int numel, int offset, int size, int stride) {
    std::string p =
        "\x80\x02"
        "ctorch._utils\n_rebuild_tensor_v2\n"
        "((";
    p += std::string("X\x07\x00\x00\x00storage", 12);
    p += "ctorch\nFloatStorage\n";
    p += std::string(
        "X\x01\x00\x00\x00"
        "0",
        6);
    p += std::string(
        "X\x03\x00\x00\x00"
        "cpu",
        8);
    p += {'K',
          static_cast<char>(numel),
          't',
          'Q',
          'K',
          static_cast<char>(offset),
          'K',
          static_cast<char>(size),
          '\x85',
          'K',
          static_cast<char>(stride),
          '\x85',
          '\x89',
          ')',
          't',
          'R',
          '.'};
    return p;
}

inline std::string floatsBytes(std::initializer_list<float> values) {
    std::string s(values.size() * sizeof(float), '\0');
    std::memcpy(&s[0], values.begin(), s.size());
    return s;
}

}  // namespace streetgan::test::pickle
