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
        Var c("c"), x("x"), y("y");
        Func wide("wide");  // the row widened to u16
        wide(c, x, y) = cast<uint16_t>(input(c, x, y));
        auto in = [&](int ch) { return wide(ch, x, y); };
        Expr luma = (77 * in(0) + 150 * in(1) + 29 * in(2) + 128) >> 8;
        output(c, x, y) = cast<uint8_t>(luma);

        lumen::interleaved(input);
        lumen::interleaved(output);
        output.dim(0).set_bounds(0, 1);
        lumen::schedule_interleaved(output, input.dim(0).extent(), output.dim(1).extent(),
                                    get_target(), c, x, y, natural_vector_size<uint16_t>() * 2,
                                    {3, 4});
        if (!get_target().has_gpu_feature()) {
            // x86 has no byte shuffle for stride-3 loads below AVX512-VBMI, so LLVM moves bytes
            // one at a time (vpextrb/vpinsrb); widen each row first (dense), then deinterleave
            // 16-bit lanes (vpermt2w).
            Var cx("cx");
            wide.compute_at(output, Var("yi")).reorder(c, x, y).fuse(c, x, cx)
                .vectorize(cx, natural_vector_size<uint16_t>(), TailStrategy::GuardWithIf);
        }
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Grayscale, lumen_grayscale)
