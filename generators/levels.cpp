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
                                    {1, 3, 4}, TailStrategy::GuardWithIf,
                                    true);  // may run in place
    }
};

// 16-bit and float images (lumen_levels_u16, lumen_levels_f32). u16: out = saturate((g * in + b +
// 2048) >> 12) to 0..65535 in 64-bit integers (g, b Q12; b already times 257 by the C wrapper);
// f32: out = gain * in + bias (the wrapper passes bias / 255), no clamp.
template <typename T>
class LevelsWide : public Generator<LevelsWide<T>> {
    static constexpr bool is_float = std::is_floating_point<T>::value;
    using P = typename std::conditional<is_float, float, int32_t>::type;

public:
    GeneratorInput<Buffer<T>> input{"input", 3};
    GeneratorInput<P> gain{"gain"};
    GeneratorInput<P> bias{"bias"};
    GeneratorOutput<Buffer<T>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y");
        Expr in = input(c, x, y);
        if (is_float) {
            output(c, x, y) = gain * in + bias;
        } else {
            Expr v = (cast<int64_t>(gain) * cast<int64_t>(in) + cast<int64_t>(bias) + 2048) >> 12;
            output(c, x, y) = cast<T>(clamp(v, 0, 65535));
        }
        lumen::interleaved(input);
        lumen::interleaved(output);
        output.dim(0).set_extent(input.dim(0).extent());
        lumen::schedule_interleaved(
            output, input.dim(0).extent(), output.dim(1).extent(), this->get_target(), c, x, y,
            this->template natural_vector_size<T>(), {1, 3, 4}, TailStrategy::GuardWithIf, true);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Levels, lumen_levels)
HALIDE_REGISTER_GENERATOR(LevelsWide<uint16_t>, lumen_levels_u16)
HALIDE_REGISTER_GENERATOR(LevelsWide<float>, lumen_levels_f32)
