#include "ml/export/Mp4Writer.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>

#include <ATen/ATen.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include "base/util/Errors.h"
#include "ml/export/ExportWriter.h"

namespace streetgan {
namespace {

std::string avText(int err) {
    char buf[AV_ERROR_MAX_STRING_SIZE] = {0};
    av_strerror(err, buf, sizeof buf);
    return buf;
}

// Everything one encode owns; freed in reverse order whatever happens.
struct Encode {
    AVFormatContext* fmt = nullptr;
    AVCodecContext* ctx = nullptr;
    SwsContext* sws = nullptr;
    AVFrame* frame = nullptr;
    AVPacket* pkt = nullptr;
    ~Encode() {
        av_packet_free(&pkt);
        av_frame_free(&frame);
        sws_freeContext(sws);
        avcodec_free_context(&ctx);
        if (fmt) {
            if (fmt->pb) avio_closep(&fmt->pb);
            avformat_free_context(fmt);
        }
    }
};

}  // namespace

std::string Mp4Writer::defaultEncoder() {
    if (avcodec_find_encoder_by_name("libx264")) return "libx264";
    return "mpeg4";
}

Mp4Writer::Mp4Writer(Mp4Options options) : options_(std::move(options)) {
    // FFmpeg logs every encode's statistics to stderr at its default level; core never prints, so
    // only FFmpeg's own errors stay visible (the level is process-wide; set once).
    static std::once_flag quiet;
    std::call_once(quiet, [] {
        if (av_log_get_level() > AV_LOG_ERROR) av_log_set_level(AV_LOG_ERROR);
    });
    if (options_.frameDelayMs < 1 || options_.frameDelayMs > 60000)
        throw ConfigError("MP4 options: frame delay must be within 1..60000 ms (got " + std::to_string(options_.frameDelayMs) + ")");
    if (options_.crf < 0 || options_.crf > 51) throw ConfigError("MP4 options: crf must be within 0..51 (got " + std::to_string(options_.crf) + ")");
    encoder_ = options_.encoder.empty() ? defaultEncoder() : options_.encoder;
    if (!avcodec_find_encoder_by_name(encoder_.c_str()))
        throw ConfigError("MP4 options: this FFmpeg (libavcodec) has no encoder '" + encoder_ + "'; use libx264 or mpeg4");
}

void Mp4Writer::write(const at::Tensor& framesHwc, const std::string& path, const FrameProgress& progress, const std::atomic<bool>* cancel) const {
    if (!framesHwc.defined() || framesHwc.dim() != 4 || framesHwc.size(3) != 3 || framesHwc.scalar_type() != at::kByte || framesHwc.size(0) < 1 ||
        !framesHwc.device().is_cpu())
        throw DataError("MP4 encoder: expected uint8 frames (N, H, W, 3) on the CPU");
    const int64_t n = framesHwc.size(0);
    const int h = static_cast<int>(framesHwc.size(1)), w = static_cast<int>(framesHwc.size(2));
    if (w % 2 || h % 2 || w < 2 || h < 2)
        throw DataError("MP4 encoder: frames are " + std::to_string(w) + "x" + std::to_string(h) + " but yuv420p video needs even sizes; choose an even size");
    auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };

