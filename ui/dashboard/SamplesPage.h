// Every sample grid the run wrote (samples/step_N.png): a step slider, play as an animation,
// zoom (fit, 100–400 %), export. Images are loaded (or, for a remote run, downloaded through
// SftpClient) by the session's worker; stale answers (an older job id) are dropped. GUI thread.
#pragma once

#include <QCache>
#include <QImage>
#include <QPointer>
#include <QWidget>

class QLabel;
class QSlider;
class QComboBox;
class QPushButton;
class QScrollArea;
class QTimer;

namespace streetgan::ui {

class RunSession;

class SamplesPage : public QWidget {
    Q_OBJECT
public:
    explicit SamplesPage(QWidget* parent = nullptr);
    void setSession(RunSession* session);
    /// Shows grid `index` of the run's samples.
    void showIndex(int index);
    int count() const;
    int currentIndex() const;
    bool hasImage() const { return !current_.isNull(); }

signals:
    void imageShown(int index);

private:
    void refresh();
    void updatePixmap();
    void onImage(quint64 job, const QString& rel, const QImage& image);

    QPointer<RunSession> session_;
    QLabel* stepLabel_;
    QSlider* slider_;
    QPushButton* play_;
    QComboBox* zoom_;
    QScrollArea* scroll_;
    QLabel* image_;
    QTimer* playTimer_;
    QImage current_;
    QString currentPath_;
    quint64 job_ = 0;
    int pendingIndex_ = -1;
    QCache<QString, QImage> cache_{64};
};

}  // namespace streetgan::ui
