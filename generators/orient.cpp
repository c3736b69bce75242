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
        int vec = this->template natural_vector_size<T>();
        for (int m : {5, 6}) transpose_tiles(output.specialize(mode == m), channels, vec);
        for (int m : {1, 2, 3}) {
            lumen::schedule_interleaved_impl(output.specialize(mode == m), channels,
                                             output.dim(1).extent(), this->get_target(), c, x, y,
                                             vec, {1, 3, 4}, TailStrategy::ShiftInwards, m == 2, 1);
        }
        output.specialize_fail("lumen: unsupported mode or channel count");
    }

private:
    // A rotation by 90 or 270 degrees reads the input's columns: in tiles of kTile x kTile output
    // pixels (strips of kTile rows in parallel), so each tile's source rows stay in L1 (one
    // output row at a time read every source row: at 4K, a cache and TLB miss per pixel). About
    // 4 KB of 1-channel pixels a tile (measured: 64 for 8-bit, 32 for 32-bit elements).
    static constexpr int kTile = sizeof(T) == 1 ? 64 : 32;
    void transpose_tiles(Stage s, Expr channels, int vec) {
        Var c = output.args()[0], x = output.args()[1], y = output.args()[2];
        Var xo("xo"), xi("xi"), yo("yo"), yi("yi");
        for (int k : {1, 3, 4}) {
            Stage t = s.specialize(channels == k);
            t.reorder(c, x, y)
                .split(y, yo, yi, kTile, TailStrategy::GuardWithIf)
                .parallel(yo)
                .unroll(c);  // before specialize(): a specialization copies the schedule so far
            t.specialize(output.dim(1).extent() >= kTile)
                .split(x, xo, xi, kTile, TailStrategy::ShiftInwards)
                .reorder(c, xi, yi, xo, yo)
                .vectorize(xi, vec);
        }
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Orient<uint8_t>, lumen_orient)
HALIDE_REGISTER_GENERATOR(Orient<uint16_t>, lumen_orient_u16)
HALIDE_REGISTER_GENERATOR(Orient<float>, lumen_orient_f32)
