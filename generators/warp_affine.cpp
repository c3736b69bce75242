// warp_affine: bilinear, in OpenCV warpAffine's fixed point (lumen_warp_affine). The C wrapper
// gives the inverse map's terms in Q10 (map(i, 0..3): a(x), b(x) per output column, A(y), B(y)
// per output row, rounded as OpenCV does, + 16 in A and B); then X = (a(x) + A(y)) >> 5 and
// Y = (b(x) + B(y)) >> 5 are the source position in Q5: taps (X >> 5) + {0, 1}, (Y >> 5) + {0, 1},
// weights fx = X & 31, fy = Y & 31 as (32 - fx, fx) x (32 - fy, fy), a Q10 sum:
// 8/16-bit (sum + 512) >> 10, float sum / 1024. Border: replicate clamps the taps; constant reads
// the channel's value for a tap outside. Integers only, so exact on every target (float: the
// same products and sums).
#include "common.h"

namespace {
using namespace Halide;

template <typename T>
class WarpAffine : public Generator<WarpAffine<T>> {
    static constexpr bool is_float = std::is_floating_point<T>::value;

public:
    GeneratorInput<Buffer<T>> input{"input", 3};
    GeneratorInput<Buffer<int32_t>> map{"map", 2};
    GeneratorInput<int32_t> out_width{"out_width"};
    GeneratorInput<int32_t> out_height{"out_height"};
    GeneratorInput<bool> replicate{"replicate"};
    GeneratorInput<T> v0{"v0"}, v1{"v1"}, v2{"v2"}, v3{"v3"};  // constant border, by channel
    GeneratorOutput<Buffer<T>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y");
        Expr w = input.dim(1).extent(), h = input.dim(2).extent();
        Expr X = (map(x, 0) + map(y, 2)) >> 5, Y = (map(x, 1) + map(y, 3)) >> 5;
        Expr ix = X >> 5, iy = Y >> 5, fx = X & 31, fy = Y & 31;
        Expr value = select(c == 0, v0, c == 1, v1, c == 2, v2, v3);
        using W = typename std::conditional<is_float, float, int32_t>::type;
        auto tap = [&](int dx, int dy) {
            Expr xx = ix + dx, yy = iy + dy;
            Expr p = input(c, clamp(xx, 0, w - 1), clamp(yy, 0, h - 1));
            Expr in = xx >= 0 && xx < w && yy >= 0 && yy < h;
            Expr wt = (dx ? fx : 32 - fx) * (dy ? fy : 32 - fy);
            return cast<W>(select(replicate || in, p, value)) * cast<W>(wt);
        };
        Expr sum = tap(0, 0) + tap(1, 0) + tap(0, 1) + tap(1, 1);
        Expr out = is_float ? sum * (1.0f / 1024) : cast<T>((sum + 512) >> 10);
        // All four taps outside: the value itself (float: not a sum of its weighted parts)
        Expr none = ix >= w || ix < -1 || iy >= h || iy < -1;
        output(c, x, y) = select(!replicate && none, value, out);

        lumen::interleaved(input);
        lumen::interleaved(output);
        Expr channels = input.dim(0).extent();
        output.dim(0).set_extent(channels);
        output.dim(1).set_extent(out_width);
        output.dim(2).set_extent(out_height);
        map.dim(1).set_bounds(0, 4);
        lumen::schedule_interleaved(output, channels, out_width, this->get_target(), c, x, y,
                                    this->template natural_vector_size<int32_t>());
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(WarpAffine<uint8_t>, lumen_warp_affine)
HALIDE_REGISTER_GENERATOR(WarpAffine<uint16_t>, lumen_warp_affine_u16)
HALIDE_REGISTER_GENERATOR(WarpAffine<float>, lumen_warp_affine_f32)
