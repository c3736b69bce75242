// warp_affine: bilinear, in OpenCV warpAffine's fixed point (lumen_warp_affine). The C wrapper
// gives the inverse map's terms in Q10 (map(i, 0..3): a(x), b(x) per output column, A(y), B(y)
// per output row, rounded as OpenCV does, + 16 in A and B); then X = (a(x) + A(y)) >> 5 and
// Y = (b(x) + B(y)) >> 5 are the source position in Q5: taps (X >> 5) + {0, 1}, (Y >> 5) + {0, 1},
// weights fx = X & 31, fy = Y & 31 as (32 - fx, fx) x (32 - fy, fy), a Q10 sum:
// 8/16-bit (sum + 512) >> 10, float sum / 1024. Border: replicate clamps the taps; constant reads
// the channel's value for a tap outside. Integers only, so exact on every target (float: the
// same products and sums). 8-bit, 3 or 4 channels on the CPU with `pack`: the source's pixels
// packed in 32 bits first (one pass), so each tap is one 32-bit gather for all channels.
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
    GeneratorInput<bool> pack{"pack"};                         // 8-bit CPU only, 3 or 4 channels
    GeneratorInput<T> v0{"v0"}, v1{"v1"}, v2{"v2"}, v3{"v3"};  // constant border, by channel
    GeneratorOutput<Buffer<T>> output{"output", 3};

    // CPU: outputs at least 2 kTile pixels wide go in tiles of kTile columns, strip by strip: a
    // rotation's output row reads about one source row per few pixels, so a whole 4K row
    // thrashed the caches and TLB (4K rotate 30 at 1 thread, RGB 65 -> 45 ms); narrower ones by
    // whole rows (measured as fast).
    static constexpr int kTile = 1024;
    Var c{"c"}, x{"x"}, y{"y"}, yo{"yo"}, yi{"yi"}, xt{"xt"};

    Stage strips(Stage st) {
        return st.reorder(c, x, y)
            .split(y, yo, yi, lumen::kRowsPerTask, TailStrategy::GuardWithIf)
            .parallel(yo);
    }
    Stage tiles(Stage st) {  // the row in equal tiles (multiples of 16) of at most kTile
        Expr n = (out_width + kTile - 1) / kTile, tile = ((out_width + n - 1) / n + 15) / 16 * 16;
        return st.split(x, xt, x, tile, TailStrategy::ShiftInwards).reorder(x, yi, xt, yo);
    }

    void generate() {
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
        Expr result = select(!replicate && none, value, out);
        Expr channels = input.dim(0).extent();
        const Target &t = this->get_target();
        bool packing = sizeof(T) == 1 && !t.has_gpu_feature();
        Func packed("packed"), res("res");
        if (packing) {
            // p(x, y) = channels 0..3 in bytes 0..3 (a 3-channel pixel's byte 3: 0)
            auto byte = [&](int k) {
                return cast<uint32_t>(input(min(k, channels - 1), x, y)) << (8 * k);
            };
            packed(x, y) =
                byte(0) | byte(1) | byte(2) | select(channels == 4, byte(3), cast<uint32_t>(0));
            Expr vp = cast<uint32_t>(v0) | (cast<uint32_t>(v1) << 8) | (cast<uint32_t>(v2) << 16) |
                      (cast<uint32_t>(v3) << 24);
            std::vector<Expr> tp;
            for (int k = 0; k < 4; k++) {
                Expr xx = ix + (k & 1), yy = iy + (k >> 1);
                Expr in = xx >= 0 && xx < w && yy >= 0 && yy < h;
                tp.push_back(
                    select(replicate || in, packed(clamp(xx, 0, w - 1), clamp(yy, 0, h - 1)), vp));
            }
            // res: the output pixel, channels in bytes as packed's
            Expr wts[4] = {(32 - fx) * (32 - fy), fx * (32 - fy), (32 - fx) * fy, fx * fy};
            Expr r = cast<uint32_t>(0);
            for (int ch = 0; ch < 4; ch++) {
                Expr sum = 0;
                for (int k = 0; k < 4; k++)
                    sum += cast<int32_t>((tp[k] >> (8 * ch)) & 255) * wts[k];
                r = r | (cast<uint32_t>((sum + 512) >> 10) << (8 * ch));
            }
            res(x, y) = select(!replicate && none, vp, r);
            result = select(pack, cast<T>(res(x, y) >> cast<uint32_t>(8 * c)), result);
        }
        output(c, x, y) = result;

        lumen::interleaved(input);
        lumen::interleaved(output);
        output.dim(0).set_extent(channels);
        output.dim(1).set_extent(out_width);
        output.dim(2).set_extent(out_height);
        map.dim(1).set_bounds(0, 4);
        if (t.has_gpu_feature()) {
            lumen::schedule_interleaved(output, channels, out_width, t, c, x, y,
                                        this->template natural_vector_size<int32_t>());
            return;
        }
        // CPU, packed: per row, res for 16 pixels, then channels vectorized.
        if (packing) {
            Var co("co"), ci("ci"), xo("xo"), xi("xi");
            for (int k : {3, 4}) {
                Stage st = output.specialize(pack && channels == k);
                strips(st).split(c, co, ci, k, TailStrategy::ShiftInwards).vectorize(ci);
                tiles(st.specialize(out_width >= 2 * kTile))
                    .split(x, xo, xi, 16, TailStrategy::ShiftInwards)
                    .vectorize(xi);
                st.specialize(out_width >= 16)
                    .split(x, xo, xi, 16, TailStrategy::ShiftInwards)
                    .vectorize(xi);
                st.split(x, xo, xi, 1);
            }
            res.compute_at(output, xo).vectorize(x, 16, TailStrategy::GuardWithIf);
            packed.compute_root().split(y, yo, y, 16, TailStrategy::GuardWithIf).parallel(yo);
            for (int k : {3, 4})
                packed.specialize(channels == k).vectorize(x, 16, TailStrategy::GuardWithIf);
        }
        // Otherwise channels unrolled, x vectorized.
        int vec = this->template natural_vector_size<int32_t>();
        Stage rest = packing ? output.specialize(!pack) : Stage(output);
        for (int k : {1, 3, 4}) {
            Stage st = rest.specialize(channels == k);
            strips(st).unroll(c);
            tiles(st.specialize(out_width >= 2 * kTile)).vectorize(x, vec);
            st.specialize(out_width >= vec).vectorize(x, vec, TailStrategy::ShiftInwards);
        }
        rest.specialize_fail("lumen: unsupported channel count");
        if (packing) output.specialize_fail("lumen: unsupported channel count");
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(WarpAffine<uint8_t>, lumen_warp_affine)
HALIDE_REGISTER_GENERATOR(WarpAffine<uint16_t>, lumen_warp_affine_u16)
HALIDE_REGISTER_GENERATOR(WarpAffine<float>, lumen_warp_affine_f32)
