// The separable integer Gaussian shared by gaussian_blur and unsharp_mask, all in 16-bit lanes.
// Taps w[0..2r] are Q16 (they sum to 65536) and symmetric (w[r - j] = w[r + j]), computed by the
// C wrapper (sdk/src/kernel.c). With mulhi(a, b) = (a * b) >> 16 (u16; one vpmulhuw) and
// comp = (r + 1) >> 1 (half the r + 1 truncated terms, so the sums are not biased low):
//   s(x)  = in(x) << 7                                                   (u16, Q7)
//   h     = comp + mulhi(s(x), w[r]) + sum_{j=1..r} mulhi(s(x - j) + s(x + j), w[r + j])   (Q7)
//   v     = comp + mulhi(h(y), w[r]) + sum_{j=1..r} mulhi(h(y - j) + h(y + j), w[r + j])   (Q7)
//   out   = min((v + 64) >> 7, 255)                                        (u8)
// Borders clamp to the edge. No sum overflows 16 bits: h, v <= 32640 + comp, pairs <= 65328.
// On the CPU each row is one flat signal of channels * width values (i = channels * x + c; a
// horizontal tap j is i +- channels * j), so every vector load and store is dense for 1, 3 and 4
// channels: no deinterleave, no strided or byte-by-byte stores. GPU threads index (c, x, y), as
// a flat index would cost a division per tap there. Same integers either way.
#pragma once

#include "common.h"

namespace lumen {

// Both blurs on a GPU: the horizontal pass hx per block of the output's 32 x 64 tiles, in the
// block's shared (local) memory: 32 x (64 + 2 radius) values per channel, by the block's 32 x 8
// threads, (64 + 2 radius) / 8 rows each; hsum per hx value, vsum per thread and row ("yu"). No
// full-size intermediate, so any image that fits in the device runs.
inline void schedule_blur_gpu(Func output, Func hsum, Func hx, Func vsum, Var c, Var x, Var y) {
    Var yi("yi"), ys("ys");
    hx.compute_at(output, Var("xo"))
        .split(y, ys, yi, 8, TailStrategy::GuardWithIf)
        .reorder(c, x, yi, ys)
        .gpu_threads(x, yi)
        .unroll(c);
    hsum.compute_at(hx, x);
    vsum.compute_at(output, Var("yu"));
}

struct GaussianBlur {
    // Output rows per iteration of the CPU schedule's row loop: the vertical taps load each hx
    // row once for both (L2 bandwidth bounds that pass).
    static constexpr int kRows = 2;
    // Rows per GPU thread (tiles of 32 x 64 outputs): the block's hx rows, 64 + 2 radius, are
    // shared by 64 output rows (8 + 2 radius by 8 before). H200, 4K: RGB sigma 2 0.61 -> 0.34 ms,
    // gray sigma 6 0.70 -> 0.27 ms (4 rows: 0.37, 0.33). hx at sigma 16 RGBA: 40 KB of shared.
    static constexpr int kGpuRows = 8;
    Func src{"src"}, hsum{"hsum"}, hx{"hx"}, vsum{"vsum"};
    Var c{"c"}, x{"x"}, i{"i"}, y{"y"};
    RDom r;
    Expr channels, radius;
    bool flat;

