// resize: bilinear, pixel centres aligned like OpenCV INTER_LINEAR, in exact integer arithmetic.
// For output column x: s = ((2x + 1) * in_w - out_w) / (2 out_w) (negative -> 0), x0 = floor(s),
// x1 = min(x0 + 1, in_w - 1), wx1 = round(frac(s) * 2048), wx0 = 2048 - wx1; rows likewise;
// out = (wy0 (wx0 p00 + wx1 p01) + wy1 (wx0 p10 + wx1 p11) + 2^21) >> 22.
#include "common.h"

namespace {
using namespace Halide;

class Resize : public Generator<Resize> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Input<int> out_width{"out_width"};  // = the output's extents (needed before it is defined)
    Input<int> out_height{"out_height"};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y"), i("i");
        Func xs("xs"), ys("ys");  // per column / row: {first tap, second tap, Q11 weight of second}
        taps(xs, i, input.dim(1).extent(), out_width);
        taps(ys, i, input.dim(2).extent(), out_height);

        // Rows first, then columns: the same exact integer as the formula above (no rounding in
        // between), so each output row needs one blended input row v and two taps into it.
        auto in = [&](Expr yy) {  // taps are in range by construction; tell Halide so
            yy = unsafe_promise_clamped(yy, 0, input.dim(2).extent() - 1);
            return cast<int32_t>(input(c, x, yy));
        };
        auto at = [&](Expr xx) { return unsafe_promise_clamped(xx, 0, input.dim(1).extent() - 1); };
        Expr wx1 = xs(x)[2], wx0 = 2048 - wx1, wy1 = ys(y)[2], wy0 = 2048 - wy1;
        Func v("v");  // Q11 blend of the two source rows, at full input width
        v(c, x, y) = wy0 * in(ys(y)[0]) + wy1 * in(ys(y)[1]);
        Expr sum = wx0 * v(c, at(xs(x)[0]), y) + wx1 * v(c, at(xs(x)[1]), y);
        Expr general = cast<uint8_t>((sum + (1 << 21)) >> 22);

        // Exact halving (in = 2 out both ways), the common thumbnail case: taps 2x, 2x + 1 and
        // weights 1024 each way, so the formula is exactly (p00 + p01 + p10 + p11 + 2) >> 2. On
        // the CPU it gets dense code instead of the general path's gathers: the two source rows
        // summed (u16, one flat row of all channels), then neighbouring pixels.
        Expr channels = input.dim(0).extent();
        Expr halving =
            input.dim(1).extent() == 2 * out_width && input.dim(2).extent() == 2 * out_height;
        Var j("j");
        Func pair("pair");
        auto flat = [&](Expr jj, Expr yy) {
            return cast<uint16_t>(input(jj % channels, jj / channels, yy));
        };
        pair(j, y) = flat(j, 2 * y) + flat(j, 2 * y + 1);
        Expr quad = pair(2 * x * channels + c, y) + pair((2 * x + 1) * channels + c, y);
        bool gpu = get_target().has_gpu_feature();
        output(c, x, y) = gpu ? general : select(halving, cast<uint8_t>((quad + 2) >> 2), general);

        lumen::interleaved(input);
        lumen::interleaved(output);
        output.dim(0).set_extent(input.dim(0).extent());
        output.dim(1).set_extent(out_width);
        output.dim(2).set_extent(out_height);
        if (!gpu) {
            Stage half = output.specialize(halving);
            lumen::schedule_interleaved_stage(half, channels, output.dim(1).extent(), get_target(),
                                              c, x, y, natural_vector_size<uint16_t>());
            pair.compute_at(output, Var("yi"))
                .vectorize(j, natural_vector_size<uint16_t>(), TailStrategy::GuardWithIf);
        }
        lumen::schedule_interleaved(output, input.dim(0).extent(), output.dim(1).extent(),
                                    get_target(), c, x, y, natural_vector_size<int32_t>());
        if (!gpu) {  // on a GPU, v is inlined: the formula as written
            xs.compute_root();
            ys.compute_root();
            // One blended row per output row, channels and x fused into dense vectors; the
            // output then gathers two 32-bit taps per pixel.
            Var cx("cx");
            v.compute_at(output, Var("yi"))
                .reorder(c, x, y)
                .fuse(c, x, cx)
                .vectorize(cx, natural_vector_size<int32_t>(), TailStrategy::GuardWithIf);
        }
    }

private:
    // 64-bit so that (2i + 1) * in_extent cannot overflow for any image Lumen accepts.
    static void taps(Func f, Var i, Expr in_extent, Expr out_extent) {
        Expr n = cast<int64_t>(in_extent), m = cast<int64_t>(out_extent);
        Expr num = max(cast<int64_t>(0), (2 * cast<int64_t>(i) + 1) * n - m);
        Expr den = 2 * m;
        Expr t0 = min(num / den, n - 1);
        Expr t1 = min(t0 + 1, n - 1);
        Expr w1 = ((num % den) * 2048 + m) / den;
        f(i) = {cast<int32_t>(t0), cast<int32_t>(t1), cast<int32_t>(w1)};
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Resize, lumen_resize)
