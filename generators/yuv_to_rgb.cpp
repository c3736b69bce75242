// yuv_to_rgb: a 4:2:0 camera frame (Y plane; U and V at half width and height, each sample
// covering 2x2 pixels) to interleaved RGB / BGR (3 channels) or RGBA / BGRA (4, alpha 255).
// In 16-bit lanes, with the C wrapper's coefficients (lumen.h documents them: cy in Q14, the
// others in Q13), u = U - 128, v = V - 128 and m(a, k, s) = ((a << s) k + 2^14) >> 15 (one
// pmulhrsw; = (a k + 2^(14 - s)) >> (15 - s)): Yt = m(Y - y_offset, cy, 7) + 32, then
//   R = (Yt + m(v, crv, 8)) >> 6, G = (Yt - m(u, cgu, 8) - m(v, cgv, 8)) >> 6,
//   B = (Yt + m(u, cbu, 8)) >> 6, each clamped to 0..255. Every term fits in 16 bits; the one
// sum that may not is saturating, which the clamp makes exact.
// U and V may be planes of their own (I420) or the two halves of one interleaved plane (NV12,
// NV21: x stride 2); the CPU schedule is specialized on that stride so loads stay dense.
#include "common.h"

namespace {
using namespace Halide;

// m() above.
Expr mul(Expr a, Expr k, int shift) {
    return rounding_mul_shift_right(cast<int16_t>(a) << shift, cast<int16_t>(k), 15);
}

// A chroma sample's terms of channels 0, 1 (G, subtracted) and 2: R and B, or (bgr) B and R.
template <typename In>
Tuple chroma_terms(Expr cb, Expr cr, Expr bgr, const In &crv, const In &cgu, const In &cgv,
                   const In &cbu) {
    Expr u = cast<int16_t>(cb) - 128, v = cast<int16_t>(cr) - 128;
    Expr r = mul(v, crv, 8), b = mul(u, cbu, 8);
    return {select(bgr, b, r), mul(u, cgu, 8) + mul(v, cgv, 8), select(bgr, r, b)};
}

// A pixel's Yt (above).
Expr luma_term(Expr luma, Expr y_offset, Expr cy) {
    return mul(cast<int16_t>(luma) - cast<int16_t>(y_offset), cy, 7) + 32;
}
// Channel k (0, 1, 2) of a pixel from its Yt and its chroma sample's term k.
Expr channel(Expr yt, Expr term, int k) {
    Expr e = k == 1 ? saturating_sub(yt, term) : saturating_add(yt, term);
    return saturating_cast<uint8_t>(e >> 6);
}

class YuvToRgb : public Generator<YuvToRgb> {
public:
    Input<Buffer<uint8_t>> luma{"luma", 2};
    Input<Buffer<uint8_t>> cb{"cb", 2};  // U
    Input<Buffer<uint8_t>> cr{"cr", 2};  // V
    Input<int32_t> y_offset{"y_offset"};
    Input<int32_t> cy{"cy"}, crv{"crv"}, cgu{"cgu"}, cgv{"cgv"}, cbu{"cbu"};
    Input<bool> bgr{"bgr"};  // output channel 0 is B, 2 is R
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y");
        // Per chroma sample (half width and height) its terms of R, G and B, stored twice (j = 0,
        // 1: the two pixels it covers), so pixel x reads them at up(x % 2, x / 2), which is
        // address x: dense vector loads, no gathers.
        Func up("up");
        Var j("j");
        up(j, x, y) = chroma_terms(cb(x, y), cr(x, y), bgr, crv, cgu, cgv, cbu);
        Expr yt = luma_term(luma(x, y), y_offset, cy);
        auto ch = [&](int k) { return channel(yt, up(x % 2, x / 2, y / 2)[k], k); };
        output(c, x, y) = select(c == 0, ch(0), c == 1, ch(1), c == 2, ch(2), cast<uint8_t>(255));

