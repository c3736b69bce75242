// resize: bilinear, pixel centres aligned like OpenCV INTER_LINEAR, in exact integer arithmetic.
// For output column x: s = ((2x + 1) * in_w - out_w) / (2 out_w) (negative -> 0), x0 = floor(s),
// x1 = min(x0 + 1, in_w - 1), wx1 = round(frac(s) * 2048), wx0 = 2048 - wx1; rows likewise;
// out = (wy0 (wx0 p00 + wx1 p01) + wy1 (wx0 p10 + wx1 p11) + 2^21) >> 22.
#include "common.h"

namespace {
using namespace Halide;

class Resize : public Generator<Resize> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Input<int> out_width{"out_width"};  // = the output's extents (needed before it is defined)
    Input<int> out_height{"out_height"};
    Input<bool> pairs{"pairs"};  // CPU, exact doubling: the output is given as pixel pairs
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y"), i("i");
        Func xs("xs"), ys("ys");  // per column / row: {first tap, second tap, Q11 weight of second}
        lumen::resize_taps(xs, i, input.dim(1).extent(), out_width);
        lumen::resize_taps(ys, i, input.dim(2).extent(), out_height);

        // Rows first, then columns: the same exact integer as the formula above (no rounding in
        // between), so each output row needs one blended input row v and two taps into it.
        auto in = [&](Expr yy) {  // taps are in range by construction; tell Halide so
            yy = unsafe_promise_clamped(yy, 0, input.dim(2).extent() - 1);
            return cast<int32_t>(input(c, x, yy));
        };
        auto at = [&](Expr xx) { return unsafe_promise_clamped(xx, 0, input.dim(1).extent() - 1); };
        Expr wx1 = xs(x)[2], wx0 = 2048 - wx1, wy1 = ys(y)[2], wy0 = 2048 - wy1;
        Func v("v");  // Q11 blend of the two source rows, at full input width
        v(c, x, y) = wy0 * in(ys(y)[0]) + wy1 * in(ys(y)[1]);
        Expr sum = wx0 * v(c, at(xs(x)[0]), y) + wx1 * v(c, at(xs(x)[1]), y);
        Expr general = cast<uint8_t>((sum + (1 << 21)) >> 22);

        // Exact downscales by K = 2, 3, 4 (in = K out both ways; thumbnails): the taps are Kx + o0
        // and Kx + o1 with o0 = (K - 1) / 2, o1 = K / 2, weights 1024 each (K even) or 2048 and 0
        // (K odd), so the formula is exactly (p00 + p01 + p10 + p11 + 2) >> 2 over those taps
        // (the one pixel, for K odd). On the CPU, channels and x are vectorized together: each
        // tap is a strided byte load that LLVM deinterleaves with shuffles, and the store is
        // dense. For 3 channels and K = 2, the two source rows are summed first (u16, one flat
        // row of all channels): 2x faster there, slower elsewhere (docs/performance.md).
        Expr channels = input.dim(0).extent();
        Var j("j");
        auto flat = [&](Expr jj, Expr yy) {
            return cast<uint16_t>(input(jj % channels, jj / channels, yy));
        };
        std::vector<Expr> shrink, shrunk;  // per K: the condition, the value
        Func pair("pair");                 // K = 2, 3 channels
        pair(j, y) = flat(j, 2 * y) + flat(j, 2 * y + 1);
        for (int K = 2; K <= 4; K++) {
            int o0 = (K - 1) / 2, o1 = K / 2;
            shrink.push_back(input.dim(1).extent() == K * out_width &&
                             input.dim(2).extent() == K * out_height);
            auto p = [&](int ox, int oy) {
                return cast<uint16_t>(input(c, K * x + ox, K * y + oy));
            };
            Expr v = K % 2
                         ? input(c, K * x + o0, K * y + o0)
                         : cast<uint8_t>((p(o0, o0) + p(o1, o0) + p(o0, o1) + p(o1, o1) + 2) >> 2);
            if (K == 2) {
                Expr quad = pair(2 * x * channels + c, y) + pair((2 * x + 1) * channels + c, y);
                v = select(channels == 3, cast<uint8_t>((quad + 2) >> 2), v);
            }
            shrunk.push_back(v);
        }

