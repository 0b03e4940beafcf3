#include "base/util/PngEncoder.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>
#include <vector>

#include <zlib.h>

#include "base/util/Errors.h"

namespace streetgan {

namespace {

void putBe32(std::string& out, uint32_t v) {
    const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
    out.append(b, 4);
}

void putChunk(std::string& out, const char type[4], std::string_view data) {
    putBe32(out, static_cast<uint32_t>(data.size()));
    const std::size_t typeAt = out.size();
    out.append(type, 4);
    out.append(data);
    // The CRC covers the chunk type and its data, not the length.
    const auto* crcFrom = reinterpret_cast<const Bytef*>(out.data() + typeAt);
    putBe32(out, static_cast<uint32_t>(crc32(0L, crcFrom, static_cast<uInt>(4 + data.size()))));
}

uint8_t paeth(int a, int b, int c) {
    const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
    if (pa <= pb && pa <= pc) return static_cast<uint8_t>(a);
    return static_cast<uint8_t>(pb <= pc ? b : c);
}

// Writes filter type `f` of `row` (with `prev` the row above, zeros for the first) to out[1..].
void filterRow(int f, const uint8_t* row, const uint8_t* prev, std::size_t n, int bpp, uint8_t* out) {
    out[0] = static_cast<uint8_t>(f);
    for (std::size_t i = 0; i < n; ++i) {
        const int a = i >= static_cast<std::size_t>(bpp) ? row[i - bpp] : 0;
        const int b = prev[i];
        const int c = i >= static_cast<std::size_t>(bpp) ? prev[i - bpp] : 0;
        int pred = 0;
        switch (f) {
            case 1:
                pred = a;
                break;
            case 2:
                pred = b;
                break;
            case 3:
                pred = (a + b) / 2;
                break;
            case 4:
                pred = paeth(a, b, c);
                break;
            default:
                break;
        }
        out[i + 1] = static_cast<uint8_t>(row[i] - pred);
    }
}

// libpng's heuristic: the sum of the filtered bytes read as signed values, in absolute value.
uint64_t cost(const uint8_t* filtered, std::size_t n) {
    uint64_t sum = 0;
    for (std::size_t i = 1; i <= n; ++i) sum += static_cast<uint64_t>(std::abs(static_cast<int>(static_cast<int8_t>(filtered[i]))));
    return sum;
}

}  // namespace

std::string PngEncoder::encode(const uint8_t* pixels, int width, int height, int channels, int level, std::size_t stride) {
    if (channels != 1 && channels != 3 && channels != 4) throw DataError("PNG encoder: an image needs 1, 3 or 4 channels, got " + std::to_string(channels));
    if (width <= 0 || height <= 0 || width > 1'000'000 || height > 1'000'000)
        throw DataError("PNG encoder: cannot encode a " + std::to_string(width) + "x" + std::to_string(height) + " image");
    if (level < 0 || level > 9) throw DataError("PNG encoder: compression level " + std::to_string(level) + " is not 0..9");
    const std::size_t rowBytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(channels);
    if (stride == 0) stride = rowBytes;
    if (stride < rowBytes) throw DataError("PNG encoder: a row stride of " + std::to_string(stride) + " bytes is shorter than a row");

    z_stream z{};
    if (deflateInit(&z, level) != Z_OK) throw IoError("PNG encoder: zlib could not start compressing");
    std::string idat;
    std::vector<uint8_t> zeros(rowBytes, 0), best(rowBytes + 1), trial(rowBytes + 1);
    std::array<uint8_t, 1 << 16> outBuf{};
    auto deflateSome = [&](const uint8_t* data, std::size_t size, int flush) {
        z.next_in = const_cast<Bytef*>(data);  // zlib's API is not const-correct; it does not write
        z.avail_in = static_cast<uInt>(size);
        do {
            z.next_out = outBuf.data();
            z.avail_out = static_cast<uInt>(outBuf.size());
            const int rc = deflate(&z, flush);
            if (rc == Z_STREAM_ERROR) {
                deflateEnd(&z);
                throw IoError("PNG encoder: zlib failed while compressing");
            }
            idat.append(reinterpret_cast<const char*>(outBuf.data()), outBuf.size() - z.avail_out);
        } while (z.avail_out == 0 || (flush == Z_FINISH && z.avail_in > 0));
    };
    for (int y = 0; y < height; ++y) {
        const uint8_t* row = pixels + static_cast<std::size_t>(y) * stride;
        const uint8_t* prev = y == 0 ? zeros.data() : row - stride;
        uint64_t bestCost = UINT64_MAX;
        for (int f = 0; f < 5; ++f) {
            filterRow(f, row, prev, rowBytes, channels, trial.data());
            const uint64_t c = cost(trial.data(), rowBytes);
            if (c < bestCost) {
                bestCost = c;
                best.swap(trial);
            }
        }
        deflateSome(best.data(), best.size(), Z_NO_FLUSH);
    }
    deflateSome(nullptr, 0, Z_FINISH);
    deflateEnd(&z);

    std::string png("\x89PNG\r\n\x1a\n", 8);
    std::string ihdr;
    putBe32(ihdr, static_cast<uint32_t>(width));
    putBe32(ihdr, static_cast<uint32_t>(height));
    const char colourType = channels == 1 ? 0 : (channels == 3 ? 2 : 6);
    ihdr += std::string{'\x08', colourType, '\0', '\0', '\0'};  // depth 8, deflate, adaptive filters, no interlace
    putChunk(png, "IHDR", ihdr);
    constexpr std::size_t kChunk = 1 << 20;
    for (std::size_t at = 0; at < idat.size(); at += kChunk) putChunk(png, "IDAT", std::string_view(idat).substr(at, kChunk));
    putChunk(png, "IEND", {});
    return png;
}

}  // namespace streetgan
