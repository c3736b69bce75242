// orient: flips and rotations by multiples of 90 degrees (lumen_flip, lumen_rotate): pixels moved
// as they are, any element type, the same on every target. mode, in output coordinates (w x h the
// output's size): bit 0 mirrors x (x -> w - 1 - x), bit 1 mirrors y, bit 2 then transposes (reads
// the input at (y, x)). Flips: 1 horizontal, 2 vertical, 3 both (180 degrees); clockwise
// rotations: 90 = 5, 270 = 6.
#include "common.h"

namespace {
using namespace Halide;

template <typename T>
class Orient : public Generator<Orient<T>> {
public:
    GeneratorInput<Buffer<T>> input{"input", 3};
    GeneratorInput<int32_t> mode{"mode"};
    GeneratorOutput<Buffer<T>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y");
        // The output's size from the input's (Halide 14 cannot read output.dim() before output
        // is defined): w x h, or h x w for the transposing modes.
        Expr t = (mode & 4) != 0;
        Expr w = select(t, input.dim(2).extent(), input.dim(1).extent());
        Expr h = select(t, input.dim(1).extent(), input.dim(2).extent());
        Expr xx = select((mode & 1) != 0, w - 1 - x, x), yy = select((mode & 2) != 0, h - 1 - y, y);
        output(c, x, y) = input(c, select(t, yy, xx), select(t, xx, yy));

        lumen::interleaved(input);
        lumen::interleaved(output);
        output.dim(0).set_extent(input.dim(0).extent());
        output.dim(1).set_extent(w);
        output.dim(2).set_extent(h);
        if (this->get_target().has_gpu_feature()) {  // memory-bound: one kernel for all modes
            Var xo("xo"), yo("yo"), xt("xt"), yt("yt");
            output.gpu_tile(x, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            return;
        }
        // Each mode specialized (its selects folded: dense or reversed rows, or columns read for
        // a transpose); a vertical flip moves whole rows, one dense loop over channels and x.
        Expr channels = input.dim(0).extent();
        for (int m : {1, 2, 3, 5, 6}) {
            lumen::schedule_interleaved_impl(output.specialize(mode == m), channels,
                                             output.dim(1).extent(), this->get_target(), c, x, y,
                                             this->template natural_vector_size<T>(), {1, 3, 4},
                                             TailStrategy::ShiftInwards, m == 2, 1);
        }
        output.specialize_fail("lumen: unsupported mode or channel count");
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Orient<uint8_t>, lumen_orient)
HALIDE_REGISTER_GENERATOR(Orient<uint16_t>, lumen_orient_u16)
HALIDE_REGISTER_GENERATOR(Orient<float>, lumen_orient_f32)