        // Exact doubling (out = 2 in both ways): weights 512 and 1536 (1/4, 3/4) each way, so the
        // formula is exactly (sum of 1 or 3 times 1 or 3 times the four pixels + 8) >> 4, with
        // the nearer source pixel weighted 3 and clamped neighbours. On the CPU, the caller
        // passes the output as pairs of pixels (`pairs`): (c2, k, y) with c2 < 2 channels, pixel
        // 2k + c2 / channels, so a vector of (c2, k) is a dense store (interleaving the even and
        // odd columns of 3 or 4 channels went out byte by byte: 2x, 960x540 RGB 2.6 -> 0.5 ms).
        // Each output row blends two source rows into vf2 (u16, flat, one clamped pixel of margin
        // each side); output pixel 2k (c2 < channels) is 3 vf2(k) + vf2(k - 1), pixel 2k + 1 is 3
        // vf2(k) + vf2(k + 1): with a = vf2 at flat c2 + channels k, b = vf2 at a - channels, that
        // is 3a + b or a + 3b.
        Expr in_w = input.dim(1).extent(), in_h = input.dim(2).extent();
        Func vf2("vf2");
        Expr rowlen = channels * in_w;
        Expr fc = unsafe_promise_clamped(
            select(j < 0, j + channels, j >= rowlen, j - channels, likely(j)), 0, rowlen - 1);
        Expr l = y / 2, ln = clamp(l + select(y % 2 == 0, -1, 1), 0, in_h - 1);
        vf2(j, y) = 3 * flat(fc, l) + flat(fc, ln);
        Expr da = vf2(channels * x + c, y), db = vf2(channels * x + c - channels, y);
        Expr dbl = (da + db + 2 * select(c < channels, da, db) + 8) >> 4;

        // The general case on the CPU: the blended rows flat (f = channels * x + c, dense), and a
        // table per output row position o of its two source positions and weight, so an output
        // row is one dense loop of two 32-bit gathers per value (per channel, the interleaving
        // byte stores of 3 and 4 channels cost more than the gathers).
        Var o("o"), f("f");
        Func ot("ot"), vf("vf");
        Expr ox = o / channels, oc = o % channels;
        ot(o) = {xs(ox)[0] * channels + oc, xs(ox)[1] * channels + oc, xs(ox)[2]};
        auto row = [&](Expr yy) {
            return cast<int32_t>(flat(f, unsafe_promise_clamped(yy, 0, in_h - 1)));
        };
        vf(f, y) = wy0 * row(ys(y)[0]) + wy1 * row(ys(y)[1]);
        auto tap = [&](int t) {
            Expr ff = unsafe_promise_clamped(ot(channels * x + c)[t], 0, channels * in_w - 1);
            return vf(ff, y);
        };
        Expr w1 = ot(channels * x + c)[2];
        Expr general_flat = cast<uint8_t>(((2048 - w1) * tap(0) + w1 * tap(1) + (1 << 21)) >> 22);
        // 4 channels: per output pixel, its channels vectorized, each tap one dense 4-lane load of
        // vf (a pixel's channels are consecutive there): 1080p RGBA x3/2 12.4 -> 9.2 ms, x2/3
        // 3.0 -> 2.1 (1 thread; 3 channels measured slower so, 1 has no pixel to load).
        auto ptap = [&](int t) {
            return vf(unsafe_promise_clamped(xs(x)[t], 0, in_w - 1) * channels + c, y);
        };
        Expr general_px = cast<uint8_t>(((2048 - wx1) * ptap(0) + wx1 * ptap(1) + (1 << 21)) >> 22);
        Expr general_cpu = select(channels == 4, general_px, general_flat);

        bool gpu = get_target().has_gpu_feature();
        output(c, x, y) = gpu ? general
                              : select(pairs, cast<uint8_t>(dbl), shrink[0], shrunk[0], shrink[1],
                                       shrunk[1], shrink[2], shrunk[2], general_cpu);

