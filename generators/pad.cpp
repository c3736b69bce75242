// pad: the input with a border around it (lumen_context_set_border): what a neighbourhood
// pipeline reads under the context's border mode, written out so the pipeline itself stays as it
// is (it reads this instead of the source, never past its edges). The output is any rectangle
// (the source's grown by the pipeline's reach); inside the input it is the input, outside it is,
// by mode (OpenCV's BORDER_* numbers, its borderInterpolate, at any distance: a border wider than
// the image reflects or wraps again): 0 constant (v0..v3 for channel 0..3), 1 replicate
// (aaa|abcd|ddd), 2 reflect (cba|abcd|dcb), 3 wrap (bcd|abcd|abc), 4 reflect-101 (dcb|abcd|cba;
// a 1-pixel row: its pixel). Pixels are only moved: the same on every target.
#include "common.h"

namespace {
using namespace Halide;

template <typename T>
class Pad : public Generator<Pad<T>> {
public:
    GeneratorInput<Buffer<T>> input{"input", 3};
    GeneratorInput<int32_t> mode{"mode"};
    GeneratorInput<T> v0{"v0"};
    GeneratorInput<T> v1{"v1"};
    GeneratorInput<T> v2{"v2"};
    GeneratorInput<T> v3{"v3"};
    GeneratorOutput<Buffer<T>> output{"output", 3};

    // The coordinate read for x along a dimension of the input [lo, lo + n) (x itself inside).
    Expr source(Expr x, Expr lo, Expr n) {
        Expr d = x - lo, p = max(2 * n - 2, 1);  // % is Euclidean: d < 0 too
        Expr t2 = d % (2 * n), t4 = d % p;
        return lo + select(mode == 2, select(t2 < n, t2, 2 * n - 1 - t2), mode == 3, d % n,
                           mode == 4, select(t4 < n, t4, p - t4), clamp(d, 0, n - 1));
    }

    void generate() {
        Var c("c"), x("x"), y("y"), i("i");
        Expr x0 = input.dim(1).min(), x1 = input.dim(1).max();
        Expr y0 = input.dim(2).min(), y1 = input.dim(2).max();
        // Each column's and row's source coordinate (tables on the CPU: the divisions once per
        // column and row, not per element).
        Func ix("ix"), iy("iy");
        ix(i) = source(i, x0, input.dim(1).extent());
        iy(i) = source(i, y0, input.dim(2).extent());
        Expr inside = x >= x0 && x <= x1 && y >= y0 && y <= y1;
        Expr value = select(c == 0, v0, c == 1, v1, c == 2, v2, v3);
        Expr border = input(c, clamp(ix(x), x0, x1), clamp(iy(y), y0, y1));
        // Inside, the input itself (likely: the copy is a loop of its own, clamps folded; a
        // vector select reads both sides, so the copy's reads stay inside the input too).
        Expr copy = input(c, clamp(likely(x), x0, x1), clamp(likely(y), y0, y1));
        output(c, x, y) = select(inside, copy, mode == 0, value, border);

        lumen::interleaved(input, false);
        lumen::interleaved(output, false);
        output.dim(0).set_extent(input.dim(0).extent());
        if (this->get_target().has_gpu_feature()) {  // memory-bound: one kernel for every mode
            Var xo("xo"), yo("yo"), xt("xt"), yt("yt");
            output.gpu_tile(x, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            return;
        }
        ix.compute_root();
        iy.compute_root();
        lumen::schedule_interleaved(output, input.dim(0).extent(), output.dim(1).extent(),
                                    this->get_target(), c, x, y,
                                    this->template natural_vector_size<T>());
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Pad<uint8_t>, lumen_pad)
HALIDE_REGISTER_GENERATOR(Pad<uint16_t>, lumen_pad_u16)
HALIDE_REGISTER_GENERATOR(Pad<float>, lumen_pad_f32)
