// grayscale: RGB or RGBA -> gray with BT.601 integer weights,
// Y = (77 R + 150 G + 29 B + 128) >> 8 (weights sum to 256; alpha ignored).
#include "common.h"

namespace {
using namespace Halide;

class Grayscale : public Generator<Grayscale> {
public:
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
        lumen::schedule_interleaved(output, input.dim(0).extent(), output.dim(1).extent(),
                                    get_target(), c, x, y, natural_vector_size<uint16_t>() * 2,
                                    {3, 4});
        if (!gpu) {
            // x86 has no byte shuffle for stride-3 loads below AVX512-VBMI, so LLVM moves bytes
            // one at a time (vpextrb/vpinsrb); widen the source of each output vector first
            // (dense), then deinterleave 16-bit lanes (vpermt2w). Per vector, not per row: a
            // row's widening loop waited on memory alone (4K RGBA, 1 thread: 4.4 -> 3.2 ms).
            wide.compute_at(output, Var("x"))
                .vectorize(i, natural_vector_size<uint16_t>(), TailStrategy::GuardWithIf);
        }
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Grayscale, lumen_grayscale)
