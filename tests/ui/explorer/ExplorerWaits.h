// Waiting on the explorer page in its GUI tests (ExplorerTest, TRangeTest): the worker renders in a
// child process, so a test waits for the page's signals, never for a fixed time. GUI thread only.
#pragma once

#include <QElapsedTimer>
#include <QImage>
#include <QSignalSpy>
#include <functional>

#include "explorer/ExplorerPage.h"

namespace streetgan::test {

/// Runs `action` and returns the image of the first frame `index` the page shows after it (a null
/// image after 30 s).
inline QImage frameAfter(ui::ExplorerPage* page, const std::function<void()>& action, int index) {
    QSignalSpy spy(page, &ui::ExplorerPage::frameShown);
    action();
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 30000) {
        for (const auto& args : std::as_const(spy))
            if (args.at(0).toInt() == index) return page->previewImage();
        spy.wait(50);
    }
    return {};
}

/// Opens the embedded demo walk afresh (keyframes seeds 2, 20, 28, 46; 12 frames per segment;
/// loop); false if it did not load within 30 s.
inline bool openDemo(ui::ExplorerPage* page) {
    QSignalSpy loaded(page, &ui::ExplorerPage::sessionLoaded);
    page->openDemo();
    return loaded.wait(30000) || loaded.size() > 0;
}

}  // namespace streetgan::test
