// levels: out = saturate(round(gain * in + bias)), the same gain and bias on every channel.
#include "common.h"

namespace {
using namespace Halide;

class Levels : public Generator<Levels> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Input<float> gain{"gain"};
    Input<float> bias{"bias"};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y");
        Expr v = gain * cast<float>(input(c, x, y)) + bias;
        output(c, x, y) = cast<uint8_t>(clamp(round(v), 0.0f, 255.0f));

        lumen::interleaved(input);
        lumen::interleaved(output);
        output.dim(0).set_extent(input.dim(0).extent());
        lumen::schedule_interleaved(output, input.dim(0).extent(), output.dim(1).extent(),
                                    get_target(), c, x, y, natural_vector_size<float>() * 2);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Levels, lumen_levels)
