// box_filter: the mean over a kw x kh rectangle (lumen_box_filter; cv::blur). The window at (x, y)
// is [x - kw/2, x - kw/2 + kw - 1] x [y - kh/2, ...] (OpenCV's default anchor), clamped to the
// input's edges (BORDER_REPLICATE). With S the window's exact integer sum and n = kw * kh, an
// element is floor((S + n/2) / n): exact, so every target gives the same elements. On the CPU the
// cost per element does not grow with kh (column sums run down each strip of rows) nor, with
// `slide`, with kw (row sums run along the row); without `slide` a row sum is kw vector adds,
// faster for small kw. A GPU sums each window's column and row directly.
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
    GeneratorInput<bool> sum16{"sum16"};  // 8-bit, n <= kSum16Max, !slide: row sums in 16 bits
    GeneratorOutput<Buffer<T>> output{"output", 2};

    // Rows per strip (a parallel task) on the CPU, each strip's column sums starting afresh.
    static constexpr int kRows = 32;
    // 8-bit: S < 2^24 is exact in float, and fl(fl(S * fl(1 / n)) + 0.5 + 2^-13) is within
    // 3.8e-5 of S / n + 0.5 + 2^-13 (with or without a fused multiply-add), so it lies above
    // S / n + 0.5 and, where that has a fraction (a multiple of 1 / (2n)), below the next integer
    // while 1 / (2n) > 1.6e-4: its integer part is floor((S + n/2) / n) for n <= 3125.
    static constexpr int kFastMax = 2048;
    static constexpr int kSum16Max = 257;  // 255 n < 2^16
    static constexpr int kMulhiMax = 185;  // 8-bit: rounding by a multiply-high (below)
    // slide: the recurrence's distance in pixels, hs(i) = hs(i - kStep C) + ...: whole vectors
    // apart, so a vector's loads never wait on the store just before (16: two or more vectors).
    static constexpr int kStep = 16;
    Var i{"i"}, y{"y"}, yi{"yi"}, yo{"yo"};

    void generate() {
        // Column sums of 8-bit elements fit 16 bits (kh <= 257), the rest 32.
        Type vt = sizeof(T) == 1 ? UInt(16) : UInt(32);
        Expr ah = kh / 2, aw = kw / 2, n = kw * kh, C = channels;
        Func src("src"), v("v"), vs("vs"), hd("hd"), h16("h16"), g4("g4"), hs("hs");
        Expr ic = lumen::clamp_flat(i, C, input.dim(0).min(), input.dim(0).extent());
        src(i, y) = cast(vt, input(ic, clamp(y, input.dim(1).min(), input.dim(1).max())));
        auto u32 = [](Expr e) { return cast<uint32_t>(e); };

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
        // Row sums of kw adds (hd; h16 in 16 bits).
        RDom rx(0, kw, "rx");
        hd(i, y) = sum(u32(v(i + C * (rx - aw), y)), "hsum");
        h16(i, y) = sum(v(i + C * (rx - aw), y), "hsum16");
        // Running row sums (CPU): hs(i) = hs(i - W) + g(i + C b) - g(i - C (a + 1)), W = kStep C,
        // g(j) the sum of kStep taps v(j), v(j - C), ... (four of g4), b = kw - 1 - a, a = kw/2:
        // the window moved by kStep pixels. The first W elements of the row in full.
        g4(i, y) = u32(v(i, y)) + u32(v(i - C, y)) + u32(v(i - 2 * C, y)) + u32(v(i - 3 * C, y));
        auto g = [&](Expr j) {
            Expr s = g4(j, y);
            for (int k = 4; k < kStep; k += 4) s += g4(j - k * C, y);
            return s;
        };
        // Over the input's row (the output's, or a view's with the pixels around it: Halide 14
        // cannot name the output's bounds before it is defined).
        Expr W = kStep * C, lo = input.dim(0).min(), len = input.dim(0).extent();
        RDom c0(lo, min(W, len), "c0"), rr(lo + W, max(len - W, 0), "rr");
        hs(i, y) = undef<uint32_t>();
        hs(c0, y) = hd(c0, y);
        hs(rr, y) = hs(rr - W, y) + (g(rr + C * (kw - 1 - aw)) - g(rr - C * (aw + 1)));
        Expr s32 = gpu ? hd(i, y) : select(slide, hs(i, y), hd(i, y));

        // floor(x / n), x = S + n/2, from a float estimate (off by at most one: x < 2^32, x / n <
        // 2^16) and integer corrections; 8-bit with `fast`, one multiply.
        Expr x = s32 + u32(n / 2), un = u32(n), inv = 1.0f / cast<float>(n);
        Expr xf = sizeof(T) == 1 ? cast<float>(cast<int32_t>(x)) : cast<float>(x);
        Expr q = u32(xf * inv);
        q = select(x >= (q + 1) * un, q + 1, q);
        q = select(x < q * un, q - 1, q);
        Expr small = n >= 2 && n <= kMulhiMax;
        if (sizeof(T) == 1) {
            // (`!slide`: so that slide's specializations drop h16, which is kw adds an element)
            Expr s = cast<float>(cast<int32_t>(select(sum16 && !slide, u32(h16(i, y)), s32)));
            q = select(fast, u32(cast<int32_t>(s * inv + (0.5f + 1.0f / 8192))), q);
            // 16-bit sums and 2 <= n <= kMulhiMax: x < 2^16 and floor(x / n) = (x * M) >> (16 +
            // sh), M = ceil(2^(16 + sh) / n) < 2^16, sh = ceil(log2 n) - 1: one 16-bit
            // multiply-high and a shift (exact for every x <= 255 n + n/2 of every such n;
            // tests/test_pipelines.c checks them all).
            Expr sh = 31 - cast<int32_t>(count_leading_zeros(u32(n - 1)));
            Expr m = cast<uint16_t>(((u32(1) << u32(16 + sh)) + u32(n - 1)) / u32(n));
            Expr x16 = h16(i, y) + cast<uint16_t>(n / 2);
            Expr qm = cast<uint16_t>((cast<uint32_t>(x16) * cast<uint32_t>(m)) >> 16);
            q = select(fast && sum16 && !slide && small, u32(qm >> cast<uint16_t>(sh)), q);
        }
        output(i, y) = cast<T>(q);

        input.dim(0).set_stride(1);
        output.dim(0).set_min(0).set_stride(1);
        output.dim(1).set_min(0);
        Var xo("xo"), xt("xt"), yt("yt");
        if (gpu) {
            output.gpu_tile(i, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            if (sizeof(T) == 1) {
                output.specialize(fast).specialize(sum16).specialize(small);
                output.specialize(fast);
            }
            v.compute_root().gpu_tile(i, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            return;
        }
        const int vec = this->template natural_vector_size<T>();
        const int v32 = this->template natural_vector_size<uint32_t>();
        output.split(y, yo, yi, kRows, TailStrategy::GuardWithIf).parallel(yo);
        output.vectorize(i, vec, TailStrategy::GuardWithIf);
        if (sizeof(T) == 1) {
            output.specialize(slide).specialize(fast);
            output.specialize(slide);
            output.specialize(fast).specialize(sum16).specialize(small);
            output.specialize(fast);
        } else {
            output.specialize(slide);
        }
        // Per strip: its column sums (the strip's rows and their halo); per row: running sums.
        vs.compute_at(output, yo);
        vs.update(0).vectorize(i, this->natural_vector_size(vt), TailStrategy::RoundUp);
        vs.update(1).reorder(i, ry).vectorize(i, this->natural_vector_size(vt),
                                              TailStrategy::RoundUp);
        // Stored per strip (folded to a row), not allocated per row: lumen::hoist cannot take a
        // Func that some specializations (not `slide`) leave out.
        g4.store_at(output, yo).compute_at(output, yi).vectorize(i, v32, TailStrategy::RoundUp);
        hs.store_at(output, yo).compute_at(output, yi);
        // A vector of v32 <= W consecutive elements reads hs only W or more elements back, all
        // stored by earlier vectors: the same as one element at a time (Halide cannot prove it).
        RVar ro("ro"), ri("ri"), co("co"), ci("ci");
        hs.update(0).split(c0, co, ci, v32, TailStrategy::GuardWithIf).vectorize(ci);
        hs.update(1)
            .allow_race_conditions()
            .split(rr, ro, ri, v32, TailStrategy::GuardWithIf)
            .vectorize(ri);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(BoxFilter<uint8_t>, lumen_box_filter)
HALIDE_REGISTER_GENERATOR(BoxFilter<uint16_t>, lumen_box_filter_u16)
