// unsharp_mask: out = saturate((4096 blur + a (in - blur) + 2048) >> 12), blur as in
// gaussian_blur, a = amount in Q12; one fused pipeline. amount 1 returns the input, > 1 sharpens,
// 0 gives the blur.
#include "blur.h"

namespace {
using namespace Halide;

class UnsharpMask : public Generator<UnsharpMask> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Input<Buffer<uint16_t>> weights{"weights", 1};
    Input<int> radius{"radius"};
    Input<int32_t> amount{"amount"};  // Q12, 0..2^16
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y");
        lumen::GaussianBlur blur(BoundaryConditions::repeat_edge(input), weights, radius, c, x, y);
        Expr b = cast<int32_t>(blur.out(c, x, y));
        Expr v = (b * 4096 + amount * (cast<int32_t>(input(c, x, y)) - b) + 2048) >> 12;
        output(c, x, y) = cast<uint8_t>(clamp(v, 0, 255));

        lumen::interleaved(input);
        lumen::interleaved(output);
        output.dim(0).set_extent(input.dim(0).extent());
        weights.dim(0).set_bounds(0, 2 * radius + 1);
        int vec = natural_vector_size<uint16_t>();
        lumen::schedule_interleaved(output, input.dim(0).extent(), output.dim(1).extent(),
                                    get_target(), c, x, y, vec);
        blur.schedule(output, get_target(), c, x, y, vec);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(UnsharpMask, lumen_unsharp_mask)
