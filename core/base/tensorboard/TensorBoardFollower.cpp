#include "base/tensorboard/TensorBoardFollower.h"

#include <cmath>
#include <utility>

#include "base/tensorboard/TensorBoardRun.h"
#include "base/tensorboard/TfRecordReader.h"
#include "base/tensorboard/TfRecordScanner.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kReadBytes = 1 << 20;  // one read of an event file

}  // namespace

// The tags that fill a training scalar: the reference project's (SummaryWriter) and our own
// (TrainingScalar's table).
double* TensorBoardFollower::fieldOf(MetricsEvent& m, const std::string& tag) {
    const auto key = TrainingScalar::forTag(tag);
    return key ? &m[*key] : nullptr;
}

TensorBoardFollower::TensorBoardFollower(EventFileSource& files, std::string runDir, uint64_t fromOffset, std::chrono::milliseconds hold)
    : files_(files), runDir_(std::move(runDir)), hold_(hold) {
    refreshFiles();
    seek(fromOffset);
    consumed_ = fromOffset;
}

void TensorBoardFollower::refreshFiles() {
    const auto entries = TensorBoardRun::eventFiles(files_.list(runDir_));
    if (list_.empty()) {
        for (const auto& e : entries) list_.push_back(File{e.name, e.size});
        return;
    }
    // Files read before the current one are done with; a new file that would sort before the
    // current one (a clock set back) is not read, as TensorBoard does not.
    list_.resize(cur_ + 1);
    for (const auto& e : entries) {
        if (e.name == list_[cur_].name)
            list_[cur_].size = e.size;
        else if (TensorBoardRun::readsBefore(list_[cur_].name, e.name))
            list_.push_back(File{e.name, e.size});
    }
}

void TensorBoardFollower::seek(uint64_t offset) {
    uint64_t base = 0;
    for (std::size_t k = 0; k < list_.size(); ++k) {
        const File& f = list_[k];
        const bool last = k + 1 == list_.size();
        if (offset < base + f.size || (last && offset == base + f.size)) {
            cur_ = k;
            base_ = base;
            pos_ = offset - base;
            if (pos_ > 0 && pos_ < f.size) {  // must be a record's start (a file starts with one)
                const std::string head = files_.read(runDir_ + "/" + f.name, pos_, 12);
                if (TfRecordScanner::next(head).result == TfRecordScanner::Result::Corrupt)
                    throw ConfigError("offset " + std::to_string(offset) + " is not the start of a record of the TensorBoard run '" + runDir_ +
                                      "': resume from 0 or from the \"end\" of the last event received");
            }
            return;
        }
        base += f.size;
    }
    if (offset != 0)
        throw ConfigError("offset " + std::to_string(offset) + " is past the end of the TensorBoard run '" + runDir_ + "' (" + std::to_string(base) +
                          " bytes): resume from 0 or from the \"end\" of the last event received");
}

bool TensorBoardFollower::poll(std::vector<Item>& out, std::size_t maxBytes) {
    // A new file matters once the current one stops growing (a restart); while it grows, the
    // listing (round trips over SFTP) waits.
    if (listDue_) refreshFiles();
    listDue_ = false;
    bool readAny = false;
    std::size_t budget = maxBytes;
    while (cur_ < list_.size() && budget > 0) {
        const std::string path = runDir_ + "/" + list_[cur_].name;
        std::string chunk;
        const std::size_t asked = std::min(budget, kReadBytes);
        try {
            chunk = files_.read(path, pos_ + buf_.size(), asked);
        } catch (const IoError&) {
            // vanished meanwhile: as if it held no more
        }
        if (chunk.empty()) {
            if (cur_ + 1 >= list_.size()) {
                listDue_ = true;  // nothing new here: look for a newer file next time
                break;
            }
            // A newer file exists and this one holds no more: it is left for good.
            if (!buf_.empty()) {
                const uint64_t end = base_ + pos_ + buf_.size();
                bad("a torn record at the end of the file (a newer event file follows)", pos_, end, out);
                consumed_ = end;
            }
            base_ += pos_ + buf_.size();
            ++cur_;
            pos_ = 0;
            buf_.clear();
            plugins_.clear();
            reportedBad_ = false;
            if (!group_.open) consumed_ = base_;
            continue;
        }
        readAny = true;
        budget -= std::min(budget, chunk.size());
        buf_ += chunk;
        consume(out);
        // The last file held no more when read: caught up. (Reading again at once would chase a
        // writer that appends all the time and hand nothing out meanwhile; over SFTP a read
        // costs round trips.)
        if (chunk.size() < asked && cur_ + 1 >= list_.size()) break;
    }
    if (!readAny && group_.open && Clock::now() - group_.touched >= hold_) flush(out);
    // More is waiting only when the budget ran out; else the reading caught up with the files
    // (a writer appending all the time keeps adding, but the backlog was read: attach goes live).
    return budget == 0;
}

