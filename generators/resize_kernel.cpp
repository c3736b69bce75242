// resize_kernel: resize by per-output tap tables (bicubic, Lanczos-3), 8- and 16-bit. The wrapper
// computes the tables (sdk/src/pipelines.c, lumen_resize_interp): tx(0, k, i) the source column
// of tap k of output column i (inside the source), tx(1, k, i) its weight; ty likewise for rows.
// Integer sums, the same on every target: rows first, v = (sum_k ty_w p + 2^rs / 2) >> rs, then
// columns, out = saturate((sum_k tx_w v + 2^fs / 2) >> fs), fs = both weights' Q - rs. The
// wrapper keeps 8-bit sums within 32 bits; 16-bit ones are 64-bit.
#include "common.h"

namespace {
using namespace Halide;

template <typename T>
class ResizeKernel : public Generator<ResizeKernel<T>> {
public:
    using Acc = typename std::conditional<sizeof(T) == 1, int32_t, int64_t>::type;
    GeneratorInput<Buffer<T>> input{"input", 3};
    GeneratorInput<Buffer<int32_t>> tx{"tx", 3};
    GeneratorInput<Buffer<int32_t>> ty{"ty", 3};
    GeneratorInput<int> rs{"rs"};  // the row sums' shift
    GeneratorInput<int> fs{"fs"};  // the final shift
    GeneratorInput<bool> four{"four"};  // 4 taps each way (CUBIC): the CPU's sums written out
    GeneratorOutput<Buffer<T>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y"), f("f"), o("o"), k("k");
        Expr in_w = input.dim(1).extent(), in_h = input.dim(2).extent();
        Expr channels = input.dim(0).extent();
        Expr nx = tx.dim(1).extent(), ny = ty.dim(1).extent();
        Expr out_w = tx.dim(2).extent(), out_h = ty.dim(2).extent();
        Type acc = type_of<Acc>();
        Expr half = (cast(acc, 1) << rs) >> 1;
        auto src = [&](Expr cc, Expr xx, Expr yy) {
            return cast(acc, input(cc, xx, unsafe_promise_clamped(yy, 0, in_h - 1)));
        };
        auto finish = [&](Expr s) {
            Expr one = cast(acc, 1), top = cast(acc, type_of<T>().max());
            return cast<T>(clamp((s + ((one << fs) >> 1)) >> fs, cast(acc, 0), top));
        };
        RDom ry(0, ny, "ry"), rx(0, nx, "rx");
        Func h("h");
        if (this->get_target().has_gpu_feature()) {
            // Per output value, serial loops over its taps: each tap column's sum over the rows,
            // shifted, then the columns' (the CPU's integers). Two Funcs, not one Tuple update:
            // Halide 21's GPU lowering let a Tuple's second element read the first's new value.
            Func col("col");
            Expr xk = unsafe_promise_clamped(tx(0, k, x), 0, in_w - 1);
            col(c, k, x, y) = cast(acc, 0);
            col(c, k, x, y) += ty(1, ry, y) * src(c, xk, ty(0, ry, y));
            h(c, x, y) = cast(acc, 0);
            h(c, x, y) += cast(acc, tx(1, rx, x)) * ((col(c, rx, x, y) + half) >> rs);
            output(c, x, y) = finish(h(c, x, y));
            col.compute_at(h, rx);
        } else {
            // Flat rows (f = channels * x + c): per output row, v over the whole source row
            // (dense), then h per output value o from its taps (gathers), stored dense.
            Func v("v"), vq("vq"), ot("ot");
            auto flat = [&](Expr ff, Expr yy) { return src(ff % channels, ff / channels, yy); };
            v(f, y) = cast(acc, 0);
            v(f, y) += ty(1, ry, y) * flat(f, ty(0, ry, y));
            vq(f, y) = (v(f, y) + half) >> rs;
            Expr ox = o / channels, oc = o % channels;
            ot(k, o) = {tx(0, k, ox) * channels + oc, tx(1, k, ox)};
            h(o, y) = cast(acc, 0);
            Expr at = unsafe_promise_clamped(ot(rx, o)[0], 0, channels * in_w - 1);
            h(o, y) += cast(acc, ot(rx, o)[1]) * vq(at, y);
            // Four taps each way: the same sums written out, v4 one pass over the four source
            // rows, the columns' sum an expression (no accumulation passes over v and h).
            Func v4("v4");
            auto row = [&](int kk) { return ty(1, kk, y) * flat(f, ty(0, kk, y)); };
            v4(f, y) = (row(0) + row(1) + row(2) + row(3) + half) >> rs;
            Expr h4 = cast(acc, 0), p4 = cast(acc, 0);
            for (int kk = 0; kk < 4; kk++) {
                Expr a = unsafe_promise_clamped(ot(kk, o)[0], 0, channels * in_w - 1);
                h4 += cast(acc, ot(kk, o)[1]) * v4(a, y);
                // 4 channels: per output pixel, its channels one dense 4-lane load per tap
                Expr px = unsafe_promise_clamped(tx(0, kk, x), 0, in_w - 1);
                p4 += cast(acc, tx(1, kk, x)) * v4(px * channels + c, y);
            }
            h4 = select(channels == 4, p4, substitute(o.name(), channels * x + c, h4));
            output(c, x, y) = finish(select(four, h4, h(channels * x + c, y)));

            ot.compute_root().reorder_storage(o, k);  // a tap's entries dense over o
            Var yo("yo"), yi("yi");
            int vec = this->template natural_vector_size<int32_t>();
            v.store_at(output, yo)
                .compute_at(output, yi)
                .vectorize(f, vec, TailStrategy::GuardWithIf);
            v.update().reorder(f, ry, y).vectorize(f, vec, TailStrategy::GuardWithIf);
            vq.store_at(output, yo)
                .compute_at(output, yi)
                .vectorize(f, vec, TailStrategy::GuardWithIf);
            h.store_at(output, yo)
                .compute_at(output, yi)
                .vectorize(o, vec, TailStrategy::GuardWithIf);
            h.update().reorder(o, rx, y).vectorize(o, vec, TailStrategy::GuardWithIf);
            v4.store_at(output, yo)
                .compute_at(output, yi)
                .vectorize(f, vec, TailStrategy::GuardWithIf);
        }