        lumen::interleaved(output);
        lumen::planes_420(luma, cb, cr);
        Expr channels = output.dim(0).extent();
        const Target &t = get_target();
        if (t.has_gpu_feature()) {
            lumen::schedule_interleaved(output, channels, output.dim(1).extent(), t, c, x, y,
                                        natural_vector_size<uint8_t>(), {3, 4});
            return;
        }
        // Per channel count and chroma stride (1: I420, 2: NV12 / NV21): channels unrolled, x
        // vectorized, strips of rows in parallel, two rows (one chroma row) per iteration.
        Var yo("yo"), yi("yi"), yu("yu");
        int vec = natural_vector_size<uint8_t>() * 2;
        for (int k : {3, 4}) {
            for (int stride : {1, 2}) {
                Stage s = output.specialize(channels == k && cb.dim(0).stride() == stride &&
                                            cr.dim(0).stride() == stride);
                s.reorder(c, x, y)
                    .split(y, yo, yi, lumen::kRowsPerTask, TailStrategy::GuardWithIf)
                    .split(yi, yi, yu, 2)
                    .reorder(c, x, yu, yi, yo)
                    .parallel(yo)
                    .unroll(c);
                // GuardWithIf, not ShiftInwards: a shifted vector may start at an odd x.
                s.vectorize(x, vec, TailStrategy::GuardWithIf);
            }
        }
        output.specialize_fail("lumen: unsupported channel count or chroma stride");
        // The chroma row's terms once per pair of rows; j unrolled, so each term is written as
        // two stride-2 stores that Halide merges into one interleaving store.
        up.compute_at(output, yi)
            .bound(j, 0, 2)
            .reorder(j, x, y)
            .unroll(j)
            .vectorize(x, vec / 2, TailStrategy::GuardWithIf);
    }
};

// yuv_to_rgb_resize: the frame converted as above, then resized as resize.cpp does (the same
// taps and integers, out = (wy0 (wx0 p00 + wx1 p01) + wy1 (...) + 2^21) >> 22), in one pass: bit
// for bit lumen_resize of the frame-size conversion, with no full-size RGB image. CPU: per output
// row, its two source rows converted (4 bytes a pixel, as yuv_to_rgb converts) and blended into a
// flat row, then resize.cpp's general CPU path (a table of two taps per output byte), or for an
// exact halving a 2x2 mean of the converted rows; GPU: all inline.
class YuvToRgbResize : public Generator<YuvToRgbResize> {
public:
    Input<Buffer<uint8_t>> luma{"luma", 2};
    Input<Buffer<uint8_t>> cb{"cb", 2};
    Input<Buffer<uint8_t>> cr{"cr", 2};
    Input<int32_t> y_offset{"y_offset"};
    Input<int32_t> cy{"cy"}, crv{"crv"}, cgu{"cgu"}, cgv{"cgv"}, cbu{"cbu"};
    Input<bool> bgr{"bgr"};
    Input<int> out_width{"out_width"};  // = the output's extents (needed before it is defined)
    Input<int> out_height{"out_height"};
    Input<int> out_channels{"out_channels"};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y"), i("i"), j("j"), k("k"), f("f"), o("o");
        Expr w = luma.dim(0).extent(), h = luma.dim(1).extent();
        Expr channels = out_channels, half = w == 2 * out_width && h == 2 * out_height;
        Func xs("xs"), ys("ys"), up("up"), conv("conv"), v("v"), vf("vf"), ot("ot");
        lumen::resize_taps(xs, i, w, out_width);
        lumen::resize_taps(ys, i, h, out_height);
        auto in = [](Expr e, Expr n) { return unsafe_promise_clamped(e, 0, n - 1); };
        // Indexed by output row y and k = 0, 1: its two source rows (and their chroma rows), so
        // that computing them per output row computes just those. (A clamp, not a promise: a
        // promise is an impure call, which keeps Halide from merging conv's per-channel stores
        // into one interleaving store.)
        Expr yk = clamp(select(k == 0, ys(y)[0], ys(y)[1]), 0, h - 1);
        // The chroma terms stored twice, as yuv_to_rgb does (dense loads at address x).
        up(j, x, k, y) = chroma_terms(cb(x, yk / 2), cr(x, yk / 2), bgr, crv, cgu, cgv, cbu);
        Expr yt = luma_term(luma(x, yk), y_offset, cy);
        auto ch = [&](int t) { return channel(yt, up(x % 2, x / 2, k, y)[t], t); };
        conv(c, x, k, y) = select(c == 0, ch(0), c == 1, ch(1), c == 2, ch(2), cast<uint8_t>(255));