        lumen::interleaved(input);
        lumen::interleaved(output);
        output.dim(2).set_extent(out_height);
        if (gpu) {
            output.dim(0).set_extent(channels);
            output.dim(1).set_extent(out_width);
        } else {
            // No extent constraints: the output's channel count is a condition of each
            // specialization (a constraint select(pairs, 2, 1) * channels left the loops'
            // extents unresolved). `pairs` first: the other paths then know it is false.
            schedule_doubling(output.specialize(pairs), channels);
            vf2.store_at(output, Var("yo"))
                .compute_at(output, Var("yi"))
                .vectorize(j, 32, TailStrategy::GuardWithIf);
            for (const Expr &cond : shrink) schedule_shrink(output.specialize(cond), channels);
            pair.store_at(output, Var("yo"))
                .compute_at(output, Var("yi"))
                .vectorize(j, 32, TailStrategy::GuardWithIf);
        }
        if (!gpu) schedule_pixels(output.specialize(channels == 4 && output.dim(0).extent() == 4));
        lumen::schedule_interleaved(output, channels, output.dim(1).extent(), get_target(), c, x, y,
                                    natural_vector_size<int32_t>(),
                                    gpu ? std::vector<int>{1, 3, 4} : std::vector<int>{1, 3},
                                    TailStrategy::ShiftInwards, !gpu, 1, output.dim(0).extent());
        if (!gpu) {  // on a GPU, v is inlined: the formula as written
            ys.compute_root();
            xs.compute_root();
            ot.compute_root();
            vf.store_at(output, Var("yo"))
                .compute_at(output, Var("yi"))
                .vectorize(f, natural_vector_size<int32_t>(), TailStrategy::GuardWithIf);
        }
    }

private:
    // Exact downscales: strips of rows in parallel; per row, 64 bytes per vector (16 pixels of
    // 3 or 4 channels, channels vectorized too), whatever the variant (measured fastest on each).
    void schedule_shrink(Stage s, Expr channels) {
        Var c = output.args()[0], x = output.args()[1], y = output.args()[2];
        Var yo("yo"), yi("yi");
        for (int n : {1, 3, 4}) {
            Stage t = s.specialize(channels == n && output.dim(0).extent() == n);
            t.reorder(c, x, y)
                .split(y, yo, yi, lumen::kRowsPerTask, TailStrategy::GuardWithIf)
                .parallel(yo);
            if (n > 1) vectorize_c(t, n);
            int vec = n == 1 ? 64 : 16;
            t.specialize(output.dim(1).extent() >= vec)
                .vectorize(x, vec, TailStrategy::ShiftInwards);
        }
        s.specialize_fail("lumen: unsupported channel count");
    }

    // The general case, 4 channels: strips of rows in parallel; per row, pixel by pixel (two
    // unrolled), the channels vectorized.
    void schedule_pixels(Stage s) {
        Var c = output.args()[0], x = output.args()[1], y = output.args()[2];
        Var yo("yo"), yi("yi"), xo("xo"), xi("xi");
        s.reorder(c, x, y)
            .split(y, yo, yi, lumen::kRowsPerTask, TailStrategy::GuardWithIf)
            .parallel(yo)
            .vectorize(c, 4);
        s.specialize(output.dim(1).extent() >= 2)
            .split(x, xo, xi, 2, TailStrategy::ShiftInwards)
            .unroll(xi);
    }

    // Vectorizes the channel loop of extent n (split by n: Halide 14 does not see that the
    // loop's extent is the specialization's constant).
    void vectorize_c(Stage t, int n) {
        Var c = output.args()[0], co("co");
        t.split(c, co, c, n, TailStrategy::ShiftInwards).vectorize(c);
    }

    // Doubling: strips of rows in parallel; per row, vectors of pixel pairs (c2 and k
    // vectorized: 32 pairs on AVX-512, 16 elsewhere, measured).
    void schedule_doubling(Stage s, Expr channels) {
        Var c = output.args()[0], x = output.args()[1], y = output.args()[2];
        Var yo("yo"), yi("yi");
        int vec = get_target().has_feature(Target::AVX512_Skylake) ? 32 : 16;
        for (int n : {1, 3, 4}) {
            Stage t = s.specialize(channels == n && output.dim(0).extent() == 2 * n);
            t.reorder(c, x, y)
                .split(y, yo, yi, lumen::kRowsPerTask, TailStrategy::GuardWithIf)
                .parallel(yo);
            vectorize_c(t, 2 * n);
            t.specialize(output.dim(1).extent() >= vec)
                .vectorize(x, vec, TailStrategy::ShiftInwards);
        }
        s.specialize_fail("lumen: unsupported channel count");
    }
};

