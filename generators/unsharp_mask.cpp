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
        Expr v =
            (b * (4096 - amount) + cast<int32_t>(input(c, x, y)) * amount * 128 + (1 << 18)) >> 19;
        output(c, x, y) = cast<uint8_t>(clamp(v, 0, 255));

        lumen::interleaved(input, false);
        lumen::interleaved(output);
        output.dim(0).set_extent(input.dim(0).extent());
        weights.dim(0).set_bounds(0, 2 * radius + 1);
        int vec = natural_vector_size<uint16_t>();
        lumen::schedule_interleaved(output, channels, output.dim(1).extent(), get_target(), c, x, y,
                                    vec, {1, 3, 4}, TailStrategy::ShiftInwards, true,
                                    lumen::GaussianBlur::kRows, Expr(),
                                    lumen::GaussianBlur::kGpuRows);
        blur.schedule(output, get_target(), vec);
    }
};

// 16-bit and float images (lumen_unsharp_mask_u16, _f32), b the blur of WideBlur: u16 out =
// saturate((b (4096 - A) + A in + 2048) >> 12) in 64 bits, A = amount in Q12; f32 out = b +
// amount (in - b), no clamp.
template <typename T>
class UnsharpMaskWide : public Generator<UnsharpMaskWide<T>> {
    static constexpr bool is_float = std::is_floating_point<T>::value;
    using P = typename std::conditional<is_float, float, int32_t>::type;

public:
    GeneratorInput<Buffer<T>> input{"input", 3};
    GeneratorInput<Buffer<uint16_t>> weights{"weights", 1};
    GeneratorInput<int> radius{"radius"};
    GeneratorInput<P> amount{"amount"};  // u16: Q12, 0..2^16
    GeneratorOutput<Buffer<T>> output{"output", 3};

    void generate() {
        lumen::WideBlur<T> blur(input, input.dim(1).min(), input.dim(1).max(), input.dim(2).min(),
                                input.dim(2).max(), weights, radius);
        Var c = blur.c, x = blur.x, y = blur.y;
        Expr b = blur.value(c, x, y), in = input(c, x, y);
        if (is_float) {
            output(c, x, y) = b + amount * (in - b);
        } else {
            Expr v = (cast<int64_t>(b) * (4096 - cast<int64_t>(amount)) +
                      cast<int64_t>(in) * cast<int64_t>(amount) + 2048) >>
                     12;
            output(c, x, y) = cast<T>(clamp(v, 0, 65535));
        }
        blur.finish(input, output, weights, radius, this->get_target());
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(UnsharpMask, lumen_unsharp_mask)
HALIDE_REGISTER_GENERATOR(UnsharpMaskWide<uint16_t>, lumen_unsharp_mask_u16)
HALIDE_REGISTER_GENERATOR(UnsharpMaskWide<float>, lumen_unsharp_mask_f32)