        Expr wy1 = ys(y)[2], wy0 = 2048 - wy1;
        auto row = [&](Expr cc, Expr xx, int kk) { return cast<int32_t>(conv(cc, xx, kk, y)); };
        const Target &t = get_target();
        if (t.has_gpu_feature()) {
            Expr wx1 = xs(x)[2], wx0 = 2048 - wx1;
            v(c, x, y) = wy0 * row(c, x, 0) + wy1 * row(c, x, 1);
            Expr sum = wx0 * v(c, in(xs(x)[0], w), y) + wx1 * v(c, in(xs(x)[1], w), y);
            output(c, x, y) = cast<uint8_t>((sum + (1 << 21)) >> 22);
        } else {
            // Flat rows of 4 bytes a pixel (f = 4 x + c: dense for 3 channels too) and, per output
            // byte o (= channels x + c), its two taps there and the weight of the second.
            vf(f, y) = wy0 * row(f % 4, f / 4, 0) + wy1 * row(f % 4, f / 4, 1);
            Expr ox = o / channels, oc = o % channels;
            ot(o) = {xs(ox)[0] * 4 + oc, xs(ox)[1] * 4 + oc, xs(ox)[2]};
            auto tap = [&](int n) { return vf(in(ot(channels * x + c)[n], 4 * w), y); };
            Expr w1 = ot(channels * x + c)[2];
            Expr sum = (2048 - w1) * tap(0) + w1 * tap(1);
            // Exact halving both ways: the taps are pixels 2x, 2x + 1 of rows 2y, 2y + 1, weights
            // 1024 each, so the integer is exactly (their sum + 2) >> 2 (resize.cpp's K = 2).
            auto p = [&](int dx, int kk) { return cast<uint16_t>(conv(c, 2 * x + dx, kk, y)); };
            Expr box = cast<uint8_t>((p(0, 0) + p(1, 0) + p(0, 1) + p(1, 1) + 2) >> 2);
            output(c, x, y) = select(half, box, cast<uint8_t>((sum + (1 << 21)) >> 22));
        }

        lumen::interleaved(output);
        lumen::planes_420(luma, cb, cr);
        output.dim(0).set_extent(out_channels);
        output.dim(1).set_extent(out_width);
        output.dim(2).set_extent(out_height);
        int vec32 = natural_vector_size<int32_t>();
        if (!t.has_gpu_feature()) {
            Stage s = output.specialize(half);
            lumen::schedule_interleaved_impl(s, channels, out_width, t, c, x, y,
                                             natural_vector_size<uint16_t>(), {3, 4},
                                             TailStrategy::GuardWithIf, false, 1, channels);
            s.specialize_fail("lumen: unsupported channel count");
        }
        lumen::schedule_interleaved(output, channels, out_width, t, c, x, y, vec32, {3, 4},
                                    TailStrategy::GuardWithIf, !t.has_gpu_feature(), 1, channels);
        if (t.has_gpu_feature()) return;
        xs.compute_root();
        ys.compute_root();
        ot.compute_root();
        // Per output row: its (one or two) chroma rows' terms, its two source rows converted
        // (channels unrolled, x vectorized, as yuv_to_rgb), their blend vf; then the row's taps.
        int vec = natural_vector_size<uint8_t>();
        Var yo("yo"), yi("yi");
        up.store_at(output, yo)
            .compute_at(output, yi)
            .bound(j, 0, 2)
            .bound(k, 0, 2)
            .reorder(j, x, k, y)
            .unroll(j)
            .vectorize(x, vec / 2, TailStrategy::GuardWithIf);
        for (int stride : {1, 2})  // dense chroma loads (I420; NV12 / NV21)
            up.specialize(cb.dim(0).stride() == stride && cr.dim(0).stride() == stride);
        conv.store_at(output, yo)
            .compute_at(output, yi)
            .bound(c, 0, 4)
            .bound(k, 0, 2)
            .reorder(c, x, k, y)
            .unroll(k)
            .unroll(c)
            .vectorize(x, vec, TailStrategy::GuardWithIf);
        vf.store_at(output, yo)
            .compute_at(output, yi)
            .vectorize(f, natural_vector_size<int32_t>(), TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(YuvToRgb, lumen_yuv_to_rgb)
HALIDE_REGISTER_GENERATOR(YuvToRgbResize, lumen_yuv_to_rgb_resize)