// 16-bit and float images (lumen_resize_u16, lumen_resize_f32), the same taps: u16 the same
// integers (the second stage in 64 bits); f32 rows first, v = (wy0 p0 + wy1 p1) / 2048, then
// (wx0 v0 + wx1 v1) / 2048, in float. CPU: per output row, its blended source row v (vectorized),
// then the row's gathers; GPU: 2D tiles, v inlined.
template <typename T>
class ResizeWide : public Generator<ResizeWide<T>> {
    static constexpr bool is_float = std::is_floating_point<T>::value;

public:
    GeneratorInput<Buffer<T>> input{"input", 3};
    GeneratorInput<int> out_width{"out_width"};
    GeneratorInput<int> out_height{"out_height"};
    GeneratorOutput<Buffer<T>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y"), i("i");
        Func xs("xs"), ys("ys"), v("v");
        lumen::resize_taps(xs, i, input.dim(1).extent(), out_width);
        lumen::resize_taps(ys, i, input.dim(2).extent(), out_height);
        Expr in_w = input.dim(1).extent(), in_h = input.dim(2).extent();
        auto in = [&](Expr yy) { return input(c, x, unsafe_promise_clamped(yy, 0, in_h - 1)); };
        auto at = [&](Expr xx) { return unsafe_promise_clamped(xx, 0, in_w - 1); };
        Expr wx1 = xs(x)[2], wx0 = 2048 - wx1, wy1 = ys(y)[2], wy0 = 2048 - wy1;
        if (is_float) {
            v(c, x, y) =
                (cast<float>(wy0) * in(ys(y)[0]) + cast<float>(wy1) * in(ys(y)[1])) * (1.0f / 2048);
            Expr sum =
                cast<float>(wx0) * v(c, at(xs(x)[0]), y) + cast<float>(wx1) * v(c, at(xs(x)[1]), y);
            output(c, x, y) = sum * (1.0f / 2048);
        } else {
            v(c, x, y) = wy0 * cast<int32_t>(in(ys(y)[0])) + wy1 * cast<int32_t>(in(ys(y)[1]));
            Expr sum = cast<int64_t>(wx0) * v(c, at(xs(x)[0]), y) +
                       cast<int64_t>(wx1) * v(c, at(xs(x)[1]), y);
            output(c, x, y) = cast<T>((sum + (1 << 21)) >> 22);
        }
        lumen::interleaved(input);
        lumen::interleaved(output);
        Expr channels = input.dim(0).extent();
        output.dim(0).set_extent(channels);
        output.dim(1).set_extent(out_width);
        output.dim(2).set_extent(out_height);
        const Target &t = this->get_target();
        int vec = this->template natural_vector_size<float>();
        lumen::schedule_interleaved(output, channels, output.dim(1).extent(), t, c, x, y, vec);
        if (!t.has_gpu_feature()) {
            xs.compute_root();
            ys.compute_root();
            v.compute_at(output, Var("yi")).vectorize(x, vec, TailStrategy::GuardWithIf);
        }
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Resize, lumen_resize)
HALIDE_REGISTER_GENERATOR(ResizeWide<uint16_t>, lumen_resize_u16)
HALIDE_REGISTER_GENERATOR(ResizeWide<float>, lumen_resize_f32)
