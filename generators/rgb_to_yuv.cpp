// rgb_to_yuv: interleaved RGB / BGR / RGBA / BGRA (alpha ignored) to a 4:2:0 frame, with the Q16
// coefficients of the C wrapper (lumen.h documents them):
//   Y = (yr R + yg G + yb B + (y_offset << 16) + 2^15) >> 16 per pixel;
//   U = (ur SR + ug SG + ub SB + (128 << 18) + 2^17) >> 18, V likewise with vr, vg, vb, per 2x2
//   block, where SR, SG, SB are the block's sums of R, G, B; each clamped to 0..255.
// U and V are planes of their own (I420) or the halves of one interleaved plane (NV12, NV21: x
// stride 2); the CPU schedule is specialized on that stride.
#include "common.h"

namespace {
using namespace Halide;

class RgbToYuv : public Generator<RgbToYuv> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Input<bool> bgr{"bgr"};  // input channel 0 is B, 2 is R
    Input<int32_t> yr{"yr"}, yg{"yg"}, yb{"yb"}, y_offset{"y_offset"};
    Input<int32_t> ur{"ur"}, ug{"ug"}, ub{"ub"}, vr{"vr"}, vg{"vg"}, vb{"vb"};
    Output<Buffer<uint8_t>> luma{"luma", 2};
    Output<Buffer<uint8_t>> cb{"cb", 2};  // U
    Output<Buffer<uint8_t>> cr{"cr", 2};  // V

    void generate() {
        Var x("x"), y("y");
        auto ch = [&](Expr k, Expr xx, Expr yy) { return cast<int32_t>(input(k, xx, yy)); };
        Expr ri = select(bgr, 2, 0), bi = select(bgr, 0, 2);
        Expr r = ch(ri, x, y), g = ch(1, x, y), b = ch(bi, x, y);
        luma(x, y) = cast<uint8_t>(
            clamp((yr * r + yg * g + yb * b + (y_offset << 16) + (1 << 15)) >> 16, 0, 255));
        auto sum = [&](Expr k) {
            return ch(k, 2 * x, 2 * y) + ch(k, 2 * x + 1, 2 * y) + ch(k, 2 * x, 2 * y + 1) +
                   ch(k, 2 * x + 1, 2 * y + 1);
        };
        auto chroma = [&](Expr wr, Expr wg, Expr wb) {
            Expr e = wr * sum(ri) + wg * sum(1) + wb * sum(bi);
            return cast<uint8_t>(clamp((e + (128 << 18) + (1 << 17)) >> 18, 0, 255));
        };
        cb(x, y) = chroma(ur, ug, ub);
        cr(x, y) = chroma(vr, vg, vb);

        lumen::interleaved(input);
        lumen::planes_420(luma, cb, cr);
        Expr channels = input.dim(0).extent();
        const Target &t = get_target();
        Var xo("xo"), yo("yo"), xt("xt"), yt("yt");
        if (t.has_gpu_feature()) {
            luma.gpu_tile(x, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            cb.gpu_tile(x, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            cr.gpu_tile(x, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            return;
        }
        // Strips of rows in parallel, x vectorized; per channel count (3, 4) and, for U and V,
        // per x stride (1: I420, 2: NV12 / NV21).
        int vec = natural_vector_size<int32_t>() * 2;
        schedule(luma, channels, {1}, vec);
        schedule(cb, channels, {1, 2}, vec);
        schedule(cr, channels, {1, 2}, vec);
    }

private:
    template <typename Out>
    void schedule(Out &o, Expr channels, std::vector<int> strides, int vec) {
        Var x = o.args()[0], y = o.args()[1], yo("yo"), yi("yi");
        for (int k : {3, 4}) {
            for (int stride : strides) {
                Stage s = o.specialize(channels == k && o.dim(0).stride() == stride);
                s.split(y, yo, yi, lumen::kRowsPerTask, TailStrategy::GuardWithIf).parallel(yo);
                s.specialize(o.dim(0).extent() >= vec)
                    .vectorize(x, vec, TailStrategy::ShiftInwards);
            }
        }
        o.specialize_fail("lumen: unsupported channel count or chroma stride");
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(RgbToYuv, lumen_rgb_to_yuv)
