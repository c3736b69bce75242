// Lumen vs its peers (OpenCV 4.6 from Debian, libvips, plain C), the bandwidth roofline and the
// dispatch overhead, in one run. OpenCV from PyPI is timed by bench/peer_cv2.py on the same inputs.
// Usage: lumen_bench OUT.csv [--quick] [--only=PIPELINE|dispatch] [--budget=SECONDS] [--peers=opencv]
//                            [--sizes=WxH,...]
// Each time is the median of N runs after a warm-up, N = budget / one run, clamped to 3..51
// (1 run for a peer over 3x slower than Lumen, see median_ms).
// Every output is compared with Lumen's (max |diff| against a per-op tolerance, documented below);
// beyond it the row says FAIL (or "differs" for an op listed as different semantics), and the
// report never counts such a row as the fastest peer. --peers=opencv times only Lumen and OpenCV
// (the AVX2 run: libvips and plain C do not depend on Lumen's variant; see run.sh).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <vips/vips.h>

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
bool quick, all_peers = true;
double budget_s = 0.08;
std::string only;  // --only=NAME: just that pipeline (or the dispatch rows)
std::string variant;
struct Size { int w, h; };
std::vector<Size> sizes = {{640, 480}, {1920, 1080}, {3840, 2160}};

double now_ms() { return std::chrono::duration<double, std::milli>(Clock::now().time_since_epoch()).count(); }

// Median of N runs after a warm-up, N = budget / one run, clamped to 3..51. With ref_ms (Lumen's
// time), a peer whose warm-up and first run both take over 3x that cannot be the fastest peer:
// that one run is its time (this keeps the slow peers from taking most of the bench's time).
double median_ms(const std::function<void()> &f, double ref_ms = 0) {
    double t0 = now_ms();
    f();
    double once = std::max(now_ms() - t0, 1e-4);
    std::vector<double> t;
    if (ref_ms > 0 && once > 3 * ref_ms) {
        double a = now_ms();
        f();
        t.push_back(now_ms() - a);
        if (t[0] > 3 * ref_ms) return t[0];
        once = t[0];
    }
    int n = std::clamp(int(budget_s * 1e3 / once), 3, 51);
    while (int(t.size()) < n) {
        double a = now_ms();
        f();
        t.push_back(now_ms() - a);
    }
    std::nth_element(t.begin(), t.begin() + n / 2, t.end());
    return t[n / 2];
}

// Fastest of >= 21 runs (after a warm-up): for the bandwidth probes, whose best rate is the
// roofline (a median would let a burst of interference from other processes lower it).
double best_ms(const std::function<void()> &f) {
    f();
    double t0 = now_ms();
    f();
    double best = std::max(now_ms() - t0, 1e-4);
    int n = std::clamp(int(budget_s * 1e3 / best), 21, 201);
    for (int i = 0; i < n; i++) {
        double a = now_ms();
        f();
        best = std::min(best, now_ms() - a);
    }
    return best;
}

std::string esc(const std::string &s) {
    if (s.find_first_of(",\"") == std::string::npos) return s;
    std::string o = "\"";
    for (char ch : s) o += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return o + "\"";
}

// One CSV row; columns as in main()'s header.
void row(const std::string &section, const std::string &name, const std::string &params, const std::string &size,
         const std::string &format, int threads, double lumen_ms, double other_ms, const std::string &other,
         const std::string &version, const std::string &match, int max_diff, int tol, double value,
         const std::string &unit, double fraction, const std::string &note) {
    auto num = [](double v, const char *fmt) {
        if (std::isnan(v)) return std::string();
        char b[64];
        std::snprintf(b, sizeof b, fmt, v);
        return std::string(b);
    };
    std::fprintf(csv, "%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", section.c_str(), esc(name).c_str(),
                 esc(params).c_str(), size.c_str(), format.c_str(), threads, variant.c_str(),
                 num(lumen_ms, "%.6g").c_str(), num(other_ms, "%.6g").c_str(), esc(other).c_str(),
                 esc(version).c_str(), match.c_str(), max_diff < 0 ? "" : std::to_string(max_diff).c_str(),
                 tol < 0 ? "" : std::to_string(tol).c_str(), num(value, "%.4f").c_str(), unit.c_str(),
                 num(fraction, "%.4f").c_str(), esc(note).c_str());
    std::fflush(csv);
}
const double NA = NAN;

// The same pseudo-random bytes as bench/peer_cv2.py: a hash of the index in the packed image.
uint8_t noise(uint32_t i) {
    uint32_t x = i * 0x9E3779B1u;
    x ^= x >> 15;
    x *= 0x85EBCA77u;
    x ^= x >> 13;
    return uint8_t(x >> 24);
}

// An interleaved u8 image, packed rows (stride = width * channels, as numpy and libvips need),
// 64-byte aligned start; seen by Lumen, OpenCV, libvips and the plain C code.
struct Img {
    int w, h, c;
    size_t stride;
    uint8_t *p;
    lumen_image *li = nullptr;
    Img(int w_, int h_, int c_) : w(w_), h(h_), c(c_), stride(size_t(w_) * c_) {
        p = static_cast<uint8_t *>(aligned_alloc(64, (bytes() + 63) / 64 * 64));
        memset(p, 0, bytes());
        lumen_image_wrap(p, w, h, c, stride, &li);
    }
    Img(const Img &) = delete;
    ~Img() { lumen_image_destroy(li); free(p); }
    size_t bytes() const { return stride * h; }
    void fill() { for (size_t i = 0; i < bytes(); i++) p[i] = noise(uint32_t(i)); }
    cv::Mat mat() const { return cv::Mat(h, w, CV_8UC(c), p, stride); }
    pc_img pc() const { return {p, w, h, c, stride}; }
    int max_diff(const Img &o) const {
        int m = 0;
        for (size_t i = 0; i < bytes(); i++) m = std::max(m, std::abs(p[i] - o.p[i]));
        return m;
    }
};

int32_t q12(float v) { return int32_t(std::floor(double(v) * 4096.0 + 0.5)); }

