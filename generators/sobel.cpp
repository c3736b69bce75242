// sobel: gradient magnitude of a gray image, 3x3 Sobel kernels, clamp-to-edge borders,
// out = min(255, floor(sqrt(gx^2 + gy^2) + 0.5)).
#include "common.h"

namespace {
using namespace Halide;

class Sobel : public Generator<Sobel> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y");
        // Separable: column sums (1 2 1) and differences (-1 0 1) of the clamped source, then the
        // same across: the same integers as the 3x3 kernels. likely(): edges peeled off.
        Expr x0 = input.dim(1).min(), x1 = input.dim(1).max();
        Expr y0 = input.dim(2).min(), y1 = input.dim(2).max();
        Func src("src"), sy("sy"), dy("dy");
        src(x, y) = cast<int16_t>(input(0, clamp(likely(x), x0, x1), clamp(likely(y), y0, y1)));
        sy(x, y) = src(x, y - 1) + 2 * src(x, y) + src(x, y + 1);
        dy(x, y) = src(x, y + 1) - src(x, y - 1);
        Expr gx = sy(x + 1, y) - sy(x - 1, y);
        Expr gy = dy(x - 1, y) + 2 * dy(x, y) + dy(x + 1, y);
        Expr gx2 = cast<int32_t>(gx) * gx, gy2 = cast<int32_t>(gy) * gy;
        Expr mag = sqrt(cast<float>(gx2 + gy2)) + 0.5f;
        output(c, x, y) = cast<uint8_t>(min(mag, 255.0f));

        lumen::interleaved(input, false);
        lumen::interleaved(output);
        input.dim(0).set_bounds(0, 1);
        output.dim(0).set_bounds(0, 1);
        lumen::schedule_interleaved(output, input.dim(0).extent(), output.dim(1).extent(),
                                    get_target(), c, x, y, natural_vector_size<float>() * 2, {1});
        if (!get_target().has_gpu_feature()) {
            // Each source row widened and clamp-padded once (sliding down the strip), the
            // column sums per output row: the output's loads need no clamps or gathers.
            int vec = natural_vector_size<int16_t>();
            src.store_at(output, Var("yo"))
                .compute_at(output, Var("yi"))
                .vectorize(x, vec, TailStrategy::GuardWithIf);
            // sy, dy: stored per strip (one folded row), not allocated per row.
            for (Func f : {sy, dy}) {
                f.store_at(output, Var("yo"))
                    .compute_at(output, Var("yi"))
                    .vectorize(x, vec, TailStrategy::GuardWithIf);
            }
        }
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Sobel, lumen_sobel)
