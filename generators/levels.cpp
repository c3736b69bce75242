// levels: out = saturate((g * in + b + 2048) >> 12), the same on every channel, where g and b are
// gain and bias in Q12 fixed point (rounded by the C wrapper): exact on every target.
#include "common.h"

namespace {
using namespace Halide;

class Levels : public Generator<Levels> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Input<int32_t> gain{"gain"};  // Q12, |gain| <= 2^20
    Input<int32_t> bias{"bias"};  // Q12, |bias| <= 2^22
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y");
        Expr v = (gain * cast<int32_t>(input(c, x, y)) + bias + 2048) >> 12;
        output(c, x, y) = cast<uint8_t>(clamp(v, 0, 255));

        lumen::interleaved(input);
        lumen::interleaved(output);
        output.dim(0).set_extent(input.dim(0).extent());
        lumen::schedule_interleaved(output, input.dim(0).extent(), output.dim(1).extent(),
                                    get_target(), c, x, y, natural_vector_size<int32_t>() * 2,
                                    {1, 3, 4}, TailStrategy::GuardWithIf, true);  // may run in place
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Levels, lumen_levels)
