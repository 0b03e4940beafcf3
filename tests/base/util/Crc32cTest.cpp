// CRC-32C (Castagnoli) as TFRecord framing uses it: known-answer vectors, the masked form, and
// the sliced implementation against the bitwise definition. Built into test_tensorboard.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

#include "base/util/Crc32c.h"

using namespace streetgan;

namespace {

uint32_t bitwiseCrc32c(const std::string& s) {  // the definition, one bit at a time
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned char b : s) {
        c ^= b;
        for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ 0x82F63B78u : (c >> 1);
    }
    return ~c;
}

}  // namespace

TEST(Crc32c, KnownAnswerVectors) {
    EXPECT_EQ(Crc32c::compute(std::string()), 0x00000000u);
    EXPECT_EQ(Crc32c::compute(std::string("a")), 0xC1D04330u);
    EXPECT_EQ(Crc32c::compute(std::string("123456789")), 0xE3069283u);
    // RFC 3720 (iSCSI) appendix B.4
    EXPECT_EQ(Crc32c::compute(std::string(32, '\0')), 0x8A9136AAu);
    EXPECT_EQ(Crc32c::compute(std::string(32, '\xff')), 0x62A8AB43u);
    std::string up, down;
    for (int i = 0; i < 32; ++i) {
        up.push_back(char(i));
        down.push_back(char(31 - i));
    }
    EXPECT_EQ(Crc32c::compute(up), 0x46DD794Eu);
    EXPECT_EQ(Crc32c::compute(down), 0x113FDB5Cu);
    const unsigned char pdu[48] = {0x01, 0xc0, 0, 0,    0, 0, 0, 0,    0,    0, 0, 0, 0, 0, 0, 0, 0x14, 0, 0, 0, 0, 0, 0x04, 0,
                                   0,    0,    0, 0x14, 0, 0, 0, 0x18, 0x28, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0,    0};
    EXPECT_EQ(Crc32c::compute(pdu, sizeof pdu), 0xD9963A56u);
}

TEST(Crc32c, MaskedFormMatchesTfRecord) {
    // The 8 length bytes of a 24-byte record (the file_version record of every TensorBoard file)
    // carry masked CRC a3 7f 4b 22 in files written by TensorFlow.
    const unsigned char len24[8] = {24, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(Crc32c::masked(len24, 8), 0x224B7FA3u);
    EXPECT_EQ(Crc32c::mask(0), 0xA282EAD8u);
    const uint32_t c = 0xE3069283u;
    EXPECT_EQ(Crc32c::mask(c), uint32_t(((c >> 15) | (c << 17)) + 0xa282ead8u));
    std::mt19937 rng(7);
    for (int i = 0; i < 1000; ++i) {
        const uint32_t x = rng();
        EXPECT_EQ(Crc32c::unmask(Crc32c::mask(x)), x);
    }
}

TEST(Crc32c, SlicingMatchesBitwiseDefinitionAndExtends) {
    std::mt19937 rng(1234);
    std::string buf(300, '\0');
    for (auto& ch : buf) ch = char(rng() & 0xff);
    for (std::size_t off = 0; off < 8; ++off) {
        for (std::size_t len = 0; len + off <= buf.size(); len += (len < 40 ? 1 : 13)) {
            const std::string s = buf.substr(off, len);
            ASSERT_EQ(Crc32c::compute(buf.data() + off, len), bitwiseCrc32c(s)) << off << "+" << len;
            const std::size_t split = len / 3;
            EXPECT_EQ(Crc32c::extend(Crc32c::compute(s.substr(0, split)), s.data() + split, len - split), Crc32c::compute(s));
        }
    }
}
