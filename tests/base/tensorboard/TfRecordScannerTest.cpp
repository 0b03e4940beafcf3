// TfRecordScanner: records, torn records and corrupt bytes in a buffer, framed here
// independently (TensorBoardTestSupport's frame()).
#include <gtest/gtest.h>

#include "TensorBoardTestSupport.h"
#include "base/tensorboard/TfRecordScanner.h"

namespace streetgan::test::tensorboard {
namespace {

using R = TfRecordScanner::Result;

TEST(TfRecordScanner, SplitsRecordsAndWaitsForATornOne) {
    const std::string a = frame("first"), b = frame(std::string(300, 'x'));
    const std::string both = a + b;
    auto s = TfRecordScanner::next(both);
    ASSERT_EQ(s.result, R::Record);
    EXPECT_EQ(s.size, a.size());
    EXPECT_EQ(s.data, "first");
    s = TfRecordScanner::next(std::string_view(both).substr(a.size()));
    ASSERT_EQ(s.result, R::Record);
    EXPECT_EQ(s.data, std::string(300, 'x'));
    for (std::size_t cut = 0; cut < b.size(); ++cut) EXPECT_EQ(TfRecordScanner::next(b.substr(0, cut)).result, R::NeedMore) << cut;
}

TEST(TfRecordScanner, SkipsCorruptBytesToTheNextValidRecord) {
    const std::string a = frame("alpha"), b = frame("beta");
    std::string bad = a;
    bad[14] ^= 0x20;  // a data byte: the data CRC no longer matches
    auto s = TfRecordScanner::next(bad + b);
    ASSERT_EQ(s.result, R::Corrupt);
    EXPECT_EQ(s.why, "data CRC mismatch");
    EXPECT_EQ(s.size, a.size());  // skips exactly to the next record
    bad = a;
    bad[3] ^= 0x01;  // the length: its CRC no longer matches
    s = TfRecordScanner::next(bad + b);
    ASSERT_EQ(s.result, R::Corrupt);
    EXPECT_EQ(s.why, "length CRC mismatch");
    EXPECT_EQ(s.size, a.size());
    // Garbage with no record after it: skip all but the last 11 bytes (a header may be arriving).
    const std::string junk(100, '\x5a');
    s = TfRecordScanner::next(junk);
    ASSERT_EQ(s.result, R::Corrupt);
    EXPECT_EQ(s.size, junk.size() - 11);
}

}  // namespace
}  // namespace streetgan::test::tensorboard
