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
        Func in = BoundaryConditions::repeat_edge(input);
        auto p = [&](int dx, int dy) { return cast<int16_t>(in(0, x + dx, y + dy)); };
        Expr gx = (p(1, -1) + 2 * p(1, 0) + p(1, 1)) - (p(-1, -1) + 2 * p(-1, 0) + p(-1, 1));
        Expr gy = (p(-1, 1) + 2 * p(0, 1) + p(1, 1)) - (p(-1, -1) + 2 * p(0, -1) + p(1, -1));
        Expr gx2 = cast<int32_t>(gx) * gx, gy2 = cast<int32_t>(gy) * gy;
        Expr mag = sqrt(cast<float>(gx2 + gy2)) + 0.5f;
        output(c, x, y) = cast<uint8_t>(min(mag, 255.0f));

        lumen::interleaved(input);
        lumen::interleaved(output);
        input.dim(0).set_bounds(0, 1);
        output.dim(0).set_bounds(0, 1);
        lumen::schedule_interleaved(output, input.dim(0).extent(), output.dim(1).extent(),
                                    get_target(), c, x, y, natural_vector_size<float>() * 2, {1});
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Sobel, lumen_sobel)
