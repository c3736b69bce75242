// resize_area: area-averaging resize (OpenCV INTER_AREA), 8-bit. Along an axis of in -> out,
// output i covers source [i in / out, (i + 1) in / out); source j weighs its overlap with that.
// - Integer ratios (in = K out both ways, Kx Ky <= 65536): s = the sum of the Kx x Ky block,
//   out = (s + 2) >> 2 for 2x2, else round(float(s) * inv_area) (ties to even; inv_area =
//   1.0f / (Kx Ky) in float): OpenCV's own integers.
// - Otherwise: taps j0 = floor(i in / out) .. j0 + ceil(in / out), weights by cumulative
//   rounding (they sum exactly to 2^Q): with c_k = the overlap of taps 0..k (in units of
//   1 / out of a source pixel), W_k = floor((c_k 2^Q + in / 2) / in), w_k = W_k - W_{k-1}.
//   Rows first (Q14), v = (sum_k wy_k p_k + 32) >> 6 (Q8), then columns (Q15):
//   out = (sum_k wx_k v_k + 2^22) >> 23. Within 1 of the real average.
#include "common.h"

namespace {
using namespace Halide;

class ResizeArea : public Generator<ResizeArea> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Input<int> out_width{"out_width"};
    Input<int> out_height{"out_height"};
    Input<float> inv_area{"inv_area"};  // 1.0f / (Kx Ky), integer ratios
    // From the C wrapper: 1 integer ratios (in = K out both ways, Kx Ky <= 65536), else 2 where
    // in <= out both ways (two taps each way), else 0. A parameter, so that each specialization
    // folds its selects (a condition computed in here would be tested per value).
    Input<int> kind{"kind"};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y"), i("i"), k("k"), f("f"), o("o");
        Expr in_w = input.dim(1).extent(), in_h = input.dim(2).extent();
        Expr channels = input.dim(0).extent();
        Expr kx = in_w / out_width, ky = in_h / out_height;
        Expr exact = kind == 1;
        Expr nx = select(exact, kx, (in_w + out_width - 1) / out_width + 1);
        Expr ny = select(exact, ky, (in_h + out_height - 1) / out_height + 1);
        Func tx("tx"), ty("ty");  // (k, i): {source index, weight}
        taps(tx, k, i, in_w, out_width, exact, 15);
        taps(ty, k, i, in_h, out_height, exact, 14);
        RDom ry(0, ny, "ry"), rx(0, nx, "rx");
        auto src = [&](Expr cc, Expr xx, Expr yy) {
            return cast<int32_t>(input(cc, xx, unsafe_promise_clamped(yy, 0, in_h - 1)));
        };
        auto finish = [&](Expr s) {
            // Ties to even by hand (Halide 14's OpenCL round() takes ties away from zero), p
            // compared with floor(p) + 0.5, exact in float (p < 2^24; no subtraction that a
            // compiler could fuse with the product).
            Expr p = cast<float>(s) * inv_area, f = floor(p), half = f + 0.5f;
            Expr n = cast<int32_t>(f);
            Expr even = n + select(p > half || (p == half && (n & 1) == 1), 1, 0);
            Expr e = select(kx == 2 && ky == 2, (s + 2) >> 2, even);
            return cast<uint8_t>(select(exact, e, (s + (1 << 22)) >> 23));
        };
        bool gpu = get_target().has_gpu_feature();
        Func v("v"), h("h");
        if (gpu) {
            // One serial loop per thread over its taps, rows inner: each tap column's sum (then
            // rounded) is added to the total when its last row is in, as the CPU does.
            RDom r(0, ny, 0, nx, "r");
            Expr xi = unsafe_promise_clamped(tx(r.y, x)[0], 0, in_w - 1);
            h(c, x, y) = {0, 0};
            Expr col = h(c, x, y)[0] + ty(r.x, y)[1] * src(c, xi, ty(r.x, y)[0]);
            Expr last = r.x == ny - 1;
            Expr vq = select(exact, col, (col + 32) >> 6);
            h(c, x, y) = {select(last, 0, col),
                          h(c, x, y)[1] + select(last, tx(r.y, x)[1] * vq, 0)};
            output(c, x, y) = finish(h(c, x, y)[1]);
            // The tables in kernels of their own (inlined, each tap would cost 64-bit divisions).
            Var io("io"), it("it");
            tx.compute_root().gpu_tile(i, io, it, 64, TailStrategy::GuardWithIf);
            ty.compute_root().gpu_tile(i, io, it, 64, TailStrategy::GuardWithIf);
        } else {
            // Flat rows (f = channels * x + c): per output row, v over the whole source row
            // (dense), then h per output value o from its taps' table (gathers), stored dense.
            auto flat = [&](Expr ff, Expr yy) { return src(ff % channels, ff / channels, yy); };
            v(f, y) = 0;
            v(f, y) += ty(ry, y)[1] * flat(f, ty(ry, y)[0]);
            Func vq("vq"), ot("ot");
            vq(f, y) = select(exact, v(f, y), (v(f, y) + 32) >> 6);
            Expr ox = o / channels, oc = o % channels;
            ot(k, o) = {tx(k, ox)[0] * channels + oc, tx(k, ox)[1]};
            h(o, y) = 0;
            auto at = [&](Expr kk) {  // tap kk's source position, in range by construction
                return unsafe_promise_clamped(ot(kk, o)[0], 0, channels * in_w - 1);
            };
            h(o, y) += ot(rx, o)[1] * vq(at(rx), y);
            // Two taps each way (every upscale): the same sums written out, so v2 is one pass
            // over the two source rows and the columns' sum an expression (no accumulation
            // passes over v and h).
            Func v2("v2");
            auto row = [&](int kk) { return ty(kk, y)[1] * flat(f, ty(kk, y)[0]); };
            v2(f, y) = row(0) + row(1);
            auto col = [&](int kk) {
                Expr s2 = v2(at(kk), y);
                return ot(kk, o)[1] * select(exact, s2, (s2 + 32) >> 6);
            };
            Expr h2 = substitute(o.name(), channels * x + c, col(0) + col(1));
            // 4 channels: per output pixel, its channels vectorized, each tap one dense 4-lane
            // load of v2 (a pixel's channels are consecutive there), not a per-lane gather.
            auto pcol = [&](int kk) {
                Expr s2 = v2(unsafe_promise_clamped(tx(kk, x)[0], 0, in_w - 1) * channels + c, y);
                return tx(kk, x)[1] * select(exact, s2, (s2 + 32) >> 6);
            };
            h2 = select(channels == 4, pcol(0) + pcol(1), h2);
            output(c, x, y) = finish(select(kind == 2, h2, h(channels * x + c, y)));

            tx.compute_root();
            ty.compute_root();
            ot.compute_root().reorder_storage(o, k);  // a tap's entries dense over o: vector loads
            Var yo("yo"), yi("yi");
            int vec = natural_vector_size<int32_t>();
            v.store_at(output, yo)
                .compute_at(output, yi)
                .vectorize(f, vec, TailStrategy::GuardWithIf);
            v.update().reorder(f, ry, y).vectorize(f, vec, TailStrategy::GuardWithIf);
            h.store_at(output, yo)
                .compute_at(output, yi)
                .vectorize(o, vec, TailStrategy::GuardWithIf);
            h.update().reorder(o, rx, y).vectorize(o, vec, TailStrategy::GuardWithIf);
            v2.store_at(output, yo)
                .compute_at(output, yi)
                .vectorize(f, vec, TailStrategy::GuardWithIf);
        }

