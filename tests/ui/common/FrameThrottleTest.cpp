// FrameThrottle: the first request runs at once, requests within the interval run once at its end
// (never lost, never more than once), flush() runs a waiting request now.
#include <QTest>

#include "common/FrameThrottle.h"

using streetgan::ui::FrameThrottle;

class FrameThrottleTest : public QObject {
    Q_OBJECT
private slots:
    void firstAtOnceThenOnceAtTheEnd() {
        int runs = 0;
        FrameThrottle t(200, [&] { ++runs; });
        t.request();
        QCOMPARE(runs, 1);  // nothing ran lately: at once
        QElapsedTimer since;
        since.start();
        for (int i = 0; i < 50; ++i) t.request();
        QVERIFY(t.pending());
        // Within the interval nothing more ran (the loop took far less than 200 ms on any machine
        // where it did: checked, not assumed).
        if (since.elapsed() < 200) QCOMPARE(runs, 1);
        QTRY_COMPARE_WITH_TIMEOUT(runs, 2, 10000);  // the 50 requests: one trailing run
        QVERIFY(!t.pending());
        QVERIFY(since.elapsed() >= 150);  // at the interval's end, not at once
    }

    void flushRunsAWaitingRequestNow() {
        int runs = 0;
        FrameThrottle t(60000, [&] { ++runs; });
        t.request();
        t.request();
        QCOMPARE(runs, 1);
        t.flush();
        QCOMPARE(runs, 2);
        QVERIFY(!t.pending());
        t.flush();  // nothing waiting: nothing run
        QCOMPARE(runs, 2);
    }
};

QTEST_GUILESS_MAIN(FrameThrottleTest)
#include "FrameThrottleTest.moc"