// ---- libvips: each call wraps the packed buffers (a header, no copy), builds the operation
// graph and writes the result into the destination's memory (vips_image_write into an image
// made by vips_image_new_from_memory). The operation cache is off (vips_cache_set_max(0)), so
// every call computes. A failed call returns false (the row then says FAIL).
using VipsBuild = std::function<VipsImage *(VipsImage *in, VipsImage **t)>;
bool vips_run(const Img &s, Img &d, const VipsBuild &build) {
    VipsImage *in = vips_image_new_from_memory(s.p, s.bytes(), s.w, s.h, s.c, VIPS_FORMAT_UCHAR);
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = reinterpret_cast<VipsImage **>(vips_object_local_array(scope, 12));
    VipsImage *r = build(in, t);
    bool ok = r && r->Xsize == d.w && r->Ysize == d.h && r->Bands == d.c && r->BandFmt == VIPS_FORMAT_UCHAR;
    if (ok) {
        VipsImage *o = vips_image_new_from_memory(d.p, d.bytes(), d.w, d.h, d.c, VIPS_FORMAT_UCHAR);
        ok = vips_image_write(r, o) == 0;
        g_object_unref(o);
    }
    if (!ok) {
        std::fprintf(stderr, "libvips: %s\n", vips_error_buffer());
        vips_error_clear();
    }
    g_object_unref(scope);
    g_object_unref(in);
    return ok;
}

// ---- The pipelines, their cases and the peers compared with each.
// Tolerances (max |diff| from Lumen's output on noise images, the worst case for rounding):
//   plain C 0 (same integer formulas).
//   OpenCV: LUT 0 (the same table); convertScaleAbs 1 (float gain, cvRound); cvtColor 1 (Q14
//   weights vs Lumen's Q8); GaussianBlur 2 (8U kernel quantized to 8 fractional bits vs Lumen's
//   Q16 taps); resize INTER_LINEAR_EXACT 1: not bit-identical to Lumen: OpenCV's bit-exact
//   weights are Q8 (ufixedpoint16), Lumen's Q11, so they agree exactly only where the weights are
//   multiples of 1/256 (x1/2, x1/4, x2/5, x2) and differ by 1 elsewhere (x1/3, x2/3, x3/2);
//   INTER_LINEAR 1 (Q11 weights, other intermediate rounding; x1/2 runs INTER_AREA's 2x2
//   average); Sobel 1 (float magnitude, cvRound); unsharp 2 (the blur's 2 times |1 - amount| =
//   0.5, plus rounding).
//   libvips (float arithmetic, then + 0.5 and vips' truncating cast to uchar): linear 1; recomb
//   1 (weights 77/256, 150/256, 29/256); gaussblur precision float 2 (min_ampl chosen so that its
//   mask has Lumen's radius ceil(3 sigma)); unsharp 2 (that blur, a * src + (1 - a) * blur);
//   Sobel as two short vips_conv + sqrt 1; affine bilinear 2 (pixel centres aligned, positions
//   quantized to 1/64 pixel, Q12 weights; observed 0..1).
//   Timed but never counted (different semantics, row says "differs" when beyond the tolerance):
//   vips_gaussblur precision integer (libvips' fast path; its integer mask is coarser than
//   Lumen's Q16 taps), vips_sobel (its own scaled uchar Sobel), vips_resize kernel linear
//   (downscales: box shrink, then a triangle filter over 1/scale pixels, anti-aliased; not
//   bilinear sampling). vips_sharpen (LabS, L only, piecewise gain) has no counterpart in Lumen.
struct Peer {
    std::string name, version;
    int tol;
    bool info;         // different semantics: timed and compared, never counted as a match
    bool every_variant; // also timed in the --peers=opencv run
    std::string note;
    std::function<bool(const Img &, Img &)> run;
};

struct Case {
    std::string name, params;
    std::vector<int> channels;
    int num = 1, den = 1;  // output size = input size * num / den
    bool to_gray = false;
    bool nv12 = false;  // the source: an NV12 frame (a 1-channel image of 3/2 the height)
    bool i420 = false;  // the output: an I420 frame (likewise)
    bool swap = false;  // the output: height x width (rotations by 90 degrees)
    std::function<lumen_status(lumen_context *, Img &, Img &)> lumen;
    std::function<void(const Img &, Img &)> plain;
    std::vector<Peer> peers;
};

const float kGain = 1.2f, kBias = 10.0f, kAmount = 1.5f;
const std::string kCv = CV_VERSION;

std::string fmt_name(int c) { return c == 1 ? "gray" : c == 3 ? "rgb" : "rgba"; }

// vips_gaussblur's mask ends where exp(-x^2 / (2 sigma^2)) drops below min_ampl: this puts the
// end between Lumen's radius ceil(3 sigma) and the next tap, so both sum the same taps.
double vips_min_ampl(float sigma, int r) { return std::exp(-(r + 0.5) * (r + 0.5) / (2.0 * sigma * sigma)); }

