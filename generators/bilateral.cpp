// bilateral: the bilateral grid (Chen, Paris and Durand 2007; Halide's apps/bilateral_grid), each
// channel of 1, 3 or 4 on its own values (lumen_bilateral): channel c's key is its element times
// kscale (1 / sigma_color in the element's units), one float multiply of an exact value, so the
// cell and bin each element goes to are the same on every target. Grid cell X of `cell`
// (= sigma_space) pixels holds the pixels of [(X - 1/2) cell, (X + 1/2) cell) in x (y alike),
// bin z the keys of [z - 1/2, z + 1/2); per channel c each cell and bin sums its elements (k 0)
// and counts them (k 1). The grid is blurred by [1 4 6 4 1] in z, x and y, then sampled
// trilinearly at each element's (x / cell, y / cell, key), its sum over its count, 8- and 16-bit
// rounded to nearest. Every float operation is strict_float (IEEE, in the written order, no fused
// multiply-adds), so each CPU variant and both Halide versions give the same result, the plain C
// grid's (tests/reference.c); GPUs are within a level of it.
#include "common.h"

namespace {
using namespace Halide;

template <typename T>
class Bilateral : public Generator<Bilateral<T>> {
    static constexpr bool is_float = std::is_floating_point<T>::value;

public:
    GeneratorInput<Buffer<T>> input{"input", 3};  // interleaved; mins <= 0 (the margin around)
    GeneratorInput<float> cell{"cell"};           // sigma_space: grid cell size, pixels
    GeneratorInput<int32_t> span{"span"};         // most pixels of a cell per axis: ceil(cell) + 1
    GeneratorInput<float> kscale{"kscale"};       // key = element * kscale
    GeneratorInput<float> kmax{"kmax"};           // keys clamp to [0, kmax]
    GeneratorInput<int32_t> strip{"strip"};  // CPU: output rows per task (bounds the grid kept)
    GeneratorOutput<Buffer<T>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y"), X("X"), Y("Y"), z("z"), k("k");
        Expr channels = input.dim(0).extent();
        Expr x0 = input.dim(1).min(), x1 = input.dim(1).max();
        Expr y0 = input.dim(2).min(), y1 = input.dim(2).max();
        Func in("in");
        in(c, x, y) = input(clamp(c, 0, channels - 1), clamp(x, x0, x1), clamp(y, y0, y1));

        Func keyh("keyh"), keyf("keyf");  // the keys, for the histogram and for the sampling
        Expr key = cast<float>(in(c, x, y)) * kscale;
        if (is_float) key = select(is_nan(key), 0.0f, key);
        keyh(c, x, y) = strict_float(clamp(key, 0.0f, kmax));
        keyf(c, x, y) = strict_float(clamp(key, 0.0f, kmax));
        // first pixel of cell X (Y)
        auto lo = [&](Expr v) {
            return cast<int>(ceil(strict_float((cast<float>(v) - 0.5f) * cell)));
        };

        RDom r(0, span, 0, span, "r");
        Expr px = lo(X) + r.x, py = lo(Y) + r.y;
        r.where(px < lo(X + 1) && py < lo(Y + 1));
        Expr bin = cast<int>(keyh(c, px, py) + 0.5f);
        Func histogram("histogram");
        histogram(X, Y, z, c, k) = 0.0f;
        histogram(X, Y, bin, c, k) +=
            strict_float(select(k == 0, cast<float>(in(c, px, py)), 1.0f));

        auto taps = [](std::function<Expr(int)> f) {
            return strict_float(f(-2) + f(-1) * 4.0f + f(0) * 6.0f + f(1) * 4.0f + f(2));
        };
        Func blurz("blurz"), blurx("blurx"), blury("blury");
        blurz(X, Y, z, c, k) = taps([&](int d) { return histogram(X, Y, z + d, c, k); });
        blurx(X, Y, z, c, k) = taps([&](int d) { return blurz(X + d, Y, z, c, k); });
        blury(X, Y, z, c, k) = taps([&](int d) { return blurx(X, Y + d, z, c, k); });