        lumen::interleaved(input);
        lumen::interleaved(output);
        output.dim(0).set_extent(channels);
        output.dim(1).set_extent(out_width);
        output.dim(2).set_extent(out_height);
        // Integer ratios and the others each specialized: the selects on `exact` folded (on the
        // CPU, both roundings were computed for every value).
        int vec = natural_vector_size<int32_t>();
        std::vector<Stage> cases = {output.specialize(exact)};
        if (!gpu) {
            Stage two = output.specialize(kind == 2);
            Var yo("yo"), yi("yi"), xo("xo"), xi("xi");
            Stage px = two.specialize(channels == 4);  // per pixel (two unrolled), c vectorized
            px.reorder(c, x, y)
                .split(y, yo, yi, lumen::kRowsPerTask, TailStrategy::GuardWithIf)
                .parallel(yo)
                .vectorize(c, 4);
            px.specialize(out_width >= 2)
                .split(x, xo, xi, 2, TailStrategy::ShiftInwards)
                .unroll(xi);
            lumen::schedule_interleaved(two, channels, out_width, get_target(), c, x, y, vec,
                                        {1, 3}, TailStrategy::ShiftInwards, true);
        }
        cases.push_back(output);
        for (Stage s : cases) {
            lumen::schedule_interleaved(s, channels, out_width, get_target(), c, x, y, vec,
                                        {1, 3, 4}, TailStrategy::ShiftInwards, !gpu);
        }
    }

private:
    // f(k, i) = {source index of tap k of output i (clamped into the source), its weight}.
    static void taps(Func f, Var k, Var i, Expr in, Expr out, Expr exact, int q) {
        Expr n = cast<int64_t>(in), m = cast<int64_t>(out), ii = cast<int64_t>(i);
        Expr kk = cast<int64_t>(k);
        Expr j = ii * n / m + kk, lo = ii * n, hi = lo + n;
        auto cum = [&](Expr jj) {  // overlap of the source up to column jj (exclusive)
            return clamp(min(hi, jj * m) - lo, cast<int64_t>(0), n);
        };
        auto w = [&](Expr c) { return (c * Expr(int64_t(1) << q) + n / 2) / n; };
        Expr wt = w(cum(j + 1)) - w(cum(j));
        Expr e = ii * (n / m) + kk;  // integer ratios: the block, each pixel weight 1
        Expr idx = select(exact, e, min(j, n - 1));
        f(k, i) = {cast<int32_t>(idx), select(exact, 1, cast<int32_t>(wt))};
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ResizeArea, lumen_resize_area)