std::vector<Case> cases() {
    std::vector<Case> v;
    const std::string vv = vips_version_string();
    const double g = q12(kGain) / 4096.0, b = q12(kBias) / 4096.0;
    {
        auto lut = std::make_shared<std::vector<uint8_t>>(256);
        for (int i = 0; i < 256; i++)
            (*lut)[i] = uint8_t(std::clamp((q12(kGain) * i + q12(kBias) + 2048) >> 12, 0, 255));
        Case c{"levels", "gain 1.2 bias 10", {1, 3, 4}};
        c.lumen = [](lumen_context *x, Img &s, Img &d) { return lumen_levels(x, s.li, d.li, kGain, kBias); };
        c.plain = [](const Img &s, Img &d) { pc_levels(s.pc(), d.pc(), q12(kGain), q12(kBias)); };
        c.peers = {
            {"cv::LUT", kCv, 0, false, true, "", [lut](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::LUT(s.mat(), *lut, o);
                 return true;
             }},
            {"cv::convertScaleAbs", kCv, 1, false, true, "", [g, b](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::convertScaleAbs(s.mat(), o, g, b);
                 return true;
             }},
            {"vips_linear uchar", vv, 1, false, false, "bias + 0.5: vips truncates", [g, b](const Img &s, Img &d) {
                 return vips_run(s, d, [g, b](VipsImage *in, VipsImage **t) {
                     double a = g, c = b + 0.5;
                     return vips_linear(in, &t[0], &a, &c, 1, "uchar", TRUE, nullptr) ? nullptr : t[0];
                 });
             }},
        };
        v.push_back(c);
    }
    {
        Case c{"grayscale", "BT.601", {3, 4}};
        c.to_gray = true;
        c.lumen = [](lumen_context *x, Img &s, Img &d) { return lumen_grayscale(x, s.li, d.li); };
        c.plain = [](const Img &s, Img &d) { pc_grayscale(s.pc(), d.pc()); };
        c.peers = {
            {"cv::cvtColor RGB(A)2GRAY", kCv, 1, false, true, "", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::cvtColor(s.mat(), o, s.c == 4 ? cv::COLOR_RGBA2GRAY : cv::COLOR_RGB2GRAY);
                 return true;
             }},
            {"vips_recomb + cast", vv, 1, false, false,
             "weighted sum 77/256 150/256 29/256 (+0.5); vips_colourspace B_W is not BT.601 on sRGB values",
             [](const Img &s, Img &d) {
                 return vips_run(s, d, [c = s.c](VipsImage *in, VipsImage **t) -> VipsImage * {
                     t[0] = c == 4 ? vips_image_new_matrixv(4, 1, 77 / 256.0, 150 / 256.0, 29 / 256.0, 0.0)
                                   : vips_image_new_matrixv(3, 1, 77 / 256.0, 150 / 256.0, 29 / 256.0);
                     double one = 1.0, half = 0.5;
                     if (vips_recomb(in, &t[1], t[0], nullptr) ||
                         vips_linear(t[1], &t[2], &one, &half, 1, "uchar", TRUE, nullptr))
                         return nullptr;
                     return t[2];
                 });
             }},
        };
        v.push_back(c);
    }
    for (float sigma : {1.0f, 2.0f, 5.0f}) {
        auto taps = std::make_shared<std::vector<uint16_t>>(97);
        int r = ref_gaussian_taps(sigma, taps->data()), k = 2 * r + 1;
        char ps[64];
        std::snprintf(ps, sizeof ps, "sigma %g", sigma);
        std::string ks = std::to_string(k) + "x" + std::to_string(k);
        double ma = vips_min_ampl(sigma, r);
        Case c{"gaussian_blur", ps, {1, 3, 4}};
        c.lumen = [sigma](lumen_context *x, Img &s, Img &d) { return lumen_gaussian_blur(x, s.li, d.li, sigma); };
        c.plain = [taps, r](const Img &s, Img &d) { pc_blur(s.pc(), d.pc(), taps->data(), r); };
        c.peers = {
            {"cv::GaussianBlur " + ks, kCv, 2, false, true, "", [k, sigma](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::GaussianBlur(s.mat(), o, cv::Size(k, k), sigma, sigma, cv::BORDER_REPLICATE);
                 return true;
             }},
            {"vips_gaussblur float", vv, 2, false, false, "min_ampl: Lumen's radius ceil(3 sigma); + 0.5, cast",
             [sigma, ma](const Img &s, Img &d) {
                 return vips_run(s, d, [sigma, ma](VipsImage *in, VipsImage **t) -> VipsImage * {
                     double one = 1.0, half = 0.5;
                     if (vips_gaussblur(in, &t[0], sigma, "precision", VIPS_PRECISION_FLOAT, "min_ampl", ma, nullptr) ||
                         vips_linear(t[0], &t[1], &one, &half, 1, "uchar", TRUE, nullptr))
                         return nullptr;
                     return t[1];
                 });
             }},
            {"vips_gaussblur integer", vv, 2, true, false,
             "libvips' fast path: its integer mask is coarser than Lumen's Q16 taps (max diff 3..6)",
             [sigma, ma](const Img &s, Img &d) {
                 return vips_run(s, d, [sigma, ma](VipsImage *in, VipsImage **t) {
                     return vips_gaussblur(in, &t[0], sigma, "precision", VIPS_PRECISION_INTEGER, "min_ampl", ma,
                                           nullptr) ? nullptr : t[0];
                 });
             }},
        };
        v.push_back(c);
        Case u{"unsharp_mask", std::string(ps) + " amount 1.5", {1, 3, 4}};
        u.lumen = [sigma](lumen_context *x, Img &s, Img &d) {
            return lumen_unsharp_mask(x, s.li, d.li, sigma, kAmount);
        };
        u.plain = [taps, r](const Img &s, Img &d) { pc_unsharp(s.pc(), d.pc(), taps->data(), r, q12(kAmount)); };
        u.peers = {
            {"cv::GaussianBlur + addWeighted", kCv, 2, false, true, "", [k, sigma](const Img &s, Img &d) {
                 thread_local cv::Mat bl;
                 cv::GaussianBlur(s.mat(), bl, cv::Size(k, k), sigma, sigma, cv::BORDER_REPLICATE);
                 cv::Mat o = d.mat();
                 cv::addWeighted(s.mat(), kAmount, bl, 1.0 - kAmount, 0.0, o);
                 return true;
             }},
            {"vips_gaussblur + linear + add", vv, 2, false, false,
             "a*src + (1-a)*blur in float; vips_sharpen (LabS L only, piecewise gain) is not comparable",
             [sigma, ma](const Img &s, Img &d) {
                 return vips_run(s, d, [sigma, ma](VipsImage *in, VipsImage **t) -> VipsImage * {
                     double a = kAmount, z = 0.0, a1 = 1.0 - kAmount, half = 0.5;
                     if (vips_gaussblur(in, &t[0], sigma, "precision", VIPS_PRECISION_FLOAT, "min_ampl", ma,
                                        nullptr) ||
                         vips_linear(in, &t[1], &a, &z, 1, nullptr) ||
                         vips_linear(t[0], &t[2], &a1, &half, 1, nullptr) || vips_add(t[1], t[2], &t[3], nullptr) ||
                         vips_cast_uchar(t[3], &t[4], nullptr))
                         return nullptr;
                     return t[4];
                 });
             }},
        };
        v.push_back(u);
    }
    {
        Case c{"sobel", "3x3 magnitude", {1}};
        c.lumen = [](lumen_context *x, Img &s, Img &d) { return lumen_sobel(x, s.li, d.li); };
        c.plain = [](const Img &s, Img &d) { pc_sobel(s.pc(), d.pc()); };
        c.peers = {
            {"cv::Sobel dx+dy (32F) + magnitude", kCv, 1, false, true, "", [](const Img &s, Img &d) {
                 thread_local cv::Mat gx, gy, m;
                 cv::Sobel(s.mat(), gx, CV_32F, 1, 0, 3, 1, 0, cv::BORDER_REPLICATE);
                 cv::Sobel(s.mat(), gy, CV_32F, 0, 1, 3, 1, 0, cv::BORDER_REPLICATE);
                 cv::magnitude(gx, gy, m);
                 cv::Mat o = d.mat();
                 m.convertTo(o, CV_8U);
                 return true;
             }},
            {"vips_conv Sobel x2 + hypot", vv, 1, false, false, "short convs, float sqrt, + 0.5, cast",
             [](const Img &s, Img &d) {
                 return vips_run(s, d, [](VipsImage *in, VipsImage **t) -> VipsImage * {
                     t[0] = vips_image_new_matrixv(3, 3, -1.0, 0.0, 1.0, -2.0, 0.0, 2.0, -1.0, 0.0, 1.0);
                     t[1] = vips_image_new_matrixv(3, 3, -1.0, -2.0, -1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 1.0);
                     double one = 1.0, half = 0.5;
                     if (vips_cast_short(in, &t[2], nullptr) ||
                         vips_conv(t[2], &t[3], t[0], "precision", VIPS_PRECISION_INTEGER, nullptr) ||
                         vips_conv(t[2], &t[4], t[1], "precision", VIPS_PRECISION_INTEGER, nullptr) ||
                         vips_multiply(t[3], t[3], &t[5], nullptr) || vips_multiply(t[4], t[4], &t[6], nullptr) ||
                         vips_add(t[5], t[6], &t[7], nullptr))
                         return nullptr;
                     if (vips_pow_const1(t[7], &t[8], 0.5, nullptr) ||
                         vips_linear(t[8], &t[9], &one, &half, 1, "uchar", TRUE, nullptr))
                         return nullptr;
                     return t[9];
                 });
             }},
            {"vips_sobel", vv, 1, true, false, "libvips' own uchar Sobel (scaled), not the magnitude",
             [](const Img &s, Img &d) {
                 return vips_run(s, d, [](VipsImage *in, VipsImage **t) {
                     return vips_sobel(in, &t[0], nullptr) ? nullptr : t[0];
                 });
             }},
        };
        v.push_back(c);
    }
    struct Scale { int num, den; };
    for (Scale sc : {Scale{1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 5}, {3, 2}, {2, 1}}) {
        Case c{"resize", "x" + std::to_string(sc.num) + "/" + std::to_string(sc.den), {1, 3, 4}, sc.num, sc.den};
        c.lumen = [](lumen_context *x, Img &s, Img &d) { return lumen_resize(x, s.li, d.li); };
        c.plain = [](const Img &s, Img &d) { pc_resize(s.pc(), d.pc()); };
        c.peers = {
            {"cv::resize INTER_LINEAR_EXACT", kCv, 1, false, true, "Q8 weights (Lumen Q11): exact only at dyadic weights", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::resize(s.mat(), o, o.size(), 0, 0, cv::INTER_LINEAR_EXACT);
                 return true;
             }},
            {"cv::resize INTER_LINEAR", kCv, 1, false, true, "", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::resize(s.mat(), o, o.size(), 0, 0, cv::INTER_LINEAR);
                 return true;
             }},
            {"vips_affine bilinear", vv, 2, false, false, "centres aligned (idx 0.5, odx -0.5), extend copy",
             [](const Img &s, Img &d) {
                 return vips_run(s, d, [&s, &d](VipsImage *in, VipsImage **t) {
                     VipsArrayInt *area = vips_array_int_newv(4, 0, 0, d.w, d.h);
                     int e = vips_affine(in, &t[0], double(d.w) / s.w, 0, 0, double(d.h) / s.h, "interpolate",
                                         vips_interpolate_bilinear_static(), "oarea", area, "idx", 0.5, "idy", 0.5,
                                         "odx", -0.5, "ody", -0.5, "extend", VIPS_EXTEND_COPY, nullptr);
                     vips_area_unref(VIPS_AREA(area));
                     return e ? nullptr : t[0];
                 });
             }},
            {"vips_resize kernel linear", vv, 2, true, false,
             "libvips' own resize: downscales box-shrink then reduce with a triangle over 1/scale pixels "
             "(anti-aliased), not bilinear sampling",
             [](const Img &s, Img &d) {
                 return vips_run(s, d, [&s, &d](VipsImage *in, VipsImage **t) {
                     return vips_resize(in, &t[0], double(d.w) / s.w, "vscale", double(d.h) / s.h, "kernel",
                                        VIPS_KERNEL_LINEAR, nullptr) ? nullptr : t[0];
                 });
             }},
        };
        v.push_back(c);
    }
    // lumen_resize_interp's methods: a case per method and scale, cv::resize with OpenCV's flag.
    auto interp_case = [&v](const char *name, const std::string &p, Scale sc, lumen_interp m,
                            std::vector<Peer> peers) {
        Case c{name, p, {1, 3, 4}, sc.num, sc.den};
        c.lumen = [m](lumen_context *x, Img &s, Img &d) { return lumen_resize_interp(x, s.li, d.li, m); };
        c.peers = std::move(peers);
        v.push_back(c);
    };
    auto cv_resize = [](int flag) {
        return [flag](const Img &s, Img &d) {
            cv::Mat o = d.mat();
            cv::resize(s.mat(), o, o.size(), 0, 0, flag);
            return true;
        };
    };
    // nearest (OpenCV INTER_NEAREST_EXACT's integers) and area (INTER_AREA).
    for (Scale sc : {Scale{1, 2}, {1, 3}, {2, 5}, {1, 8}, {3, 2}}) {
        std::string p = "x" + std::to_string(sc.num) + "/" + std::to_string(sc.den);
        interp_case("resize_nearest", p, sc, LUMEN_INTER_NEAREST,
                    {{"cv::resize INTER_NEAREST_EXACT", kCv, 0, false, true,
                      "4.6 offsets by step/2 - 1 (Lumen and OpenCV 5: step/2 - in%2): equal where that never crosses a pixel",
                      cv_resize(cv::INTER_NEAREST_EXACT)}});
        interp_case("resize_area", p, sc, LUMEN_INTER_AREA,
                    {{"cv::resize INTER_AREA", kCv, 1, false, true,
                      "float weights at non-integer ratios (Lumen Q14/Q15); integer ratios: the same integers",
                      cv_resize(cv::INTER_AREA)}});
    }
    // cubic (cv::resize INTER_CUBIC's integers) and Lanczos-3 (Pillow's anti-aliased taps;
    // Pillow itself in peer_cv2.py).
    for (Scale sc : {Scale{1, 2}, {1, 8}, {3, 2}}) {
        std::string p = "x" + std::to_string(sc.num) + "/" + std::to_string(sc.den);
        interp_case("resize_cubic", p, sc, LUMEN_INTER_CUBIC,
                    {{"cv::resize INTER_CUBIC", kCv, 1, false, true,
                      "the same taps and Q11 weights; OpenCV's vectorized last step rounds in float",
                      cv_resize(cv::INTER_CUBIC)}});
        interp_case("resize_lanczos3", p, sc, LUMEN_INTER_LANCZOS3,
                    {{"vips_resize kernel lanczos3", vv, 2, true, false,
                      "libvips' own: downscales box-shrink first, then Lanczos-3 over the rest",
                      [](const Img &s, Img &d) {
                          return vips_run(s, d, [&s, &d](VipsImage *in, VipsImage **t) {
                              return vips_resize(in, &t[0], double(d.w) / s.w, "vscale", double(d.h) / s.h,
                                                 "kernel", VIPS_KERNEL_LANCZOS3, nullptr) ? nullptr : t[0];
                          });
                      }}});
    }
    {
        Case c{"yuv_to_rgb", "NV12 BT.601 limited", {3, 4}};
        c.nv12 = true;
        c.lumen = [](lumen_context *x, Img &s, Img &d) {
            int h = s.h * 2 / 3;
            lumen_yuv_frame f = {LUMEN_YUV_NV12, s.w, h, {s.p, s.p + s.stride * h, nullptr}, {s.stride, s.stride, 0}};
            return lumen_yuv_to_rgb(x, &f, d.li, LUMEN_YUV_BT601_LIMITED);
        };
        c.plain = [](const Img &s, Img &d) { pc_nv12_to_rgb(s.pc(), d.pc()); };
        c.peers = {
            {"cv::cvtColor YUV2RGB(A)_NV12", kCv, 1, false, true, "Q20 coefficients", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::cvtColor(s.mat(), o, d.c == 4 ? cv::COLOR_YUV2RGBA_NV12 : cv::COLOR_YUV2RGB_NV12);
                 return true;
             }},
        };
        v.push_back(c);
    }
    {
        // Camera frame to a half-size preview: Lumen in one pass, the peers convert then resize.
        Case c{"yuv_to_rgb (resize)", "NV12 BT.601 limited, x1/2", {3, 4}, 1, 2};
        c.nv12 = true;
        c.lumen = [](lumen_context *x, Img &s, Img &d) {
            int h = s.h * 2 / 3;
            lumen_yuv_frame f = {LUMEN_YUV_NV12, s.w, h, {s.p, s.p + s.stride * h, nullptr}, {s.stride, s.stride, 0}};
            return lumen_yuv_to_rgb(x, &f, d.li, LUMEN_YUV_BT601_LIMITED);
        };
        c.plain = [](const Img &s, Img &d) {
            Img full(s.w, s.h * 2 / 3, d.c);
            pc_nv12_to_rgb(s.pc(), full.pc());
            pc_resize(full.pc(), d.pc());
        };
        c.peers = {
            {"cv::cvtColor NV12 + cv::resize INTER_LINEAR", kCv, 2, false, true, "two passes", [](const Img &s, Img &d) {
                 cv::Mat rgb, o = d.mat();
                 cv::cvtColor(s.mat(), rgb, d.c == 4 ? cv::COLOR_YUV2RGBA_NV12 : cv::COLOR_YUV2RGB_NV12);
                 cv::resize(rgb, o, o.size(), 0, 0, cv::INTER_LINEAR);
                 return true;
             }},
        };
        v.push_back(c);
    }
    {
        Case c{"rgb_to_yuv", "I420 BT.601 limited", {3, 4}};
        c.i420 = true;
        c.lumen = [](lumen_context *x, Img &s, Img &d) {
            int h = d.h * 2 / 3;
            uint8_t *u = d.p + d.stride * h, *v = u + d.stride / 2 * h / 2;
            lumen_yuv_frame f = {LUMEN_YUV_I420, d.w, h, {d.p, u, v}, {d.stride, d.stride / 2, d.stride / 2}};
            return lumen_rgb_to_yuv(x, s.li, &f, LUMEN_YUV_BT601_LIMITED);
        };
        c.plain = [](const Img &s, Img &d) { pc_rgb_to_i420(s.pc(), d.pc()); };
        c.peers = {
            {"cv::cvtColor RGB(A)2YUV_I420", kCv, 1, true, true,
             "chroma differs: Lumen takes the mean of each 2x2 block", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::cvtColor(s.mat(), o, s.c == 4 ? cv::COLOR_RGBA2YUV_I420 : cv::COLOR_RGB2YUV_I420);
                 return true;
             }},
        };
        v.push_back(c);
    }
    {
        Case c{"flip", "left-right", {1, 3, 4}};
        c.lumen = [](lumen_context *x, Img &s, Img &d) { return lumen_flip(x, s.li, d.li, LUMEN_FLIP_HORIZONTAL); };
        c.peers = {
            {"cv::flip 1", kCv, 0, false, true, "", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::flip(s.mat(), o, 1);
                 return true;
             }},
        };
        v.push_back(c);
    }
    {
        Case c{"rotate", "90 clockwise", {1, 3, 4}};
        c.swap = true;
        c.lumen = [](lumen_context *x, Img &s, Img &d) { return lumen_rotate(x, s.li, d.li, 90); };
        c.peers = {
            {"cv::rotate ROTATE_90_CLOCKWISE", kCv, 0, false, true, "", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::rotate(s.mat(), o, cv::ROTATE_90_CLOCKWISE);
                 return true;
             }},
        };
        v.push_back(c);
    }
    {
        Case c{"threshold", "binary t 127 max 255", {1, 3, 4}};
        c.lumen = [](lumen_context *x, Img &s, Img &d) {
            return lumen_threshold(x, s.li, d.li, 127.0f, 255.0f, LUMEN_THRESH_BINARY);
        };
        c.peers = {
            {"cv::threshold THRESH_BINARY", kCv, 0, false, true, "", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::threshold(s.mat(), o, 127, 255, cv::THRESH_BINARY);
                 return true;
             }},
        };
        v.push_back(c);
    }
    // Morphology: erosion 3x3 (the common case) and an opening 7x7 (two steps, wider windows).
    for (auto m : {std::pair<lumen_morph_op, int>{LUMEN_MORPH_ERODE, 3}, {LUMEN_MORPH_OPEN, 7}}) {
        bool erode = m.first == LUMEN_MORPH_ERODE;
        int k = m.second;
        std::string ks = std::to_string(k) + "x" + std::to_string(k);
        Case c{"morphology", (erode ? "erode " : "open ") + ks, {1, 3, 4}};
        c.lumen = [m](lumen_context *x, Img &s, Img &d) {
            return lumen_morphology(x, s.li, d.li, m.first, m.second, m.second);
        };
        c.peers = {
            {std::string(erode ? "cv::erode " : "cv::morphologyEx MORPH_OPEN ") + ks, kCv, 0, false,
             true, "", [m](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::morphologyEx(s.mat(), o, m.first == LUMEN_MORPH_ERODE ? cv::MORPH_ERODE : cv::MORPH_OPEN,
                                  cv::getStructuringElement(cv::MORPH_RECT, cv::Size(m.second, m.second)));
                 return true;
             }},
        };
        v.push_back(c);
    }
    for (lumen_border bd : {LUMEN_BORDER_CONSTANT, LUMEN_BORDER_REPLICATE}) {
        // An affine warp: rotation by 30 degrees and scale 0.9 about the centre (the matrix of
        // cv::getRotationMatrix2D), bilinear; the same fixed point as OpenCV's.
        bool rep = bd == LUMEN_BORDER_REPLICATE;
        Case c{"warp_affine", std::string("rotate 30 scale 0.9 ") + (rep ? "replicate" : "constant"),
               {1, 3, 4}};
        auto mat = [](const Img &s) {
            return cv::getRotationMatrix2D(cv::Point2f(s.w / 2.0f, s.h / 2.0f), 30.0, 0.9);
        };
        c.lumen = [bd, mat](lumen_context *x, Img &s, Img &d) {
            cv::Mat m = mat(s);
            return lumen_warp_affine(x, s.li, d.li, m.ptr<double>(), 0, bd, nullptr);
        };
        c.peers = {
            {std::string("cv::warpAffine INTER_LINEAR ") + (rep ? "BORDER_REPLICATE" : "BORDER_CONSTANT"),
             kCv, 0, false, true, "", [rep, mat](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::warpAffine(s.mat(), o, mat(s), o.size(), cv::INTER_LINEAR,
                                rep ? cv::BORDER_REPLICATE : cv::BORDER_CONSTANT);
                 return true;
             }},
        };
        v.push_back(c);
    }
    {
        // Table lookup: one table per channel (cv::LUT with a table of the image's channels).
        Case c{"lut", "a table per channel", {1, 3, 4}};
        static uint8_t table[4 * 256];
        for (int i = 0; i < 4 * 256; i++) table[i] = uint8_t(i * 151 + 7);
        c.lumen = [](lumen_context *x, Img &s, Img &d) {
            return lumen_lut(x, s.li, d.li, table, lumen_image_channels(s.li));
        };
        c.peers = {
            {"cv::LUT", kCv, 0, false, true, "", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 int ch = s.mat().channels();
                 std::vector<cv::Mat> planes;
                 for (int k = 0; k < ch; k++) planes.push_back(cv::Mat(1, 256, CV_8U, table + 256 * k));
                 thread_local cv::Mat t;
                 cv::merge(planes, t);
                 cv::LUT(s.mat(), t, o);
                 return true;
             }},
        };
        v.push_back(c);
    }
    {
        // Histogram equalization of a gray image: the histogram, then a table (cv::equalizeHist).
        Case c{"equalize_hist", "gray", {1}};
        c.lumen = [](lumen_context *x, Img &s, Img &d) { return lumen_equalize_hist(x, s.li, d.li); };
        c.peers = {
            {"cv::equalizeHist", kCv, 0, false, true, "", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::equalizeHist(s.mat(), o);
                 return true;
             }},
        };
        v.push_back(c);
    }
    for (int k : {3, 5}) {  // median filters: OpenCV's medianBlur (border replicate, as Lumen's)
        std::string ks = std::to_string(k) + "x" + std::to_string(k);
        Case c{"median", ks, {1, 3, 4}};
        c.lumen = [k](lumen_context *x, Img &s, Img &d) { return lumen_median(x, s.li, d.li, k); };
        c.peers = {
            {"cv::medianBlur " + std::to_string(k), kCv, 0, false, true, "", [k](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::medianBlur(s.mat(), o, k);
                 return true;
             }},
        };
        v.push_back(c);
    }
    for (int k : {3, 15, 31}) {  // box filters: cv::blur (normalized boxFilter, border replicate)
        std::string ks = std::to_string(k) + "x" + std::to_string(k);
        Case c{"box_filter", ks, {1, 3, 4}};
        c.lumen = [k](lumen_context *x, Img &s, Img &d) { return lumen_box_filter(x, s.li, d.li, k, k); };
        c.peers = {
            {"cv::blur " + ks, kCv, 1, false, true, "OpenCV rounds half to even", [k](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::blur(s.mat(), o, cv::Size(k, k), cv::Point(-1, -1), cv::BORDER_REPLICATE);
                 return true;
             }},
        };
        v.push_back(c);
    }
    {
        // Edge-preserving smoothing: Lumen's bilateral grid against cv::bilateralFilter with the
        // same sigmas (its window radius 1.5 sigma_space; an exact bilateral filter, so another
        // result: info only). OpenCV takes 1 and 3 channels.
        Case c{"bilateral", "sigma_space 8, sigma_color 25", {1, 3}};
        c.lumen = [](lumen_context *x, Img &s, Img &d) { return lumen_bilateral(x, s.li, d.li, 8.0f, 25.0f); };
        c.peers = {
            {"cv::bilateralFilter (exact, radius 12)", kCv, 0, true, false, "another algorithm", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::bilateralFilter(s.mat(), o, -1, 25.0, 8.0, cv::BORDER_REPLICATE);
                 return true;
             }},
            {"cv::bilateralFilter (exact, d = 9)", kCv, 0, true, false, "another algorithm, less smoothing", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::bilateralFilter(s.mat(), o, 9, 25.0, 8.0, cv::BORDER_REPLICATE);
                 return true;
             }},
        };
        v.push_back(c);
    }
    for (int k : {3, 5}) {  // a caller's kernel: cv::filter2D / sepFilter2D with the same taps / 2^8
        std::string ks = std::to_string(k) + "x" + std::to_string(k);
        static int16_t taps[25], tx[5] = {-16, 48, 192, 48, -16}, t3[3] = {-32, 320, -32};
        for (int j = 0; j < k * k; j++) taps[j] = int16_t((j * 37) % 61 - 12);
        const int16_t *t1 = k == 3 ? t3 : tx;
        Case c{"filter2d", ks, {1, 3, 4}};
        c.lumen = [k](lumen_context *x, Img &s, Img &d) { return lumen_filter2d(x, s.li, d.li, taps, k, k, 8); };
        c.peers = {
            {"cv::filter2D " + ks, kCv, 1, false, true, "float kernel taps / 256", [k](const Img &s, Img &d) {
                 cv::Mat o = d.mat(), kf(k, k, CV_32F);
                 for (int j = 0; j < k * k; j++) kf.at<float>(j / k, j % k) = taps[j] / 256.0f;
                 cv::filter2D(s.mat(), o, -1, kf, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
                 return true;
             }},
        };
        v.push_back(c);
        Case cs{"sep_filter", ks, {1, 3, 4}};
        cs.lumen = [k, t1](lumen_context *x, Img &s, Img &d) { return lumen_sep_filter(x, s.li, d.li, t1, k, t1, k, 16); };
        cs.peers = {
            {"cv::sepFilter2D " + ks, kCv, 1, false, true, "float taps / 256 each", [k, t1](const Img &s, Img &d) {
                 cv::Mat o = d.mat(), kf(k, 1, CV_32F);
                 for (int j = 0; j < k; j++) kf.at<float>(j) = t1[j] / 256.0f;
                 cv::sepFilter2D(s.mat(), o, -1, kf, kf, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
                 return true;
             }},
        };
        v.push_back(cs);
    }
    {
        // OpenCV's default border, BORDER_REFLECT_101: Lumen through the context's border (a copy
        // of the source with its border, then the pipeline), against cv::GaussianBlur's default.
        Case c{"gaussian_blur (reflect-101)", "sigma 2", {1, 3, 4}};
        c.lumen = [](lumen_context *x, Img &s, Img &d) {
            lumen_status st = lumen_context_set_border(x, LUMEN_BORDER_REFLECT_101, nullptr);
            if (!st) st = lumen_gaussian_blur(x, s.li, d.li, 2.0f);
            lumen_context_set_border(x, LUMEN_BORDER_REPLICATE, nullptr);
            return st;
        };
        c.peers = {
            {"cv::GaussianBlur 13x13 BORDER_DEFAULT", kCv, 2, false, true, "", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::GaussianBlur(s.mat(), o, cv::Size(13, 13), 2.0, 2.0, cv::BORDER_REFLECT_101);
                 return true;
             }},
        };
        v.push_back(c);
    }
    {
        // A region of interest: the centre half (w/2 x h/2 at w/4, h/4) of the source, blurred
        // into its own image; Lumen through lumen_image_view, OpenCV through a cv::Mat ROI (which
        // reads the parent's pixels around it, as Lumen's view does).
        Case c{"gaussian_blur (view)", "sigma 2, centre ROI", {1, 3, 4}, 1, 2};
        c.lumen = [](lumen_context *x, Img &s, Img &d) {
            lumen_image *roi = nullptr;
            lumen_status st = lumen_image_view(s.li, s.w / 4, s.h / 4, d.w, d.h, 0, &roi);
            if (!st) st = lumen_gaussian_blur(x, roi, d.li, 2.0f);
            lumen_image_destroy(roi);
            return st;
        };
        c.peers = {
            {"cv::Mat ROI + cv::GaussianBlur 13x13", kCv, 2, false, true, "", [](const Img &s, Img &d) {
                 cv::Mat o = d.mat();
                 cv::GaussianBlur(s.mat()(cv::Rect(s.w / 4, s.h / 4, d.w, d.h)), o, cv::Size(13, 13), 2.0, 2.0,
                                  cv::BORDER_REPLICATE);
                 return true;
             }},
        };
        v.push_back(c);
    }
    return v;
}

