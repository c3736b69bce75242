// unsharp_mask: out = saturate((v (4096 - a) + 128 a in + 2^18) >> 19), v the unrounded Q7 blur
// of gaussian_blur (blur.h), a = amount in Q12; one fused pipeline, 32-bit sums that cannot
// overflow (|v (4096 - a)| < 2^31 - 128 a in for a <= 2^16). amount 1 returns the input, > 1
// sharpens, 0 gives the blur.
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
        Expr channels = input.dim(0).extent();
        lumen::GaussianBlur blur(input, channels, input.dim(1).min(), input.dim(1).max(),
                                 input.dim(2).min(), input.dim(2).max(), weights, radius,
                                 !get_target().has_gpu_feature());
        Expr b = cast<int32_t>(blur.q7(c, x, y));
        Expr v = (b * (4096 - amount) + cast<int32_t>(input(c, x, y)) * amount * 128 + (1 << 18)) >> 19;
        output(c, x, y) = cast<uint8_t>(clamp(v, 0, 255));

        lumen::interleaved(input, false);
        lumen::interleaved(output);
        output.dim(0).set_extent(input.dim(0).extent());
        weights.dim(0).set_bounds(0, 2 * radius + 1);
        int vec = natural_vector_size<uint16_t>();
        lumen::schedule_interleaved(output, channels, output.dim(1).extent(), get_target(), c, x,
                                    y, vec, {1, 3, 4}, TailStrategy::ShiftInwards, true,
                                    lumen::GaussianBlur::kRows, Expr(),
                                    lumen::GaussianBlur::kGpuRows);
        blur.schedule(output, get_target(), vec);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(UnsharpMask, lumen_unsharp_mask)