    // input(c, x, y): interleaved u8, clamped to x in [x0, x1], y in [y0, y1]; flat: the CPU
    // layout (Funcs of (i, y)), else (c, x, y).
    GaussianBlur(Func input, Expr channels, Expr x0, Expr x1, Expr y0, Expr y1, Func w, Expr radius,
                 bool flat)
        : r(1, radius, "r"), channels(channels), radius(radius), flat(flat) {
        Expr comp = cast<uint16_t>((radius + 1) / 2);
        auto mulhi = [](Expr a, Expr b) { return mul_shift_right(a, b, 16); };
        auto at = [&](Func f, Expr dx, Expr dy) {
            return flat ? f(i + channels * dx, y + dy) : f(c, x + dx, y + dy);
        };
        std::vector<Var> a = flat ? std::vector<Var>{i, y} : std::vector<Var>{c, x, y};
        // Clamp-to-edge keeps the channel; likely() lets Halide peel the edges off so the
        // interior is a dense copy.
        auto xc = [&](Expr xx) { return clamp(likely(xx), x0, x1); };
        Expr yc = clamp(likely(y), y0, y1);
        Expr in = flat ? input(i % channels, xc(i / channels), yc) : input(c, xc(x), yc);
        src(a) = cast<uint16_t>(in) << 7;
        hsum(a) = comp + mulhi(at(src, 0, 0), w(radius));
        hsum(a) += mulhi(at(src, -r, 0) + at(src, r, 0), w(radius + r));
        hx(a) = hsum(a);
        vsum(a) = comp + mulhi(at(hx, 0, 0), w(radius));
        vsum(a) += mulhi(at(hx, 0, -r) + at(hx, 0, r), w(radius + r));
    }

    // The unrounded blur (Q7, u16) and the blur (u8) at channel cc of pixel (xx, yy).
    Expr q7(Expr cc, Expr xx, Expr yy) {
        return flat ? vsum(channels * xx + cc, yy) : vsum(cc, xx, yy);
    }
    Expr u8(Expr cc, Expr xx, Expr yy) {
        return cast<uint8_t>(min((q7(cc, xx, yy) + 64) >> 7, 255));
    }

    // Schedules the producers of `output` (c, x, y), which schedule_interleaved has scheduled
    // (CPU: with fuse_cx, one dense loop "cx" per row).
    void schedule(Func output, const Target &t, int vec) {
        if (t.has_gpu_feature()) return schedule_blur_gpu(output, hsum, hx, vsum, c, x, y);
        // Each input row is widened and clamp-padded once (the taps then read it with no
        // clamps); hx slides down each strip of rows, kRows new rows per iteration.
        LoopLevel strip(output, Var("yo"));
        hoist(src, strip).compute_at(hx, y).vectorize(i, vec);
        hx.store_at(strip).compute_at(output, Var("yi")).vectorize(i, vec);
        hoist(hsum, strip).compute_at(hx, y).vectorize(i, vec);
        taps(hsum.update(), vec);
        // kRows rows of vsum per iteration, not per vector of the fused loop "cx": bounds
        // inference cannot see that channels * (cx / channels) + cx % channels is cx (36
        // predicated lanes per 32 for RGB).
        hoist(vsum, strip).compute_at(output, Var("yi")).vectorize(i, vec);
        taps(vsum.update(), vec);
    }

    // A row's tap loop: per vector of the row, all taps (one accumulator in a register); the
    // common small radii (sigma <= 2.67) unrolled, without the loop's exit branch per vector.
    void taps(Stage s, int vec) {
        Var io("io"), ii("ii");
        for (int k = 2; k <= 8; k++) {
            s.specialize(radius == k)
                .split(i, io, ii, vec)
                .reorder(ii, y, r, io)
                .vectorize(ii)
                .unroll(y)
                .unroll(r);
        }
        s.split(i, io, ii, vec).reorder(ii, y, r, io).vectorize(ii).unroll(y);
    }
};

// The blur of 16-bit and float images (the _u16 and _f32 generators of gaussian_blur and
// unsharp_mask): the same Q16 taps w[0..2r], interleaved (c, x, y), clamp-to-edge at [x0, x1] x
// [y0, y1], rows first, then columns on the rows' result p:
//   u16: (w[r] p(0) + sum_{j=1..r} w[r + j] (p(-j) + p(j)) + 2^15) >> 16 in 32 bits (no sum
//        overflows: the taps sum to 2^16), the rows' result rounded the same way: exact;
//   f32: the same sum in float with taps w / 65536, j ascending, no rounding.
template <typename T>
struct WideBlur {
    static constexpr bool is_float = std::is_floating_point<T>::value;
    Func src{"src"}, hsum{"hsum"}, hx{"hx"}, vsum{"vsum"};
    Var c{"c"}, x{"x"}, y{"y"};
    RDom r;