void set_threads(int t) {
    lumen_set_num_threads(t);
    cv::setNumThreads(t);
    pc_set_threads(t);
    vips_concurrency_set(t);
}

void bench_pipelines(lumen_context *ctx, const std::vector<int> &threads) {
    for (const Case &cs : cases()) {
        if (!only.empty() && only != cs.name) continue;
        for (Size sz : sizes)
            for (int c : cs.channels) {
                Img src(sz.w, cs.nv12 ? sz.h * 3 / 2 : sz.h, cs.nv12 ? 1 : c);
                src.fill();
                // A video frame's samples are 16..235 (OpenCV takes Y < 16 as 16, Lumen keeps it)
                for (size_t i = 0; cs.nv12 && i < src.bytes(); i++) src.p[i] = uint8_t(16 + src.p[i] * 219 / 255);
                int ow = int(int64_t(sz.w) * cs.num / cs.den), oh = int(int64_t(sz.h) * cs.num / cs.den);
                int oc = cs.to_gray ? 1 : c;
                if (cs.swap) std::swap(ow, oh);
                if (cs.i420) oh = oh * 3 / 2, oc = 1;
                Img lo(ow, oh, oc), po(ow, oh, oc);
                std::string size = std::to_string(sz.w) + "x" + std::to_string(sz.h), fmt = fmt_name(c);
                for (int t : threads) {
                    set_threads(t);
                    lumen_status st = LUMEN_OK;
                    double lm = median_ms([&] { st = cs.lumen(ctx, src, lo); });
                    if (st) std::fprintf(stderr, "%s: %s\n", cs.name.c_str(), lumen_last_error());
                    auto emit = [&](const std::string &other, const std::string &ver, double om, int diff, int tol,
                                    bool ok, bool info, const std::string &note) {
                        std::string m = st ? "FAIL" : !ok || diff > tol ? (info ? "differs" : "FAIL") : "ok";
                        row("pipeline", cs.name, cs.params, size, fmt, t, lm, om, other, ver, m, diff, tol, om / lm,
                            "x peer/Lumen", NA, note);
                    };
                    if (all_peers && cs.plain) {
                        memset(po.p, 0, po.bytes());
                        double pm = median_ms([&] { cs.plain(src, po); }, lm);
                        emit("plain C -O3", "GCC " __VERSION__, pm, lo.max_diff(po), 0, true, false,
                             "-march=native, OpenMP rows");
                    }
                    for (const Peer &p : cs.peers) {
                        if (!all_peers && !p.every_variant) continue;
                        Img co(ow, oh, oc);
                        bool ok = true;
                        double cm = median_ms([&] { ok = p.run(src, co) && ok; }, lm);
                        emit(p.name, p.version, cm, lo.max_diff(co), p.tol, ok, p.info, p.note);
                    }
                }
            }
    }
}