    namespace fs = std::filesystem;
    fs::path target(path);
    const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    std::string tmp = (parent / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) throw IoError("MP4 encoder: cannot write '" + path + "': " + std::strerror(errno));
    ::close(fd);
    try {
        Encode e;
        const AVCodec* codec = avcodec_find_encoder_by_name(encoder_.c_str());
        int rc = avformat_alloc_output_context2(&e.fmt, nullptr, "mp4", tmp.c_str());
        if (rc < 0 || !e.fmt) throw IoError("MP4 encoder: FFmpeg has no mp4 muxer: " + avText(rc));
        AVStream* stream = avformat_new_stream(e.fmt, nullptr);
        e.ctx = avcodec_alloc_context3(codec);
        if (!stream || !e.ctx) throw IoError("MP4 encoder: out of memory");
        e.ctx->width = w;
        e.ctx->height = h;
        e.ctx->pix_fmt = AV_PIX_FMT_YUV420P;
        int num = 0, den = 0;
        av_reduce(&num, &den, options_.frameDelayMs, 1000, 65535);
        e.ctx->time_base = AVRational{num, den};
        e.ctx->framerate = AVRational{den, num};
        e.ctx->gop_size = 25;
        if (e.fmt->oformat->flags & AVFMT_GLOBALHEADER) e.ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
        AVDictionary* opts = nullptr;
        if (encoder_ == "libx264") {
            av_dict_set(&opts, "preset", "medium", 0);
            av_dict_set(&opts, "crf", std::to_string(options_.crf).c_str(), 0);
        } else {
            e.ctx->flags |= AV_CODEC_FLAG_QSCALE;
            e.ctx->global_quality = FF_QP2LAMBDA * 2;
            e.ctx->bit_rate = 0;
        }
        rc = avcodec_open2(e.ctx, codec, &opts);
        av_dict_free(&opts);
        if (rc < 0)
            throw IoError("MP4 encoder: cannot open the " + encoder_ + " encoder for " + std::to_string(w) + "x" + std::to_string(h) + ": " + avText(rc));
        if ((rc = avcodec_parameters_from_context(stream->codecpar, e.ctx)) < 0) throw IoError("MP4 encoder: " + avText(rc));
        stream->time_base = e.ctx->time_base;
        stream->avg_frame_rate = e.ctx->framerate;
        if ((rc = avio_open(&e.fmt->pb, tmp.c_str(), AVIO_FLAG_WRITE)) < 0) throw IoError("MP4 encoder: cannot write '" + path + "': " + avText(rc));
        AVDictionary* muxOpts = nullptr;
        av_dict_set(&muxOpts, "movflags", "+faststart", 0);
        rc = avformat_write_header(e.fmt, &muxOpts);
        av_dict_free(&muxOpts);
        if (rc < 0) throw IoError("MP4 encoder: cannot write the header of '" + path + "': " + avText(rc));

        e.sws =
            sws_getContext(w, h, AV_PIX_FMT_RGB24, w, h, AV_PIX_FMT_YUV420P, SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nullptr, nullptr, nullptr);
        e.frame = av_frame_alloc();
        e.pkt = av_packet_alloc();
        if (!e.sws || !e.frame || !e.pkt) throw IoError("MP4 encoder: out of memory");
        e.frame->format = AV_PIX_FMT_YUV420P;
        e.frame->width = w;
        e.frame->height = h;
        if ((rc = av_frame_get_buffer(e.frame, 0)) < 0) throw IoError("MP4 encoder: " + avText(rc));

        auto drain = [&](bool flushing) {
            for (;;) {
                int r = avcodec_receive_packet(e.ctx, e.pkt);
                if (r == AVERROR(EAGAIN) || (flushing && r == AVERROR_EOF)) return;
                if (r < 0) throw IoError("MP4 encoder: encoding failed: " + avText(r));
                av_packet_rescale_ts(e.pkt, e.ctx->time_base, stream->time_base);
                e.pkt->stream_index = stream->index;
                r = av_interleaved_write_frame(e.fmt, e.pkt);
                if (r < 0) throw IoError("MP4 encoder: cannot write '" + path + "': " + avText(r));
            }
        };
        const at::Tensor src = framesHwc.contiguous();
        for (int64_t i = 0; i < n; ++i) {
            if (cancelled()) throw RenderCancelled("MP4 export was cancelled");
            if ((rc = av_frame_make_writable(e.frame)) < 0) throw IoError("MP4 encoder: " + avText(rc));
            const uint8_t* srcData[1] = {src[i].data_ptr<uint8_t>()};
            const int srcStride[1] = {3 * w};
            sws_scale(e.sws, srcData, srcStride, 0, h, e.frame->data, e.frame->linesize);
            e.frame->pts = i;
            if ((rc = avcodec_send_frame(e.ctx, e.frame)) < 0) throw IoError("MP4 encoder: encoding failed: " + avText(rc));
            drain(false);
            if (progress) progress(i + 1, n);
        }
        if ((rc = avcodec_send_frame(e.ctx, nullptr)) < 0) throw IoError("MP4 encoder: encoding failed: " + avText(rc));
        drain(true);
        if (cancelled()) throw RenderCancelled("MP4 export was cancelled");
        if ((rc = av_write_trailer(e.fmt)) < 0) throw IoError("MP4 encoder: cannot finish '" + path + "': " + avText(rc));
        avio_closep(&e.fmt->pb);

        const int f = ::open(tmp.c_str(), O_RDONLY);
        if (f < 0 || ::fsync(f) != 0) {
            if (f >= 0) ::close(f);
            throw IoError("MP4 encoder: cannot flush '" + path + "': " + std::strerror(errno));
        }
        ::close(f);
        ::chmod(tmp.c_str(), 0644);
        if (::rename(tmp.c_str(), path.c_str()) != 0) throw IoError("MP4 encoder: cannot write '" + path + "': " + std::strerror(errno));
        const int d = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY);
        if (d >= 0) {
            ::fsync(d);
            ::close(d);
        }
    } catch (...) {
        ::unlink(tmp.c_str());
        throw;
    }
}

// The MP4 row of ExportFormat: the session's delay; yuv420p needs an even frame size.
const ExportWriter& exportWriterMp4() {
    static const ExportWriter writer{
        ExportFormat::Kind::Mp4,
        [](const LatentSession& session, const std::string&) {
            if (session.size % 2 != 0)
                throw ConfigError("session key 'size' is " + std::to_string(session.size) + " but MP4 (yuv420p) needs an even size; use " +
                                  std::to_string(session.size + 1));
        },
        [](const at::Tensor& framesHwc, const LatentSession& session, const std::string& out, const FrameProgress& progress, const std::atomic<bool>* cancel) {
            Mp4Options mo;
            mo.frameDelayMs = session.frameDelayMs;
            const Mp4Writer writer(mo);
            writer.write(framesHwc, out, progress, cancel);
            return "MP4 (" + writer.encoderName() + ")";
        }};
    return writer;
}

}  // namespace streetgan