void TensorBoardFollower::consume(std::vector<Item>& out) {
    std::size_t at = 0;
    for (;;) {
        const TfRecordScanner::Step step = TfRecordScanner::next(std::string_view(buf_).substr(at));
        if (step.result == TfRecordScanner::Result::NeedMore) break;
        const uint64_t start = base_ + pos_ + at;
        if (step.result == TfRecordScanner::Result::Corrupt)
            bad("a corrupt record (" + step.why + ")", pos_ + at, start + step.size, out);
        else
            record(step.data, start, start + step.size, out);
        at += step.size;
        consumed_ = start + step.size;
    }
    buf_.erase(0, at);
    pos_ += at;
}

void TensorBoardFollower::record(std::string_view data, uint64_t start, uint64_t end, std::vector<Item>& out) {
    ++counts_.records;
    TfRecordReader::Event ev;
    try {
        ev = TfRecordReader::parseEvent(data);
    } catch (const IoError& e) {
        bad(std::string("a malformed record (") + e.what() + ")", start - base_, end, out);
        return;
    }
    if (std::isfinite(ev.wallTime) && ev.wallTime > 0) lastWall_ = ev.wallTime;
    bool image = false;
    for (const auto& v : ev.values) {
        if (!v.plugin.empty()) plugins_[v.tag] = v.plugin;  // TF2 writers state it on a tag's first value only
        if (!v.pluginContent.empty()) {                     // the hparams plugin's data (TfRecordReader keeps no other's)
            try {
                hparams_.push_back(TfRecordReader::parseHParams(v.pluginContent));
            } catch (const IoError& e) {
                TfRecordReader::HParams h;
                h.problems.push_back("'" + runDir_ + "/" + list_[cur_].name + "' at offset " + std::to_string(start - base_) + ": " + e.what());
                hparams_.push_back(std::move(h));
            }
            continue;
        }
        std::optional<double> scalar;
        if (v.simpleValue) {
            scalar = *v.simpleValue;
        } else if (v.tensorScalar) {
            const auto p = plugins_.find(v.tag);
            if (p != plugins_.end() && p->second == "scalars") scalar = v.tensorScalar;
        }
        if (scalar) {
            ++counts_.scalars;
            addScalar(v.tag, *scalar, ev.wallTime, ev.step, start, end, out);
        } else if (v.image && !v.image->encoded.empty()) {
            image = true;
        } else if (v.kind == TfRecordReader::ValueKind::Histogram) {
            ++counts_.histograms;
        } else if (v.kind != TfRecordReader::ValueKind::None) {
            ++counts_.other;
        }
    }
    if (image) {  // one sample per record: TensorBoardRun::readImage gives its first image
        ++counts_.images;
        flush(out);
        SampleEvent s;
        s.t = ev.wallTime;
        s.step = ev.step;
        s.path = TensorBoardRun::imagePath(list_[cur_].name, start - base_);
        out.push_back(Item{start, end, std::move(s)});
    }
}

void TensorBoardFollower::addScalar(const std::string& tag, double value, double wallTime, int64_t step, uint64_t start, uint64_t end, std::vector<Item>& out) {
    if (group_.open && group_.step != step) flush(out);
    if (!group_.open) {
        group_ = Group{};
        group_.open = true;
        group_.start = start;
        group_.step = step;
    }
    group_.end = end;
    group_.t = wallTime;
    group_.touched = Clock::now();
    if (double* field = fieldOf(group_.metrics, tag)) {
        *field = value;
        if (field == &group_.metrics.imgPerS) tagThroughput_ = true;
    } else {
        group_.metrics.scalars[tag] = value;
    }
}

void TensorBoardFollower::drain(const std::function<void(const Item&)>& each) {
    std::vector<Item> items;
    for (bool more = true; more;) {
        items.clear();
        more = poll(items);
        if (!more) flush(items);
        for (const Item& item : items) each(item);
    }
}

void TensorBoardFollower::flush(std::vector<Item>& out) {
    if (!group_.open) return;
    group_.open = false;
    MetricsEvent m = std::move(group_.metrics);
    m.t = group_.t;
    m.step = group_.step;
    // Throughput from consecutive steps of the losses (the reference's step counts images).
    if (!std::isnan(m.lossD) || !std::isnan(m.lossG)) {
        if (!tagThroughput_ && lastMetrics_ && group_.step > lastMetrics_->first && m.t > lastMetrics_->second)
            m.imgPerS = double(group_.step - lastMetrics_->first) / (m.t - lastMetrics_->second);
        lastMetrics_ = std::make_pair(group_.step, m.t);
    }
    out.push_back(Item{group_.start, group_.end, std::move(m)});
}

void TensorBoardFollower::bad(const std::string& what, uint64_t fileOffset, uint64_t end, std::vector<Item>& out) {
    ++counts_.corrupt;
    flush(out);
    if (reportedBad_) return;  // once per file; the rest are counted
    reportedBad_ = true;
    ErrorEvent e;
    e.t = lastWall_;
    e.message = "TensorBoard event file '" + runDir_ + "/" + list_[cur_].name + "' has " + what + " at offset " + std::to_string(fileOffset) +
                ": skipped it and read on (later bad records of this file are only counted)";
    out.push_back(Item{base_ + fileOffset, end, std::move(e)});
}

}  // namespace streetgan