// Roofline: memcpy and a copy loop (bytes read + written), a read-only sum, over 512 MiB in
// 8 MiB calls, each the fastest of >= 21 calls; the roofline is the faster copy. Then the point ops
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
    std::string mib = std::to_string(n >> 20) + " MiB";
    for (int t : threads) {
        pc_set_threads(t);
        lumen_set_num_threads(t);
        // Each probe call moves one 8 MiB chunk (a 4K gray image), rotating over the buffer.
        size_t ck = size_t(8) << 20, nc = n / ck, i = 0;
        double cp = best_ms([&] { i = (i + 1) % nc, bw_copy(b + i * ck, a + i * ck, ck); });
        double lc = best_ms([&] { i = (i + 1) % nc, bw_loop_copy(b + i * ck, a + i * ck, ck, 0); });
        volatile uint64_t sink = 0;
        double rd = best_ms([&] { i = (i + 1) % nc, sink = sink + bw_read(a + i * ck, ck); });
        double copy_gbs = 2.0 * ck / std::min(cp, lc) / 1e6, read_gbs = double(ck) / rd / 1e6;
        row("bandwidth", "memcpy", "", mib, "", t, cp, NA, "", "", "", -1, -1, 2.0 * ck / cp / 1e6, "GB/s", NA, "");
        row("bandwidth", "copy loop", "", mib, "", t, lc, NA, "", "", "", -1, -1, 2.0 * ck / lc / 1e6, "GB/s", NA, "");
        row("bandwidth", "read", "", mib, "", t, rd, NA, "", "", "", -1, -1, read_gbs, "GB/s", NA, "");
        row("bandwidth", "roofline (faster copy)", "", mib, "", t, NA, NA, "", "", "", -1, -1, copy_gbs, "GB/s", NA,
            "");
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
            double bytes = double(s0.bytes()) + double(d0.bytes()), gbs = bytes / lm / 1e6;
            row("pointop", k.name, "", "3840x2160", k.fmt, t, lm, pm, "plain C -O3", "", "", -1, -1, gbs, "GB/s",
                gbs / copy_gbs, "");
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
        int calls = quick ? 2000 : side == 1 ? 100000 : 10000;
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
            std::string sz = std::to_string(side) + "x" + std::to_string(side);
            row("dispatch", "levels", "", sz, "gray", t, lu[3] / 1e6, di[3] / 1e6, "direct Halide call", "", "", -1, -1,
                lu[3] - di[3], "ns/call", NA, "");
        }
    }
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUT.csv [--quick] [--only=PIPELINE] [--budget=S] [--peers=opencv] "
                             "[--sizes=WxH,...]\n", argv[0]);
        return 2;
    }
    if (VIPS_INIT(argv[0])) return 1;
    vips_cache_set_max(0);  // every call computes
    for (int i = 2; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--quick") quick = true, budget_s = 0.02;
        else if (a.rfind("--only=", 0) == 0) only = a.substr(7);
        else if (a.rfind("--budget=", 0) == 0) budget_s = std::atof(a.c_str() + 9);
        else if (a == "--peers=opencv") all_peers = false;
        else if (a.rfind("--sizes=", 0) == 0) {
            sizes.clear();
            for (size_t p = 8; p < a.size();) {
                size_t e = a.find(',', p);
                if (e == std::string::npos) e = a.size();
                int w = 0, h = 0;
                std::sscanf(a.c_str() + p, "%dx%d", &w, &h);
                sizes.push_back({w, h});
                p = e + 1;
            }
        } else {
            std::fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    csv = std::fopen(argv[1], "w");
    if (!csv) return 1;
    lumen_context *ctx;
    if (lumen_context_create(LUMEN_BACKEND_CPU, &ctx) != LUMEN_OK) return 1;
    variant = lumen_cpu_variant();
    std::fprintf(csv, "# lumen %s, cpu variant %s, OpenCV %s (CPU: %s; IPP: %s), libvips %s, %s\n",
                 lumen_version_string(), variant.c_str(), CV_VERSION, cv::getCPUFeaturesLine().c_str(),
                 cv::ipp::useIPP() ? cv::ipp::getIppVersion().c_str() : "not used", vips_version_string(),
                 LUMEN_BENCH_INFO);
    std::fprintf(csv, "section,name,params,size,format,threads,variant,lumen_ms,other_ms,other,other_version,match,"
                      "max_diff,tol,value,unit,fraction,note\n");
    std::vector<int> threads = {1, 2};
    double t0 = now_ms();
    if (only.empty() || only == "dispatch") bench_dispatch(ctx, threads);
    if (only.empty()) bench_bandwidth(ctx, threads);
    if (only != "dispatch") bench_pipelines(ctx, threads);
    std::fprintf(stderr, "lumen_bench (%s): %.0f s\n", variant.c_str(), (now_ms() - t0) / 1e3);
    lumen_context_destroy(ctx);
    vips_shutdown();
    return std::fclose(csv) != 0;
}
