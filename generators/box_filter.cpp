// box_filter: the mean over a kw x kh rectangle (lumen_box_filter; cv::blur). The window at (x, y)
// is [x - kw/2, x - kw/2 + kw - 1] x [y - kh/2, ...] (OpenCV's default anchor), clamped to the
// input's edges (BORDER_REPLICATE). With S the window's exact integer sum and n = kw * kh, an
// element is floor((S + n/2) / n): exact, so every target gives the same elements. On the CPU,
// O(1) per element in the kernel size: column sums run down each strip of rows (one add and one
// subtract per element and row) and, with `slide`, a row's sums run along it; without it a row
// sum is kw vectorized adds, faster for small kw.
#include "common.h"

namespace {
using namespace Halide;

template <typename T>
class BoxFilter : public Generator<BoxFilter<T>> {
public:
    // Rows of elements, (x, c) fused (i = channels * x + c), as morphology's; a view's input has
    // its pixels around it too.
    GeneratorInput<Buffer<T>> input{"input", 2};
    GeneratorInput<int32_t> channels{"channels"};
    GeneratorInput<int32_t> kw{"kw"};
    GeneratorInput<int32_t> kh{"kh"};
    GeneratorInput<bool> slide{"slide"};  // CPU: running row sums (else kw adds per element)
    GeneratorInput<bool> fast{"fast"};    // 8-bit, n <= kFastMax: one float multiply rounds
    GeneratorOutput<Buffer<T>> output{"output", 2};

    // Rows per strip (a parallel task) on the CPU, each strip's column sums starting afresh.
    static constexpr int kRows = 32;
    // 8-bit, n <= kFastMax: row sums in 16 bits, rounded by one float multiply. S / n + 0.5 +
    // 2^-13 in float is within 2^-13 + 5e-5 of the real value (S exact, two roundings), less
    // than 1 / (2n), and an S / n + 0.5 with a fraction is at least 1 / (2n) from an integer.
    static constexpr int kFastMax = 257;
    Var i{"i"}, y{"y"}, yi{"yi"}, yo{"yo"};

    void generate() {
        // Column sums of 8-bit elements fit 16 bits (kh <= 257), the rest 32.
        Type vt = sizeof(T) == 1 ? UInt(16) : UInt(32);
        Expr ah = kh / 2, aw = kw / 2, n = kw * kh;
        Func src("src"), v("v"), vs("vs"), hd("hd"), h16("h16"), hs("hs");
        Expr ic = lumen::clamp_flat(i, channels, input.dim(0).min(), input.dim(0).extent());
        src(i, y) = cast(vt, input(ic, clamp(y, input.dim(1).min(), input.dim(1).max())));

        const bool gpu = this->get_target().has_gpu_feature();
        RDom r0(0, kh, "r0"), ry(1, kRows - 1, "ry");
        if (gpu) {
            v(i, y) = sum(src(i, y + r0 - ah), "vsum");
        } else {
            // vs(i, yi, yo): the column sums of row yo * kRows + yi, running down the strip.
            Expr y0 = yo * kRows;
            vs(i, yi, yo) = undef(vt);
            vs(i, 0, yo) = sum(src(i, y0 + r0 - ah), "vfirst");
            vs(i, ry, yo) =
                vs(i, ry - 1, yo) + src(i, y0 + ry + kh - 1 - ah) - src(i, y0 + ry - 1 - ah);
            v(i, y) = vs(i, y % kRows, y / kRows);
        }
        // Row sums: kw adds (hd; h16 for 8-bit with n <= kFastMax, in 16 bits), or (hs, CPU)
        // running along the output's row, its first `channels` elements summed in full.
        RDom rx(0, kw, "rx");
        hd(i, y) = sum(cast<uint32_t>(v(i + channels * (rx - aw), y)), "hsum");
        h16(i, y) = sum(v(i + channels * (rx - aw), y), "hsum16");
        Expr lo = output.dim(0).min(), len = output.dim(0).extent();
        RDom c0(lo, channels, "c0"), rr(lo + channels, len - channels, "rr");
        hs(i, y) = undef<uint32_t>();
        hs(c0, y) = hd(c0, y);
        hs(rr, y) = hs(rr - channels, y) + cast<uint32_t>(v(rr + channels * (kw - 1 - aw), y)) -
                    cast<uint32_t>(v(rr - channels * (aw + 1), y));
        Expr sum32 = gpu ? hd(i, y) : select(slide, hs(i, y), hd(i, y));

        // floor(x / n), x = S + n/2, from a float estimate (off by at most one: x < 2^32, x / n <
        // 2^16) and integer corrections; 8-bit with `fast`, one multiply.
        Expr x = sum32 + cast<uint32_t>(n / 2), un = cast<uint32_t>(n);
        Expr inv = 1.0f / cast<float>(n);
        Expr q =
            cast<uint32_t>((sizeof(T) == 1 ? cast<float>(cast<int32_t>(x)) : cast<float>(x)) * inv);
        q = select(x >= (q + 1) * un, q + 1, q);
        q = select(x < q * un, q - 1, q);
        if (sizeof(T) == 1) {
            Expr s16 = gpu ? cast<int32_t>(h16(i, y))
                           : select(slide, cast<int32_t>(hs(i, y)), cast<int32_t>(h16(i, y)));
            Expr qf = cast<int32_t>(cast<float>(s16) * inv + (0.5f + 1.0f / 8192));
            q = select(fast, cast<uint32_t>(qf), q);
        }
        output(i, y) = cast<T>(q);

        input.dim(0).set_stride(1);
        output.dim(0).set_min(0).set_stride(1);
        output.dim(1).set_min(0);
        Var xo("xo"), xt("xt"), yt("yt");
        if (gpu) {
            output.gpu_tile(i, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            if (sizeof(T) == 1) output.specialize(fast);
            v.compute_root().gpu_tile(i, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            return;
        }
        output.split(y, yo, yi, kRows, TailStrategy::GuardWithIf).parallel(yo);
        output.vectorize(i, this->template natural_vector_size<T>(), TailStrategy::GuardWithIf);
        if (sizeof(T) == 1) output.specialize(slide).specialize(fast);
        output.specialize(slide);
        if (sizeof(T) == 1) output.specialize(fast);
        // Per strip: its column sums (the strip's rows and their halo); per row: running sums.
        const int vv = this->natural_vector_size(vt);
        vs.compute_at(output, yo);
        vs.update(0).vectorize(i, vv, TailStrategy::RoundUp);
        vs.update(1).reorder(i, ry).vectorize(i, vv, TailStrategy::RoundUp);
        hs.compute_at(output, yi);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(BoxFilter<uint8_t>, lumen_box_filter)
HALIDE_REGISTER_GENERATOR(BoxFilter<uint16_t>, lumen_box_filter_u16)
