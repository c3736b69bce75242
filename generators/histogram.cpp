// histogram: per-channel counts of an 8-bit image's values (lumen_histogram, lumen_equalize_hist):
// counts(v, c) = the number of pixels whose channel c is v. CPU: strips of rows counted in
// parallel (rfactor), each strip in one pass over its pixels, then the strips' counts summed;
// GPU: atomic increments. lut: dst(c, x, y) = table(src(c, x, y), c) (lumen_lut).
#include "common.h"

namespace {
using namespace Halide;

class Histogram : public Generator<Histogram> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Output<Buffer<uint32_t>> counts{"counts", 2};

    void generate() {
        Var v("v"), c("c"), u("u");
        Expr channels = input.dim(0).extent();
        RDom r(0, input.dim(1).extent(), 0, input.dim(2).extent());
        counts(v, c) = cast<uint32_t>(0);
        counts(cast<int32_t>(input(c, r.x, r.y)), c) += cast<uint32_t>(1);

        lumen::interleaved(input);
        counts.dim(0).set_bounds(0, 256);
        counts.dim(1).set_bounds(0, channels);
        if (get_target().has_gpu_feature()) {
            Var vo("vo"), vi("vi"), co("co"), ci("ci");
            RVar xo("xo"), xi("xi"), yo("yo"), yi("yi");
            counts.gpu_tile(v, c, vo, co, vi, ci, 64, 1, TailStrategy::GuardWithIf);
            counts.update()
                .atomic()
                .split(r.x, xo, xi, 32, TailStrategy::GuardWithIf)
                .split(r.y, yo, yi, 8, TailStrategy::GuardWithIf)
                .reorder(xi, yi, xo, yo, c)
                .gpu_blocks(xo, yo)
                .gpu_threads(xi, yi);
            return;
        }
        // Strips of 64 rows (u), each counted in one pass over its pixels (channels innermost),
        // then summed bin by bin (vectorized); gray rows 4 pixels per step (1080p: 1.9 -> 0.9 ms).
        RVar yo("yo"), yi("yi");
        counts.update().split(r.y, yo, yi, lumen::kRowsPerTask, TailStrategy::GuardWithIf);
        Func strip = counts.update().rfactor(yo, u);
        strip.compute_root().vectorize(v, natural_vector_size<uint32_t>());
        Stage s = strip.update().reorder(c, r.x, yi, u).parallel(u);
        RVar xo("xo"), xi("xi");
        for (int k : {1, 3, 4}) {
            Stage t = s.specialize(channels == k).unroll(c);
            if (k == 1) t.split(r.x, xo, xi, 4, TailStrategy::GuardWithIf).unroll(xi);
        }
        counts.vectorize(v, natural_vector_size<uint32_t>());
        counts.update().vectorize(v, natural_vector_size<uint32_t>());
    }
};

class Lut : public Generator<Lut> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Input<Buffer<uint8_t>> table{"table", 2};  // (value, channel)
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y");
        output(c, x, y) = table(cast<int32_t>(input(c, x, y)), c);
        lumen::interleaved(input);
        lumen::interleaved(output);
        Expr channels = input.dim(0).extent();
        output.dim(0).set_extent(channels);
        table.dim(0).set_bounds(0, 256);
        table.dim(1).set_bounds(0, channels);
        if (get_target().has_gpu_feature()) {
            lumen::schedule_interleaved(output, channels, output.dim(1).extent(), get_target(), c,
                                        x, y, natural_vector_size<uint8_t>(), {1, 3, 4},
                                        TailStrategy::GuardWithIf, true);  // may run in place
            return;
        }
        // CPU: scalar lookups, unrolled. Vectorized, each is a byte gather that LLVM splits into
        // extracts and inserts: 2.7-3.7x slower (docs/performance.md, "LUT").
        Var xo("xo"), xi("xi"), yo("yo"), yi("yi");
        for (int k : {1, 3, 4}) {
            output.specialize(channels == k)
                .reorder(c, x, y)
                .split(y, yo, yi, lumen::kRowsPerTask, TailStrategy::GuardWithIf)
                .parallel(yo)
                .unroll(c)
                .split(x, xo, xi, k == 1 ? 8 : 2, TailStrategy::GuardWithIf)
                .unroll(xi);
        }
        output.specialize_fail("lumen: unsupported channel count");
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Histogram, lumen_histogram)
HALIDE_REGISTER_GENERATOR(Lut, lumen_lut)
