// The latent explorer's session as a model: base's LatentSession (docs/cli.md "Session file"; its
// unknown keys are kept in LatentSession::extra and written back unchanged), its undo history and
// the keyframe model (KeyframeModel) the keyframe list shows. Every edit is one SessionUndoCommand
// on undoStack(), so undo and redo restore the exact session; after every change (edit, undo,
// redo, reset) the keyframe model is updated and changed() is emitted.
//
// Edits do not validate: the page keeps what the user asked for and the explore worker (core's
// LatentSession::validate, the one validator) refuses a session out of range with a line naming
// the key; undo brings the walk back. The frame count is base's (LatentSession::frameCount).
//
// The app's own key "explorer_raw_dims" (docs/cli.md: "the app may write more") lists the z dimensions
// that have a slider, so a saved session reopens with the same sliders; "explorer_direction_names"
// holds the names the user gave PCA directions ({"3": "sky"}). Named directions learnt from labels
// are the session's own "named_directions" (render replays them).
//
// Saving writes the session as the app always wrote it (JsonText: Qt's indented JSON format, keys
// sorted): a session saved after open is byte-identical to one an earlier build saved.
//
// Thread contract: GUI thread.
#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/latent/LatentSession.h"

class QUndoStack;

namespace streetgan::ui {

class KeyframeModel;

class SessionModel : public QObject {
    Q_OBJECT
public:
    static constexpr const char* kRawDimsKey = "explorer_raw_dims";
    static constexpr const char* kDirectionNamesKey = "explorer_direction_names";

    explicit SessionModel(QObject* parent = nullptr);

    const LatentSession& session() const { return session_; }
    /// The session as its file holds it (LatentSession::toJson: every key, unknown ones included).
    const nlohmann::json& json() const { return json_; }
    /// Frames of the walk (LatentSession::frameCount, WalkRule's rule).
    int frameCount() const;
    QUndoStack* undoStack() const { return undo_; }
    KeyframeModel* keyframes() const { return keyframes_; }
    /// Edits since reset() or save().
    bool hasUnsavedChanges() const;

    /// A newly opened session: replaces the session, clears the history, marks it saved.
    void reset(const LatentSession& session);
    /// Writes the session file atomically and marks the session saved; throws the project's Error.
    void save(const QString& path);

    /// One undoable edit: `change` edits a copy of the session; nothing happens when it changes
    /// nothing. mergeKey >= 0 with `dragging` merges into the previous step of the same drag.
    bool edit(const QString& text, const std::function<void(LatentSession&)>& change, int mergeKey = -1, bool dragging = false);
    /// A slider drag starts: its edits merge into one step until the next drag or click.
    void startDrag() { ++dragSerial_; }

    // Keyframes: each one step (none when nothing changes). Rows out of range are ignored (false).
    void insertSeedKeyframe(int at, qint64 seed);
    bool moveKeyframe(int from, int to);
    bool duplicateKeyframe(int row);
    /// False for the last keyframe (a walk needs one).
    bool removeKeyframe(int row);
    /// An Easing name, or "" for the path's easing; false for another name.
    bool setSegmentEasing(int row, const QString& name);
    /// The t range of the segment that starts at `row` (nullopt: the path's range).
    bool setSegmentTRange(int row, std::optional<WalkRule::TRange> range);
    /// Keyframe `row` becomes the vector `z` with z[dim] = value (a seed keyframe becomes a z one).
    bool setKeyframeZ(int row, std::vector<double> z, int dim, double value, bool dragging);

    // Path and output (names as docs/cli.md's; false for an unknown name).
    bool setInterpolation(const QString& name);
    bool setEasing(const QString& name);
    void setFramesPerSegment(int frames);
    /// The path's t range (WalkRule.h): each segment's frames spread over [start, end].
    void setTRange(double start, double end);
    /// The reference project's walk (LatentSession::makeReferenceWalk) with these two seeds, as one
    /// step; false for a negative seed.
    bool makeReferenceWalk(qint64 seedFrom, qint64 seedTo);
    void setLoop(bool loop);
    void setSize(int pixels);
    bool setUpscale(const QString& name);
    /// frame_delay_ms = 1000 / fps, within 10..60000.
    void setTargetFps(double fps);
    /// The export dialog's options (size, delay, GIF and grid settings, upscale, frames per
    /// segment, loop) as one step.
    void setExportOptions(const LatentSession& chosen);

    // Sliders.
    void setTruncation(double psi, bool dragging);
    /// An amount of 0 removes the direction's edit.
    void setDirection(int index, double amount, bool dragging);
    /// Also drops the edits of directions >= k (the validator refuses them).
    void setComponents(int k);
    /// The z dimensions with a slider (explorer_raw_dims) that exist for a generator of `nz`.
    QList<int> rawDims(int nz) const;
    void addRawDimension(int dim);
    void removeRawDimension(int dim);
    /// The names given to PCA directions, by index.
    QHash<int, QString> directionNames() const;
    /// Names PCA direction `index` ("" removes its name); one step.
    void renameDirection(int index, const QString& name);

    // Named directions (session key named_directions), by their position in the list.
    /// Adds `directions` (their amounts as given) as one step; one with the name of a direction
    /// already there replaces its vector and keeps its amount. Returns how many were new.
    int addNamedDirections(const std::vector<NamedDirectionEdit>& directions);
    void setNamedAmount(int index, double amount, bool dragging);
    void renameNamedDirection(int index, const QString& name);
    void removeNamedDirection(int index);

signals:
    /// The session changed (an edit, undo, redo or reset).
    void changed();

private:
    void apply(const LatentSession& session);

    LatentSession session_;
    nlohmann::json json_;  ///< session_.toJson(), kept with it (every frame request sends it)
    QUndoStack* undo_;
    KeyframeModel* keyframes_;
    quint64 dragSerial_ = 0;
};

}  // namespace streetgan::ui