        // Trilinear: along y first (rowy: the grid row an output row samples, for every cell and
        // bin), then x, then z.
        Expr gx = cast<float>(x) / cell, gy = cast<float>(y) / cell, kv = keyf(c, x, y);
        Expr xi = cast<int>(floor(gx)), yi = cast<int>(floor(gy)), zi = cast<int>(kv);
        Expr xf = gx - cast<float>(xi), yf = gy - cast<float>(yi), zf = kv - cast<float>(zi);
        auto mix = [](Expr a, Expr b, Expr w) { return a * (1.0f - w) + b * w; };
        Func rowy("rowy"), sample("sample");
        rowy(X, z, c, k, y) =
            strict_float(mix(blury(X, yi, z, c, k), blury(X, yi + 1, z, c, k), yf));
        auto at = [&](Expr zz) {
            return mix(rowy(xi, zz, c, k, y), rowy(xi + 1, zz, c, k, y), xf);
        };
        sample(c, x, y, k) = strict_float(mix(at(zi), at(zi + 1), zf));
        Expr v = sample(c, x, y, 0) / sample(c, x, y, 1);
        if (!is_float) v = clamp(round(v), 0.0f, cast<float>(cast<T>(0).type().max()));
        output(c, x, y) = cast<T>(strict_float(v));

        lumen::interleaved(input, false);
        lumen::interleaved(output);
        output.dim(0).set_extent(channels);

        Var xo("xo"), yo("yo"), xt("xt"), yt("yt"), yy("yy");
        if (this->get_target().has_gpu_feature()) {
            // The grid in device memory, a thread per cell (its pixels in a serial loop): no
            // shared memory, so any sigma_color and cell fit a block.
            histogram.compute_root()
                .reorder(z, k, c, X, Y)
                .gpu_tile(X, Y, xo, yo, xt, yt, 8, 8, TailStrategy::GuardWithIf);
            histogram.update()
                .reorder(k, c, r.x, r.y, X, Y)
                .gpu_tile(X, Y, xo, yo, xt, yt, 8, 8, TailStrategy::GuardWithIf);
            for (Func f : {blurx, blury})
                f.compute_root()
                    .reorder(z, k, c, X, Y)
                    .gpu_tile(X, Y, xo, yo, xt, yt, 16, 8, TailStrategy::GuardWithIf);
            output.gpu_tile(x, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            sample.compute_at(output, xt);
        } else {
            // Strips of `strip` output rows in parallel; per strip the grid rows it samples
            // (blury) and their blurred neighbours (blurx), a grid row of histogram at a time.
            int vec = this->template natural_vector_size<float>();
            output.reorder(c, x, y).split(y, yo, yy, strip, TailStrategy::GuardWithIf).parallel(yo);
            for (int n : {1, 3, 4})
                output.specialize(channels == n)
                    .unroll(c)
                    .vectorize(x, vec, TailStrategy::GuardWithIf);
            output.specialize_fail("lumen: unsupported channel count");
            blury.compute_at(output, yo)
                .reorder(X, z, k, c, Y)
                .vectorize(X, vec, TailStrategy::RoundUp);
            blurx.compute_at(output, yo)
                .reorder(X, z, k, c, Y)
                .vectorize(X, vec, TailStrategy::RoundUp);
            // Per-row Funcs allocated once per strip (lumen::hoist).
            LoopLevel strip(output, yo);
            lumen::hoist(blurz, strip)
                .compute_at(blurx, Y)
                .vectorize(X, vec, TailStrategy::RoundUp);
            lumen::hoist(histogram, strip).compute_at(blurx, Y);
            lumen::hoist(keyh, strip)
                .compute_at(blurx, Y)
                .reorder(x, c, y)
                .vectorize(x, vec, TailStrategy::RoundUp);
            lumen::hoist(keyf, strip)
                .compute_at(output, yy)
                .reorder(x, c, y)
                .vectorize(x, vec, TailStrategy::RoundUp);
            lumen::hoist(rowy, strip)
                .compute_at(output, yy)
                .reorder(X, z, k, c, y)
                .vectorize(X, vec, TailStrategy::RoundUp);
            histogram.update().reorder(k, c, r.x, r.y, X, Y).unroll(k).unroll(c);
        }
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Bilateral<uint8_t>, lumen_bilateral)
HALIDE_REGISTER_GENERATOR(Bilateral<uint16_t>, lumen_bilateral_u16)
HALIDE_REGISTER_GENERATOR(Bilateral<float>, lumen_bilateral_f32)
