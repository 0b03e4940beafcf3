#include "table/BestCheckpointDownload.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QThread>

#include "common/WorkerThreads.h"
#include "remote/RemoteCheckpointFetcher.h"
#include "remote/RemoteHost.h"

namespace streetgan::ui {

BestCheckpointDownload::BestCheckpointDownload(QWidget* parent) : QWidget(parent), label_(new QLabel), bar_(new QProgressBar) {
    setObjectName("bestCheckpointDownload");
    bar_->setObjectName("bestCheckpointProgress");
    bar_->setTextVisible(true);
    bar_->setMaximumWidth(240);
    auto* cancelButton = new QPushButton(tr("Cancel"));
    cancelButton->setObjectName("bestCheckpointCancel");
    connect(cancelButton, &QPushButton::clicked, this, &BestCheckpointDownload::cancel);
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(label_, 1);
    row->addWidget(bar_);
    row->addWidget(cancelButton);
    setVisible(false);
}

BestCheckpointDownload::~BestCheckpointDownload() {
    if (fetcher_) fetcher_->cancel();
    finish();
}

QString BestCheckpointDownload::text() const { return label_->text(); }

void BestCheckpointDownload::start(RemoteHost* host, const QString& run, const QString& remotePath) {
    if (fetcher_) {
        fetcher_->cancel();
        finish();
    }
    const quint64 job = ++job_;
    run_ = run;
    file_ = QFileInfo(remotePath).fileName();
    host_ = host->label();
    thread_ = new QThread(this);
    fetcher_ = new RemoteCheckpointFetcher(host->sshOptions());
    fetcher_->moveToThread(thread_);
    connect(thread_, &QThread::finished, fetcher_, &QObject::deleteLater);
    connect(fetcher_, &RemoteCheckpointFetcher::progress, this, [this](quint64 j, qint64 done, qint64 total) {
        if (j != job_) return;
        // Per mille of the size: a checkpoint of several GB overflows a progress bar's int in bytes.
        bar_->setRange(0, total > 0 ? 1000 : 0);
        if (total > 0) bar_->setValue(static_cast<int>(1000 * done / total));
        const QLocale l;
        label_->setText(
            tr("%1: downloading %2 from %3, %4 of %5")
                .arg(run_, file_, host_, l.formattedDataSize(done, 1, QLocale::DataSizeSIFormat), l.formattedDataSize(total, 1, QLocale::DataSizeSIFormat)));
    });
    connect(fetcher_, &RemoteCheckpointFetcher::fetched, this, [this](quint64 j, const QString&, const QString& local) {
        if (j != job_) return;
        const QString run = run_;
        finish();
        emit fetched(run, local);
    });
    connect(fetcher_, &RemoteCheckpointFetcher::failed, this, [this](quint64 j, const QString& m) {
        if (j != job_) return;
        const QString run = run_;
        finish();
        emit failed(tr("%1's best checkpoint: %2").arg(run, m.simplified()));
    });
    label_->setText(tr("%1: connecting to %2 for %3…").arg(run_, host_, file_));
    bar_->setRange(0, 0);  // busy until the first progress
    setVisible(true);
    thread_->start();
    QMetaObject::invokeMethod(fetcher_, [f = fetcher_, job, remotePath] { f->fetch(job, remotePath); });
}

void BestCheckpointDownload::cancel() {
    if (!fetcher_) return;
    // Answered now, not when the worker notices: it may still be connecting (up to SSH's timeout).
    // It stops at its next chunk and keeps the .part, which the next download continues.
    fetcher_->cancel();
    const QString run = run_, file = file_;
    finish();
    emit failed(tr("%1's best checkpoint: the download of %2 was cancelled; what came is kept, and the next click continues it.").arg(run, file));
}

void BestCheckpointDownload::finish() {
    if (thread_) WorkerThreads::quitWithoutBlocking(thread_);  // deletes the fetcher, with its session
    thread_ = nullptr;
    fetcher_ = nullptr;
    ++job_;  // anything still queued from it is dropped
    setVisible(false);
}

}  // namespace streetgan::ui
