// resize_nearest: nearest-neighbour resize with pixel centres, OpenCV INTER_NEAREST_EXACT's
// integers (as Pillow and scikit-image): for in -> out along an axis, step = ((in << 16) +
// out / 2) / out (Q16), first = step / 2 - in % 2, output i reads source min((step * i + first)
// >> 16, in - 1) (64-bit, so any size Lumen takes). Pixels are moved as they are: any type.
// x_step k > 0 (CPU, the wrapper's choice) where in_width == k * out_width: step is then k << 16
// and first (k << 15) - in % 2, so output column x reads k * x + k / 2 (in % 2 is 0 for even k):
// a constant-stride load (dense loads and shuffles), not a gather per element. 0: the taps.
#include "common.h"

namespace {
using namespace Halide;

template <typename T>
class ResizeNearest : public Generator<ResizeNearest<T>> {
public:
    GeneratorInput<Buffer<T>> input{"input", 3};
    GeneratorInput<int> out_width{"out_width"};
    GeneratorInput<int> out_height{"out_height"};
    GeneratorInput<int> x_step{"x_step"};
    GeneratorOutput<Buffer<T>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y"), i("i");
        Func xs("xs"), ys("ys");
        taps(xs, i, input.dim(1).extent(), out_width);
        taps(ys, i, input.dim(2).extent(), out_height);
        Expr strided = x_step * x + x_step / 2;
        output(c, x, y) = input(c, select(x_step == 0, xs(x), strided), ys(y));

        lumen::interleaved(input);
        lumen::interleaved(output);
        Expr channels = input.dim(0).extent();
        output.dim(0).set_extent(channels);
        output.dim(1).set_extent(out_width);
        output.dim(2).set_extent(out_height);
        const Target &t = this->get_target();
        if (!t.has_gpu_feature()) xs.compute_root();  // GPU: inlined, a few integer ops
        // CPU: x vectorized (gathers from the row of ys(y), or strided), channels unrolled.
        std::vector<int> steps = {0};
        if (!t.has_gpu_feature()) steps.insert(steps.end(), {1, 2, 3, 4});
        for (int k : steps) {
            lumen::schedule_interleaved(output.specialize(x_step == k), channels, out_width, t, c,
                                        x, y, this->template natural_vector_size<T>());
        }
        output.specialize_fail("lumen: unsupported x_step");
    }

private:
    static void taps(Func f, Var i, Expr in, Expr out) {
        Expr n = cast<int64_t>(in), m = cast<int64_t>(out);
        Expr step = ((n << 16) + m / 2) / m, first = step / 2 - n % 2;
        Expr s = (step * cast<int64_t>(i) + first) >> 16;
        f(i) = unsafe_promise_clamped(cast<int32_t>(clamp(s, cast<int64_t>(0), n - 1)), 0, in - 1);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ResizeNearest<uint8_t>, lumen_resize_nearest)
HALIDE_REGISTER_GENERATOR(ResizeNearest<uint16_t>, lumen_resize_nearest_u16)
HALIDE_REGISTER_GENERATOR(ResizeNearest<float>, lumen_resize_nearest_f32)
