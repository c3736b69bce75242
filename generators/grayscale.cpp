// grayscale: RGB or RGBA -> gray with BT.601 integer weights,
// Y = (77 R + 150 G + 29 B + 128) >> 8 (weights sum to 256; alpha ignored).
#include "common.h"

namespace {
using namespace Halide;

class Grayscale : public Generator<Grayscale> {
public:
    static constexpr int kChunk = 256;  // pixels widened at a time (CPU)
    Input<Buffer<uint8_t>> input{"input", 3};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y"), i("i");
        bool gpu = get_target().has_gpu_feature();
        // CPU: each row widened to u16 as one flat vector of all its channels (alpha too, so the
        // row is read densely: a channels 0..2 region of RGBA rows became a gather).
        Expr channels = input.dim(0).extent();
        Func wide("wide");
        wide(i, y) = cast<uint16_t>(input(i % channels, i / channels, y));
        auto in = [&](int ch) {
            return gpu ? cast<uint16_t>(input(ch, x, y)) : wide(x * channels + ch, y);
        };
        Expr luma = (77 * in(0) + 150 * in(1) + 29 * in(2) + 128) >> 8;
        output(c, x, y) = cast<uint8_t>(luma);

        lumen::interleaved(input);
        lumen::interleaved(output);
        output.dim(0).set_bounds(0, 1);
        int vec = natural_vector_size<uint16_t>() * 2;
        if (gpu) {
            lumen::schedule_interleaved(output, channels, output.dim(1).extent(), get_target(), c,
                                        x, y, vec, {3, 4});
            return;
        }
        // x86 has no byte shuffle for stride-3 loads below AVX512-VBMI, so LLVM moved bytes one
        // at a time (vpextrb/vpinsrb); the source is widened first (dense), then deinterleaved
        // in 16-bit lanes (vpermt2w). Widened per chunk of kChunk pixels: per row, the widening
        // loop waited on memory alone (4K RGBA, 1 thread: 4.4 -> 3.2 ms); per vector, the
        // deinterleave's loads hit stores still in flight (store forwarding fails).
        Var xo("xo"), yo("yo"), yi("yi");
        for (int k : {3, 4}) {
            Stage s = output.specialize(channels == k);
            s.reorder(c, x, y)
                .split(y, yo, yi, lumen::kRowsPerTask, TailStrategy::GuardWithIf)
                .parallel(yo);
            Expr w = output.dim(1).extent();
            s.split(x, xo, x, min(w, kChunk), TailStrategy::ShiftInwards);
            s.specialize(w >= vec).vectorize(x, vec, TailStrategy::ShiftInwards);
        }
        output.specialize_fail("lumen: unsupported channel count");
        wide.compute_at(output, xo).vectorize(i, vec / 2, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Grayscale, lumen_grayscale)
