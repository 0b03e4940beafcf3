// The quality metrics' registry (base/run/QualityMetric.h): names once each, every figure a field
// of the metric event, the registry's names are what --metrics accepts, and unknown or empty lists
// are one line naming the known ones.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "base/run/Events.h"
#include "base/run/QualityMetric.h"
#include "base/run/TrainConfig.h"
#include "base/run/TrainOption.h"
#include "base/util/Errors.h"

using namespace streetgan;

TEST(QualityMetric, EachMetricOnceWithFiguresTheMetricEventCarries) {
    std::set<std::string> names, figures;
    for (const QualityMetric::Spec& m : QualityMetric::all()) {
        EXPECT_TRUE(names.insert(m.name).second) << m.name;
        EXPECT_EQ(QualityMetric::find(m.name), &m);
        ASSERT_FALSE(m.figures.empty()) << m.name;
        // each figure, and the reason the metric is unavailable, reads and writes back through the
        // metric event (a named member, or its extra)
        nlohmann::json line = {{"kind", "metric"}, {"step", 10}, {std::string(m.name) + "_unavailable", "why"}};
        for (const char* f : m.figures) {
            EXPECT_TRUE(figures.insert(f).second) << f << " is two metrics' figure";
            line[f] = 0.25;
        }
        EXPECT_EQ(toJson(eventFromJson(line)), line) << m.name;
        EXPECT_EQ(eventFromJson(line).index(), Event(MetricEvent{}).index());
    }
    EXPECT_EQ(QualityMetric::find("inception_score"), nullptr);
    EXPECT_EQ(std::string(QualityMetric::namesCsv()), "fid,kid,pr,dc,vendi,swd");
    EXPECT_EQ(QualityMetric::namesText(), "fid, kid, pr, dc, vendi or swd");
    EXPECT_TRUE(QualityMetric::anyNeedsFeatures({"swd", "kid"}));
    EXPECT_FALSE(QualityMetric::anyNeedsFeatures({"swd"}));
}

TEST(QualityMetric, WhatTheOptionsAcceptIsTheRegistry) {
    EXPECT_EQ(TrainOption::choices(*TrainOption::find("metrics")).size(), QualityMetric::all().size());
    TrainConfig c;
    c.steps = 1;
    c.metrics.clear();
    for (const QualityMetric::Spec& m : QualityMetric::all()) c.metrics.emplace_back(m.name);
    EXPECT_NO_THROW(c.validate());
    for (const auto& m : TrainConfig().metrics) EXPECT_NE(QualityMetric::find(m), nullptr) << m;  // the defaults are registered ones
    try {
        QualityMetric::check({"swd", "is"});
        ADD_FAILURE() << "an unknown metric passed";
    } catch (const ConfigError& e) {
        EXPECT_EQ(std::string(e.what()), "metric 'is' is unknown: use fid, kid, pr, dc, vendi or swd");
    }
    EXPECT_THROW(QualityMetric::check({}), ConfigError);
}
