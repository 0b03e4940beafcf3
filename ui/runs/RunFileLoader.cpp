#include "runs/RunFileLoader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QFileInfo>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardFollower.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "events/EventBuffer.h"
#include "events/EventLineParser.h"

namespace streetgan::ui {

void RunFileLoader::load(quint64 jobId, const QString& eventsPath) {
    QElapsedTimer timer;
    timer.start();
    const QByteArray path = eventsPath.toLocal8Bit();
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const QString runDir = QFileInfo(eventsPath).path();
        if (errno == ENOENT && TensorBoardRun::isRun(runDir.toStdString())) {
            loadTensorBoard(jobId, runDir);
            return;
        }
        if (errno == ENOENT) {
            emit finished(jobId, 0, 0, 0);
            return;
        }
        emit failed(jobId, tr("Cannot read %1: %2").arg(eventsPath, QString::fromLocal8Bit(std::strerror(errno))));
        return;
    }
    struct stat st {};
    ::fstat(fd, &st);
    const qint64 total = st.st_size;
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    EventLineParser parser;
    std::vector<char> buf(8 << 20);
    size_t have = 0;
    int64_t fileOffset = 0;  // offset of buf[0]
    int64_t lines = 0;
    EventBatch batch;
    QElapsedTimer sinceFlush;
    sinceFlush.start();
    auto flush = [&]() {
        lines += batch.lines;
        buffer_->append(std::move(batch));
        batch = EventBatch{};
        sinceFlush.restart();
    };
    while (!cancel_.load()) {
        if (have == buf.size()) buf.resize(buf.size() * 2);  // a line longer than the buffer
        const ssize_t n = ::read(fd, buf.data() + have, buf.size() - have);
        if (n < 0) {
            if (errno == EINTR) continue;
            ::close(fd);
            emit failed(jobId, tr("Cannot read %1: %2").arg(eventsPath, QString::fromLocal8Bit(std::strerror(errno))));
            return;
        }
        if (n == 0) break;
        have += static_cast<size_t>(n);
        // Parse in slices so that the first rows reach the plots quickly.
        size_t done = 0;
        while (done < have) {
            const size_t slice = std::min<size_t>(have - done, 1 << 20);
            const size_t used = parser.parseEventChunk(std::string_view(buf.data() + done, slice), fileOffset + static_cast<int64_t>(done), batch);
            if (used == 0) {
                if (slice == have - done) break;  // incomplete last line: read more
                // a line longer than 1 MB: parse the rest in one go
                const size_t u2 = parser.parseEventChunk(std::string_view(buf.data() + done, have - done), fileOffset + static_cast<int64_t>(done), batch);
                if (u2 == 0) break;
                done += u2;
                continue;
            }
            done += used;
            if (batch.metrics.size() >= 65536 || sinceFlush.elapsed() >= 40) flush();
        }
        std::memmove(buf.data(), buf.data() + done, have - done);
        fileOffset += static_cast<int64_t>(done);
        have -= done;
        emit progress(jobId, fileOffset, total);
    }
    ::close(fd);
    flush();
    emit finished(jobId, fileOffset, lines, static_cast<double>(timer.nsecsElapsed()) / 1e9);
}

void RunFileLoader::loadTensorBoard(quint64 jobId, const QString& runDir) {
    QElapsedTimer timer;
    timer.start();
    try {
        LocalEventFiles files;
        // The whole run is read here: a step is handed out when the next one starts, and the
        // last one at the end (flush), so none is cut in two.
        TensorBoardFollower follower(files, runDir.toStdString(), 0, std::chrono::hours(24));
        EventLineParser parser;
        EventBatch batch;
        std::vector<TensorBoardFollower::Item> items;
        int64_t lines = 0;
        QElapsedTimer sinceFlush;
        sinceFlush.start();
        auto flush = [&]() {
            lines += batch.lines;
            batch.endOffset = static_cast<int64_t>(follower.offset());
            buffer_->append(std::move(batch));
            batch = EventBatch{};
            sinceFlush.restart();
        };
        for (bool more = true; more && !cancel_.load();) {
            items.clear();
            more = follower.poll(items);
            if (!more) follower.flush(items);
            for (const auto& item : items) parser.add(item.event, batch);
            if (batch.metrics.size() >= 65536 || sinceFlush.elapsed() >= 40) flush();
        }
        flush();
        emit finished(jobId, static_cast<qint64>(follower.offset()), lines, static_cast<double>(timer.nsecsElapsed()) / 1e9);
    } catch (const std::exception& e) {
        emit failed(jobId, tr("Cannot read the TensorBoard run %1: %2").arg(runDir, QString::fromStdString(e.what())));
    }
}

}  // namespace streetgan::ui