    WideBlur(Func input, Expr x0, Expr x1, Expr y0, Expr y1, Func w, Expr radius)
        : r(1, radius, "r") {
        using A = typename std::conditional<is_float, float, uint32_t>::type;
        // The input row widened and clamp-padded once (CPU: per row; the taps read it unclamped).
        src(c, x, y) = cast<A>(input(c, clamp(likely(x), x0, x1), clamp(likely(y), y0, y1)));
        auto in = [&](Expr xx) { return src(c, xx, y); };
        auto tap = [&](Expr k) {
            return is_float ? cast<float>(w(k)) * (1.0f / 65536) : cast<uint32_t>(w(k));
        };
        Expr round = is_float ? Expr(0.0f) : Expr(uint32_t(1 << 15));
        hsum(c, x, y) = tap(radius) * in(x) + round;
        hsum(c, x, y) += tap(radius + r) * (in(x - r) + in(x + r));
        hx(c, x, y) = is_float ? hsum(c, x, y) : cast<A>(cast<T>(hsum(c, x, y) >> 16));
        vsum(c, x, y) = tap(radius) * hx(c, x, y) + round;
        vsum(c, x, y) += tap(radius + r) * (hx(c, x, y - r) + hx(c, x, y + r));
    }

    Expr value(Expr cc, Expr xx, Expr yy) {  // the blur at (cc, xx, yy), as A (u32 or float)
        return is_float ? vsum(cc, xx, yy) : vsum(cc, xx, yy) >> 16;
    }

    // A wide generator's constraints and schedule, once `output` (c, x, y) is defined: input (a
    // view's pixels around it too) and output interleaved, output in input's channels, the taps.
    template <typename In, typename Out, typename W>
    void finish(In &input, Out &output, W &weights, Expr radius, const Target &t) {
        interleaved(input, false);
        interleaved(output);
        output.dim(0).set_extent(input.dim(0).extent());
        weights.dim(0).set_bounds(0, 2 * radius + 1);
        int vec = t.natural_vector_size<float>();
        schedule_interleaved(output, input.dim(0).extent(), output.dim(1).extent(), t, c, x, y, vec,
                             {1, 3, 4}, TailStrategy::GuardWithIf, false, 1, Expr(),
                             GaussianBlur::kGpuRows);
        schedule(output, t, vec);
    }

    // Producers of `output`, scheduled by schedule_interleaved (not fused; GPU: gpu_rows rows
    // per thread, loop "yu").
    void schedule(Func output, const Target &t, int vec) {
        if (t.has_gpu_feature()) return schedule_blur_gpu(output, hsum, hx, vsum, c, x, y);
        // Per strip of rows, hx slides down (one new row per output row); rows vectorized in x,
        // stored planar (x innermost) so the sums' loads and stores are dense.
        for (Func f : {src, hsum, hx, vsum}) f.reorder_storage(x, c, y);
        LoopLevel strip(output, Var("yo"));
        hoist(src, strip)
            .compute_at(hx, y)
            .reorder(x, c, y)
            .vectorize(x, vec, TailStrategy::GuardWithIf);
        hx.store_at(strip)
            .compute_at(output, Var("yi"))
            .reorder(x, c, y)
            .vectorize(x, vec, TailStrategy::GuardWithIf);
        hoist(hsum, strip)
            .compute_at(hx, y)
            .reorder(x, c, y)
            .vectorize(x, vec, TailStrategy::GuardWithIf);
        hsum.update().reorder(x, c, r, y).vectorize(x, vec, TailStrategy::GuardWithIf);
        hoist(vsum, strip)
            .compute_at(output, Var("yi"))
            .reorder(x, c, y)
            .vectorize(x, vec, TailStrategy::GuardWithIf);
        vsum.update().reorder(x, c, r, y).vectorize(x, vec, TailStrategy::GuardWithIf);
    }
};

}  // namespace lumen
