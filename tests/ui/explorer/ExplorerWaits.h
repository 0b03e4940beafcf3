// The explorer page in its GUI tests (ExplorerTest, TRangeTest): set up in an isolated
// environment, and waited on: the worker renders in a child process, so a test waits for the
// page's signals, never for a fixed time. GUI thread only.
#pragma once

#include <QElapsedTimer>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <functional>

#include "explorer/ExplorerPage.h"
#include "support/UiTestSupport.h"

namespace streetgan::test {

/// An explorer page, shown at 1280x780, whose settings, data (DemoCheckpoint's copy) and cache
/// (the worker's PCA cache) live in `tmp`, rendering with the build's trainer. The caller owns it.
inline ui::ExplorerPage* openExplorerPage(const QTemporaryDir& tmp) {
    isolateSettings(tmp.filePath("settings"));
    qputenv("STREETGAN_TRAINER", STREETGAN_TRAINER);
    qputenv("XDG_DATA_HOME", tmp.filePath("data").toLocal8Bit());
    qputenv("XDG_CACHE_HOME", tmp.filePath("cache").toLocal8Bit());
    auto* page = new ui::ExplorerPage;
    page->resize(1280, 780);
    page->show();
    return page;
}

/// Runs `action` and returns the image of the first frame `index` the page shows after it (a null
/// image after kWaitMs).
inline QImage frameAfter(ui::ExplorerPage* page, const std::function<void()>& action, int index) {
    QSignalSpy spy(page, &ui::ExplorerPage::frameShown);
    action();
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < kWaitMs) {
        for (const auto& args : std::as_const(spy))
            if (args.at(0).toInt() == index) return page->previewImage();
        spy.wait(50);
    }
    return {};
}

/// Opens the embedded demo walk afresh (keyframes seeds 2, 20, 28, 46; 12 frames per segment;
/// loop); false if it did not load within kWaitMs.
inline bool openDemo(ui::ExplorerPage* page) {
    QSignalSpy loaded(page, &ui::ExplorerPage::sessionLoaded);
    page->openDemo();
    return loaded.wait(kWaitMs) || loaded.size() > 0;
}

}  // namespace streetgan::test
