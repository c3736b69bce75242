// filter2d: a caller's integer kernel (lumen_filter2d: kw x kh taps; lumen_sep_filter: kw row taps
// times kh column taps). An element is clamp(floor((S + 2^shift / 2) / 2^shift), 0, max) with S
// the exact sum of tap * element over the window [x - kw/2, x - kw/2 + kw - 1] x [y - kh/2, ...]
// (OpenCV's default anchor), clamped to the input's edges (BORDER_REPLICATE). The C wrapper
// refuses kernels whose sums could leave 32 bits, so every target gives the same elements.
#include "common.h"

namespace {
using namespace Halide;

template <typename T, bool Sep>
class Filter : public Generator<Filter<T, Sep>> {
public:
    // Rows of elements, (x, c) fused (i = channels * x + c), as morphology's; a view's input has
    // its pixels around it too.
    GeneratorInput<Buffer<T>> input{"input", 2};
    GeneratorInput<int32_t> channels{"channels"};
    // Sep: the row taps (kw) and column taps (kh); else kernel(i, j), kw x kh, and ky unused.
    GeneratorInput<Buffer<int16_t>> kx{"kx", Sep ? 1 : 2};
    GeneratorInput<Buffer<int16_t>> ky{"ky", 1};
    GeneratorInput<int32_t> shift{"shift"};  // 0..30
    GeneratorOutput<Buffer<T>> output{"output", 2};

    static constexpr int kRows = 32;  // rows per strip (a parallel task) on the CPU
    Var i{"i"}, y{"y"};

    void generate() {
        Expr C = channels, kw = kx.dim(0).extent(),
             kh = Sep ? ky.dim(0).extent() : kx.dim(1).extent();
        Expr aw = kw / 2, ah = kh / 2;
        Func src("src"), h("h");
        Expr ic = lumen::clamp_flat(i, C, input.dim(0).min(), input.dim(0).extent());
        src(i, y) = input(ic, clamp(y, input.dim(1).min(), input.dim(1).max()));
        auto i32 = [](Expr e) { return cast<int32_t>(e); };
        // The sums as Funcs of their own (sh, sv, s2), to unroll for common kernel sizes.
        RDom rx(0, kw, "rx"), ry(0, kh, "ry"), r(0, kw, 0, kh, "r");
        Func sv("sv"), s2("s2");
        if (Sep) {
            h(i, y) = 0;
            h(i, y) += i32(kx(rx)) * i32(src(i + C * (rx - aw), y));
            sv(i, y) = 0;
            sv(i, y) += i32(ky(ry)) * h(i, y + ry - ah);
        } else {
            s2(i, y) = 0;
            s2(i, y) += i32(kx(r.x, r.y)) * i32(src(i + C * (r.x - aw), y + r.y - ah));
        }
        Expr s = Sep ? sv(i, y) : s2(i, y);
        Expr half = select(shift > 0, (1 << max(shift, 1)) >> 1, 0);
        Expr q = (s + half) >> shift;
        output(i, y) = cast<T>(clamp(q, 0, (int)std::numeric_limits<T>::max()));

        input.dim(0).set_stride(1);
        kx.dim(0).set_min(0);
        ky.dim(0).set_min(0);
        if (!Sep) kx.dim(1).set_min(0);
        output.dim(0).set_min(0).set_stride(1);
        output.dim(1).set_min(0);
        Var xo("xo"), yo("yo"), xt("xt"), yt("yt"), yi("yi");
        if (this->get_target().has_gpu_feature()) {
            output.gpu_tile(i, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            if (Sep)
                h.compute_root().gpu_tile(i, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            return;
        }
        const int vec = this->template natural_vector_size<T>();
        const int v32 = this->template natural_vector_size<int32_t>();
        output.split(y, yo, yi, kRows, TailStrategy::GuardWithIf)
            .parallel(yo)
            .vectorize(i, vec, TailStrategy::GuardWithIf);
        // Per strip: the clamp-padded source rows (and, Sep, the row sums) with their halo; per
        // output vector its sums, the taps unrolled for 3 and 5 (kept in registers).
        src.compute_at(output, yo).vectorize(i, vec, TailStrategy::RoundUp);
        for (int k : {1, 3, 4}) src.specialize(C == k);  // the edges' i % channels
        Func acc = Sep ? sv : s2;
        acc.compute_at(output, i).vectorize(i, vec, TailStrategy::RoundUp);
        acc.update(0).vectorize(i, vec, TailStrategy::RoundUp);
        if (Sep) {
            h.compute_at(output, yo).vectorize(i, v32, TailStrategy::RoundUp);
            h.update(0).vectorize(i, v32, TailStrategy::RoundUp);
            for (int k : {3, 5}) {
                h.update(0).specialize(kw == k).unroll(rx);
                acc.update(0).specialize(kh == k).unroll(ry);
            }
        } else {
            for (int k : {3, 5})
                acc.update(0).specialize(kw == k && kh == k).unroll(r.x).unroll(r.y);
        }
    }
};

}  // namespace

using Filter2D = Filter<uint8_t, false>;
using Filter2D16 = Filter<uint16_t, false>;
using SepFilter = Filter<uint8_t, true>;
using SepFilter16 = Filter<uint16_t, true>;
HALIDE_REGISTER_GENERATOR(Filter2D, lumen_filter2d)
HALIDE_REGISTER_GENERATOR(Filter2D16, lumen_filter2d_u16)
HALIDE_REGISTER_GENERATOR(SepFilter, lumen_sep_filter)
HALIDE_REGISTER_GENERATOR(SepFilter16, lumen_sep_filter_u16)
