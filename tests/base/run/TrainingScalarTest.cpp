// The training scalars' table (base/run/TrainingScalar.h): keyed in order, one field each, every
// field a slot of the event bag; MetricsEvent's members by key; the tags a TensorBoard run fills
// them from; a scalar written only when measured round-trips whether absent, null or a number.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "base/run/EventFieldBag.h"
#include "base/run/Events.h"
#include "base/run/TrainingScalar.h"

using namespace streetgan;
using nlohmann::json;
using Key = TrainingScalar::Key;

TEST(TrainingScalar, TheTableIsKeyedInOrderWithOneFieldEachThatTheEventSchemaReads) {
    std::set<std::string> fields, tags;
    ASSERT_EQ(TrainingScalar::all().size(), TrainingScalar::kCount);
    for (std::size_t i = 0; i < TrainingScalar::kCount; ++i) {
        const TrainingScalar::Spec& s = TrainingScalar::all()[i];
        EXPECT_EQ(TrainingScalar::index(s.key), i) << s.field;
        EXPECT_TRUE(fields.insert(s.field).second) << "two scalars are written as " << s.field;
        EXPECT_NE(events::scalarFieldNamed(s.field), events::kNoField) << s.field << " is no field of the event bag";
        EXPECT_STRNE(s.label, "") << s.field;
        EXPECT_STRNE(TrainingScalar::groupTitle(s.group), "") << s.field;
        if (s.referenceTag) EXPECT_TRUE(tags.insert(s.referenceTag).second) << s.referenceTag;
    }
    for (const std::string& t : tags) EXPECT_EQ(fields.count(t), 0U) << t << " is a field and another scalar's reference tag";
    EXPECT_EQ(TrainingScalar::of(Key::ImgPerS).field, std::string(EventField::kImgPerS));
    EXPECT_GE(TrainingScalar::stepMeanCount(), 5U);  // the losses and D's three outputs
}

TEST(TrainingScalar, MetricsEventMembersByKey) {
    MetricsEvent e;
    e.lossD = 1.5;
    e.dataWait = 0.25;
    EXPECT_EQ(e[Key::LossD], 1.5);
    EXPECT_EQ(e[Key::DataWait], 0.25);
    e[Key::DGz2] = 0.125;
    EXPECT_EQ(e.dGz2, 0.125);
    MetricsEvent none;
    EXPECT_FALSE(none.hasScalar());
    none[Key::Lr] = 2e-4;
    EXPECT_TRUE(none.hasScalar());
    // every key reads the member the schema writes under its field
    for (const TrainingScalar::Spec& s : TrainingScalar::all()) {
        MetricsEvent m;
        m[s.key] = 3.0 + static_cast<double>(TrainingScalar::index(s.key));
        EXPECT_EQ(toJson(m).at(s.field), m[s.key]) << s.field;
        EXPECT_EQ(eventFromJson(toJson(m)).index(), Event(MetricsEvent{}).index());
        EXPECT_EQ(std::get<MetricsEvent>(eventFromJson(toJson(m)))[s.key], m[s.key]) << s.field;
    }
}

TEST(TrainingScalar, TensorBoardTagsFillTheirScalar) {
    EXPECT_EQ(TrainingScalar::forTag("D_loss"), Key::LossD);
    EXPECT_EQ(TrainingScalar::forTag("G_loss"), Key::LossG);
    EXPECT_EQ(TrainingScalar::forTag("loss_g"), Key::LossG);
    EXPECT_EQ(TrainingScalar::forTag("img_per_s"), Key::ImgPerS);
    EXPECT_FALSE(TrainingScalar::forTag("metrics/swd"));
    EXPECT_FALSE(TrainingScalar::forTag(""));
}

TEST(TrainingScalar, AlwaysWrittenScalarsAreNullWhenUnknownAndTheOthersOnlyWhenMeasured) {
    const json empty = toJson(MetricsEvent{});
    for (const TrainingScalar::Spec& s : TrainingScalar::all()) {
        if (s.written == TrainingScalar::Written::Always) {
            ASSERT_TRUE(empty.contains(s.field)) << s.field;
            EXPECT_TRUE(empty.at(s.field).is_null()) << s.field;
            continue;
        }
        EXPECT_FALSE(empty.contains(s.field)) << s.field << " is written though not measured";
        // a line that has it as null keeps it so; as a number reads it
        json line = empty;
        line[s.field] = nullptr;
        EventReader reader;
        ParsedEvent parsed = reader.read(line.dump());
        ASSERT_TRUE(parsed.ok());
        EXPECT_TRUE(std::isnan(std::get<MetricsEvent>(parsed.event)[s.key]));
        EXPECT_EQ(toJson(parsed.event), line);
        line[s.field] = 0.5;
        parsed = reader.read(line.dump());
        ASSERT_TRUE(parsed.ok());
        EXPECT_EQ(std::get<MetricsEvent>(parsed.event)[s.key], 0.5);
        EXPECT_EQ(toJson(parsed.event).at(s.field), 0.5);
    }
}
