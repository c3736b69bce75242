// gaussian_blur: separable Gaussian (sigma 0.5..16, radius ceil(3 sigma)), clamp-to-edge.
#include "blur.h"

namespace {
using namespace Halide;

class GaussianBlurGen : public Generator<GaussianBlurGen> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Input<Buffer<uint16_t>> weights{"weights", 1};  // 2 * radius + 1 Q16 taps
    Input<int> radius{"radius"};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y");
        Expr channels = input.dim(0).extent();
        lumen::GaussianBlur blur(input, channels, input.dim(1).min(), input.dim(1).max(),
                                 input.dim(2).min(), input.dim(2).max(), weights, radius,
                                 !get_target().has_gpu_feature());
        output(c, x, y) = blur.u8(c, x, y);

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

// 16-bit and float images (lumen_gaussian_blur_u16, _f32): blur.h's WideBlur.
template <typename T>
class GaussianBlurWide : public Generator<GaussianBlurWide<T>> {
public:
    GeneratorInput<Buffer<T>> input{"input", 3};
    GeneratorInput<Buffer<uint16_t>> weights{"weights", 1};
    GeneratorInput<int> radius{"radius"};
    GeneratorOutput<Buffer<T>> output{"output", 3};

    void generate() {
        lumen::WideBlur<T> blur(input, input.dim(1).min(), input.dim(1).max(), input.dim(2).min(),
                                input.dim(2).max(), weights, radius);
        Var c = blur.c, x = blur.x, y = blur.y;
        output(c, x, y) = cast<T>(blur.value(c, x, y));
        blur.finish(input, output, weights, radius, this->get_target());
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(GaussianBlurGen, lumen_gaussian_blur)
HALIDE_REGISTER_GENERATOR(GaussianBlurWide<uint16_t>, lumen_gaussian_blur_u16)
HALIDE_REGISTER_GENERATOR(GaussianBlurWide<float>, lumen_gaussian_blur_f32)