        lumen::interleaved(input);
        lumen::interleaved(output);
        for (auto *t : {&tx, &ty}) {
            (*t).dim(0).set_bounds(0, 2).dim(0).set_stride(1);
            (*t).dim(1).set_min(0).dim(1).set_stride(2);
            (*t).dim(2).set_min(0);
        }
        output.dim(0).set_extent(channels);
        output.dim(1).set_extent(out_w);
        output.dim(2).set_extent(out_h);
        const Target t = this->get_target();
        bool gpu = t.has_gpu_feature();
        int vec = this->template natural_vector_size<int32_t>();
        if (!gpu) {
            Stage four_taps = output.specialize(four);
            Var yo("yo"), yi("yi"), xo("xo"), xi("xi");
            Stage px = four_taps.specialize(channels == 4);  // per pixel, c vectorized
            px.reorder(c, x, y)
                .split(y, yo, yi, lumen::kRowsPerTask, TailStrategy::GuardWithIf)
                .parallel(yo)
                .vectorize(c, 4);
            px.specialize(out_w >= 2).split(x, xo, xi, 2, TailStrategy::ShiftInwards).unroll(xi);
            lumen::schedule_interleaved(four_taps, channels, out_w, t, c, x, y, vec,
                                        {1, 3}, TailStrategy::ShiftInwards, true);
        }
        lumen::schedule_interleaved(output, channels, out_w, t, c, x, y, vec,
                                    {1, 3, 4}, TailStrategy::ShiftInwards, !gpu);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ResizeKernel<uint8_t>, lumen_resize_kernel)
HALIDE_REGISTER_GENERATOR(ResizeKernel<uint16_t>, lumen_resize_kernel_u16)
