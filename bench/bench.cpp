// Lumen vs OpenCV vs plain C, bandwidth roofline and dispatch overhead, in one run.
// Usage: lumen_bench OUT.csv [--quick] [--only=PIPELINE]. Each time is the median of N runs after warm-up; every
// output is compared (plain C: exact; OpenCV: documented max |diff|) and a mismatch says FAIL.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <HalideRuntime.h>

extern "C" {
#include <lumen/lumen.h>

#include "lumen__levels_cpu.h"  // the Halide pipeline itself, for the dispatch comparison
#include "plain.h"
#include "reference.h"
}

namespace {

using Clock = std::chrono::steady_clock;
FILE *csv;
bool quick;
std::string only;  // --only=NAME: just that pipeline at 3840x2160

double now_ms() { return std::chrono::duration<double, std::milli>(Clock::now().time_since_epoch()).count(); }

// Median over runs after two warm-ups; more runs for fast cases (about 0.3 s per measurement).
double median_ms(const std::function<void()> &f) {
    f();
    double t0 = now_ms();
    f();
    double once = std::max(now_ms() - t0, 1e-3);
    int n = std::clamp(int((quick ? 0.05 : 0.3) / (once / 1e3)), 5, 51);
    std::vector<double> t(n);
    for (auto &v : t) {
        double a = now_ms();
        f();
        v = now_ms() - a;
    }
    std::nth_element(t.begin(), t.begin() + n / 2, t.end());
    return t[n / 2];
}

// An interleaved u8 image with 64-byte rows, seen by Lumen, OpenCV and the plain C code.
struct Img {
    int w, h, c;
    size_t stride;
    uint8_t *p;
    lumen_image *li = nullptr;
    Img(int w_, int h_, int c_) : w(w_), h(h_), c(c_), stride((size_t(w) * c + 63) / 64 * 64) {
        p = static_cast<uint8_t *>(aligned_alloc(64, stride * h));
        memset(p, 0, stride * h);
        lumen_image_wrap(p, w, h, c, stride, &li);
    }
    Img(const Img &) = delete;
    ~Img() { lumen_image_destroy(li); free(p); }
    cv::Mat mat() const { return cv::Mat(h, w, CV_8UC(c), p, stride); }
    pc_img pc() const { return {p, w, h, c, stride}; }
    int max_diff(const Img &o) const {
        int m = 0;
        for (int y = 0; y < h; y++)
            for (size_t i = 0; i < size_t(w) * c; i++)
                m = std::max(m, std::abs(p[y * stride + i] - o.p[y * o.stride + i]));
        return m;
    }
};

int32_t q12(float v) { return int32_t(std::floor(double(v) * 4096.0 + 0.5)); }

// OpenCV's own rounding sets each tolerance (max |diff| from Lumen): LUT 0 (the same table);
// convertScaleAbs 1 (float gain, cvRound); cvtColor 1 (Q14 weights vs Lumen's Q8); GaussianBlur 2
// (8U kernel quantized to 8 fractional bits vs Lumen's Q14 taps); resize 1 (same Q11 weights,
// other intermediate rounding); Sobel 1 (float magnitude, cvRound); unsharp 2 (the blur's 2 times
// |1 - amount| = 0.5, plus rounding).
struct Op {  // one OpenCV equivalent and the largest |diff| from Lumen it may have
    std::string name;
    int tol;
    std::function<void(const Img &, Img &)> run;
};

struct Pipeline {
    std::string name;
    std::vector<int> channels;
    double out_scale;  // output size / input size per dimension
    int out_channels;  // 0: as the input
    std::function<lumen_status(lumen_context *, Img &, Img &)> lumen;
    std::function<void(const Img &, Img &)> plain;
    std::vector<Op> opencv;
};

const float kSigma = 2.0f, kAmount = 1.5f, kGain = 1.2f, kBias = 10.0f;

std::vector<Pipeline> pipelines() {
    static uint16_t taps[97];
    static int r = ref_gaussian_taps(kSigma, taps);
    int k = 2 * r + 1;
    static std::vector<uint8_t> lut(256);
    for (int i = 0; i < 256; i++) lut[i] = uint8_t(std::clamp((q12(kGain) * i + q12(kBias) + 2048) >> 12, 0, 255));
    auto gauss = [k](const Img &s, Img &d) {
        cv::Mat o = d.mat();
        cv::GaussianBlur(s.mat(), o, cv::Size(k, k), kSigma, kSigma, cv::BORDER_REPLICATE);
    };
    return {
        {"levels", {1, 3}, 1, 0,
         [](lumen_context *x, Img &s, Img &d) { return lumen_levels(x, s.li, d.li, kGain, kBias); },
         [](const Img &s, Img &d) { pc_levels(s.pc(), d.pc(), q12(kGain), q12(kBias)); },
         {{"cv::LUT", 0, [](const Img &s, Img &d) { cv::Mat o = d.mat(); cv::LUT(s.mat(), lut, o); }},
          {"cv::convertScaleAbs", 1, [](const Img &s, Img &d) {
               cv::Mat o = d.mat();
               cv::convertScaleAbs(s.mat(), o, kGain, kBias);
           }}}},
        {"grayscale", {3}, 1, 1,
         [](lumen_context *x, Img &s, Img &d) { return lumen_grayscale(x, s.li, d.li); },
         [](const Img &s, Img &d) { pc_grayscale(s.pc(), d.pc()); },
         {{"cv::cvtColor RGB2GRAY", 1, [](const Img &s, Img &d) {
               cv::Mat o = d.mat();
               cv::cvtColor(s.mat(), o, cv::COLOR_RGB2GRAY);
           }}}},
        {"gaussian_blur", {1, 3}, 1, 0,
         [](lumen_context *x, Img &s, Img &d) { return lumen_gaussian_blur(x, s.li, d.li, kSigma); },
         [](const Img &s, Img &d) { pc_blur(s.pc(), d.pc(), taps, r); },
         {{"cv::GaussianBlur " + std::to_string(k) + "x" + std::to_string(k), 2, gauss}}},
        {"resize", {1, 3}, 2.0 / 3.0, 0,
         [](lumen_context *x, Img &s, Img &d) { return lumen_resize(x, s.li, d.li); },
         [](const Img &s, Img &d) { pc_resize(s.pc(), d.pc()); },
         {{"cv::resize INTER_LINEAR", 1, [](const Img &s, Img &d) {
               cv::Mat o = d.mat();
               cv::resize(s.mat(), o, o.size(), 0, 0, cv::INTER_LINEAR);
           }}}},
        {"sobel", {1}, 1, 0,
         [](lumen_context *x, Img &s, Img &d) { return lumen_sobel(x, s.li, d.li); },
         [](const Img &s, Img &d) { pc_sobel(s.pc(), d.pc()); },
         {{"cv::Sobel dx+dy (32F) + magnitude", 1, [](const Img &s, Img &d) {
               thread_local cv::Mat gx, gy, m;
               cv::Sobel(s.mat(), gx, CV_32F, 1, 0, 3, 1, 0, cv::BORDER_REPLICATE);
               cv::Sobel(s.mat(), gy, CV_32F, 0, 1, 3, 1, 0, cv::BORDER_REPLICATE);
               cv::magnitude(gx, gy, m);
               cv::Mat o = d.mat();
               m.convertTo(o, CV_8U);
           }}}},
        {"unsharp_mask", {1, 3}, 1, 0,
         [](lumen_context *x, Img &s, Img &d) { return lumen_unsharp_mask(x, s.li, d.li, kSigma, kAmount); },
         [](const Img &s, Img &d) { pc_unsharp(s.pc(), d.pc(), taps, r, q12(kAmount)); },
         {{"cv::GaussianBlur + addWeighted", 2, [k](const Img &s, Img &d) {
               thread_local cv::Mat b;
               cv::GaussianBlur(s.mat(), b, cv::Size(k, k), kSigma, kSigma, cv::BORDER_REPLICATE);
               cv::Mat o = d.mat();
               cv::addWeighted(s.mat(), kAmount, b, 1.0 - kAmount, 0.0, o);
           }}}},
    };
}

void bench_pipelines(lumen_context *ctx, const std::vector<int> &threads) {
    struct Size { int w, h; };
    std::vector<Size> sizes = {{640, 480}, {1920, 1080}, {3840, 2160}};
    if (!only.empty()) sizes = {{3840, 2160}};
    for (const Pipeline &pl : pipelines())
        for (Size sz : sizes)
            if (only.empty() || only == pl.name)
            for (int c : pl.channels) {
                Img src(sz.w, sz.h, c);
                uint32_t s = 12345;
                for (size_t i = 0; i < src.stride * src.h; i++) src.p[i] = uint8_t((s = s * 1664525u + 1013904223u) >> 24);
                int ow = int(sz.w * pl.out_scale), oh = int(sz.h * pl.out_scale);
                int oc = pl.out_channels ? pl.out_channels : c;
                Img lo(ow, oh, oc), po(ow, oh, oc), co(ow, oh, oc);
                for (int t : threads) {
                    lumen_set_num_threads(t);
                    cv::setNumThreads(t);
                    pc_set_threads(t);
                    lumen_status st = LUMEN_OK;
                    double lm = median_ms([&] { st = pl.lumen(ctx, src, lo); });
                    if (st) std::fprintf(stderr, "%s: %s\n", pl.name.c_str(), lumen_last_error());
                    double pm = median_ms([&] { pl.plain(src, po); });
                    int pd = lo.max_diff(po);
                    for (const Op &op : pl.opencv) {
                        double cm = median_ms([&] { op.run(src, co); });
                        int cd = lo.max_diff(co);
                        std::fprintf(csv, "pipeline,%s,%dx%d,%s,%d,%.4f,%.4f,%.4f,%s,%d,%d,%s,%d,%s,%.3f,x OpenCV/Lumen,\n",
                                     pl.name.c_str(), sz.w, sz.h, c == 1 ? "gray" : "rgb", t, lm, cm, pm,
                                     op.name.c_str(), cd, op.tol, cd <= op.tol && !st ? "ok" : "FAIL", pd,
                                     pd == 0 && !st ? "ok" : "FAIL", cm / lm);
                        std::fflush(csv);
                    }
                }
            }
}

// Roofline: memcpy and a copy loop (bytes read + written), a read-only sum, over 512 MiB in
// 8 MiB calls; the roofline is the faster copy. Then the point ops
// on 3840x2160, rotating over images totalling > 256 MiB so that none is still in the cache (the
// L3 holds a whole 4K gray image): bytes moved (input + output) per second as a fraction of the
// roofline at the same thread count.
void bench_bandwidth(lumen_context *ctx, const std::vector<int> &threads) {
    size_t n = size_t(quick ? 128 : 512) << 20;
    auto *a = static_cast<uint8_t *>(aligned_alloc(64, n)), *b = static_cast<uint8_t *>(aligned_alloc(64, n));
    memset(a, 1, n);
    memset(b, 2, n);
    struct Pair { std::unique_ptr<Img> s, d; };
    auto pairs = [](int c, int oc) {
        std::vector<Pair> v;
        for (size_t bytes = 0; bytes < (size_t(256) << 20); bytes += size_t(3840) * 2160 * (c + oc))
            v.push_back({std::make_unique<Img>(3840, 2160, c), std::make_unique<Img>(3840, 2160, oc)});
        return v;
    };
    std::vector<Pair> gray = pairs(1, 1), rgb = pairs(3, 3), luma = pairs(3, 1);
    for (int t : threads) {
        pc_set_threads(t);
        lumen_set_num_threads(t);
        // Each probe call moves one 8 MiB chunk (a 4K gray image), rotating over the buffer.
        size_t ck = size_t(8) << 20, nc = n / ck, i = 0;
        double cp = median_ms([&] { i = (i + 1) % nc, bw_copy(b + i * ck, a + i * ck, ck); });
        double lc = median_ms([&] { i = (i + 1) % nc, bw_loop_copy(b + i * ck, a + i * ck, ck, 0); });
        volatile uint64_t sink = 0;
        double rd = median_ms([&] { i = (i + 1) % nc, sink = sink + bw_read(a + i * ck, ck); });
        double copy_gbs = 2.0 * ck / std::min(cp, lc) / 1e6, read_gbs = double(ck) / rd / 1e6;
        std::fprintf(csv, "bandwidth,memcpy,%zu MiB,,%d,%.4f,,,,,,,,,%.2f,GB/s,\n", n >> 20, t, cp, 2.0 * ck / cp / 1e6);
        std::fprintf(csv, "bandwidth,copy loop,%zu MiB,,%d,%.4f,,,,,,,,,%.2f,GB/s,\n", n >> 20, t, lc,
                     2.0 * ck / lc / 1e6);
        std::fprintf(csv, "bandwidth,read,%zu MiB,,%d,%.4f,,,,,,,,,%.2f,GB/s,\n", n >> 20, t, rd, read_gbs);
        std::fprintf(csv, "bandwidth,roofline (faster copy),%zu MiB,,%d,,,,,,,,,,%.2f,GB/s,\n", n >> 20, t, copy_gbs);
        struct Case { const char *name, *fmt; std::vector<Pair> &v; };
        for (Case k : {Case{"levels", "gray", gray}, Case{"levels", "rgb", rgb}, Case{"grayscale", "rgb", luma}}) {
            size_t i = 0, j = 0;
            bool lv = k.name[0] == 'l';
            double lm = median_ms([&] {
                Pair &p = k.v[i++ % k.v.size()];
                if (lv) lumen_levels(ctx, p.s->li, p.d->li, kGain, kBias);
                else lumen_grayscale(ctx, p.s->li, p.d->li);
            });
            double pm = median_ms([&] {
                Pair &p = k.v[j++ % k.v.size()];
                if (lv) pc_levels(p.s->pc(), p.d->pc(), q12(kGain), q12(kBias));
                else pc_grayscale(p.s->pc(), p.d->pc());
            });
            const Img &s0 = *k.v[0].s, &d0 = *k.v[0].d;
            double bytes = double(s0.stride) * s0.h + double(d0.stride) * d0.h, gbs = bytes / lm / 1e6;
            std::fprintf(csv, "pointop,%s,3840x2160,%s,%d,%.4f,,%.4f,,,,,,,%.2f,GB/s,%.3f\n", k.name, k.fmt, t, lm,
                         pm, gbs, gbs / copy_gbs);
        }
    }
    free(a);
    free(b);
}

// Per-call cost: lumen_levels vs the Halide pipeline called directly on the same buffers.
void bench_dispatch(lumen_context *ctx, const std::vector<int> &threads) {
    for (int side : {1, 64}) {
        Img s(side, side, 1), d(side, side, 1);
        halide_dimension_t sd[3] = {{0, 1, 1, 0}, {0, side, 1, 0}, {0, side, int32_t(s.stride), 0}};
        halide_dimension_t dd[3] = {{0, 1, 1, 0}, {0, side, 1, 0}, {0, side, int32_t(d.stride), 0}};
        halide_buffer_t hs{}, hd{};
        hs.host = s.p, hd.host = d.p;
        hs.type = hd.type = halide_type_t(halide_type_uint, 8);
        hs.dimensions = hd.dimensions = 3;
        hs.dim = sd, hd.dim = dd;
        int32_t g = q12(kGain), bi = q12(kBias);
        int calls = quick ? 2000 : side == 1 ? 200000 : 20000;
        for (int t : threads) {
            lumen_set_num_threads(t);
            std::vector<double> lu, di;
            for (int rep = 0; rep < 14; rep++) {  // alternating batches, median of 7 each
                double a = now_ms();
                for (int i = 0; i < calls; i++) {
                    if (rep % 2) lumen_levels(ctx, s.li, d.li, kGain, kBias);
                    else lumen__levels_cpu(nullptr, &hs, g, bi, &hd);
                }
                (rep % 2 ? lu : di).push_back((now_ms() - a) * 1e6 / calls);
            }
            std::sort(lu.begin(), lu.end());
            std::sort(di.begin(), di.end());
            std::fprintf(csv, "dispatch,levels,%dx%d,gray,%d,%.6f,%.6f,,direct Halide call,,,,,,%.1f,ns/call,\n", side,
                         side, t, lu[3] / 1e6, di[3] / 1e6, lu[3] - di[3]);
        }
    }
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUT.csv [--quick] [--only=PIPELINE]\n", argv[0]);
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        if (std::strcmp(argv[i], "--quick") == 0) quick = true;
        if (std::strncmp(argv[i], "--only=", 7) == 0) only = argv[i] + 7;
    }
    csv = std::fopen(argv[1], "w");
    if (!csv) return 1;
    lumen_context *ctx;
    if (lumen_context_create(LUMEN_BACKEND_CPU, &ctx) != LUMEN_OK) return 1;
    std::fprintf(csv, "# lumen %s, cpu variant %s, OpenCV %s, %s\n", lumen_version_string(), lumen_cpu_variant(),
                 CV_VERSION, LUMEN_BENCH_INFO);
    std::fprintf(csv, "section,name,size,format,threads,lumen_ms,other_ms,plainc_ms,other,other_maxdiff,"
                      "other_tol,other_match,plainc_maxdiff,plainc_match,value,unit,fraction\n");
    std::vector<int> threads = {1, 2};
    if (only.empty()) {
        bench_dispatch(ctx, threads);
        bench_bandwidth(ctx, threads);
    }
    bench_pipelines(ctx, threads);
    lumen_context_destroy(ctx);
    return std::fclose(csv) != 0;
}
