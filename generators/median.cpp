// median: each element's median over its pixel's k x k window (k = 3 or 5), per channel
// (lumen_median), the window clamped to the edge (OpenCV medianBlur's BORDER_REPLICATE): exact,
// elements are only compared. The window's values go through Batcher's odd-even merge sort
// network padded to 16 or 32 values with the type's largest (float: +inf); only the comparators
// the middle rank depends on remain (Halide drops the others). Rows are flat signals as in
// morphology.cpp (the C wrapper passes src and dst as rows of elements); on the CPU each source
// row is clamp-padded once per strip.
#include "common.h"

#include <limits>

namespace {
using namespace Halide;

template <typename T>
class Median : public Generator<Median<T>> {
public:
    GeneratorInput<Buffer<T>> input{"input", 2};  // rows of elements (lumen::clamp_flat)
    GeneratorInput<int32_t> channels{"channels"};
    GeneratorInput<int32_t> size{"size"};  // 3 or 5
    GeneratorOutput<Buffer<T>> output{"output", 2};

    // The median of v (an odd count of values).
    static Expr median(std::vector<Expr> v) {
        size_t n = v.size(), m = 1;
        while (m < n) m <<= 1;
        Expr pad = std::is_floating_point<T>::value ? Expr(std::numeric_limits<float>::infinity())
                                                    : v[0].type().max();
        v.resize(m, pad);
        for (size_t p = 1; p < m; p <<= 1)
            for (size_t k = p; k >= 1; k >>= 1)
                for (size_t j = k % p; j + k < m; j += 2 * k)
                    for (size_t i = 0; i < std::min(k, m - j - k); i++)
                        if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) {
                            Expr a = v[i + j], b = v[i + j + k];
                            v[i + j] = min(a, b);
                            v[i + j + k] = max(a, b);
                        }
        return v[n / 2];
    }

    void generate() {
        Var i("i"), y("y");
        Expr ic = lumen::clamp_flat(i, channels, input.dim(0).min(), input.dim(0).extent());
        Func src("src");
        src(i, y) = input(ic, clamp(y, input.dim(1).min(), input.dim(1).max()));
        auto window = [&](int k) {
            std::vector<Expr> v;
            for (int dy = -k / 2; dy <= k / 2; dy++)
                for (int dx = -k / 2; dx <= k / 2; dx++)
                    v.push_back(src(i + channels * dx, y + dy));
            return median(v);
        };
        output(i, y) = select(size == 3, window(3), window(5));

        input.dim(0).set_stride(1);
        output.dim(0).set_min(0).set_stride(1);
        output.dim(1).set_min(0);
        Var xo("xo"), yo("yo"), xt("xt"), yt("yt"), yi("yi");
        int vec = this->template natural_vector_size<T>();
        if (this->get_target().has_gpu_feature()) {
            output.gpu_tile(i, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            src.compute_root().gpu_tile(i, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
        } else {  // per strip of 32 rows: its rows and halo clamp-padded, then the windows
            output.split(y, yo, yi, 32, TailStrategy::GuardWithIf)
                .parallel(yo)
                .vectorize(i, vec, TailStrategy::GuardWithIf);
            src.compute_at(output, yo).vectorize(i, vec, TailStrategy::RoundUp);
            for (int k : {1, 3, 4}) src.specialize(channels == k);  // the edges' i % channels
        }
        output.specialize(size == 3);
        output.specialize(size == 5);
        output.specialize_fail("lumen: unsupported median size");
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Median<uint8_t>, lumen_median)
HALIDE_REGISTER_GENERATOR(Median<uint16_t>, lumen_median_u16)
HALIDE_REGISTER_GENERATOR(Median<float>, lumen_median_f32)
