// threshold: per element, with gt = (v > t): type 0 binary gt ? m : 0, 1 binary_inv gt ? 0 : m,
// 2 trunc gt ? tv : v, 3 to_zero gt ? v : 0, 4 to_zero_inv gt ? 0 : v (OpenCV's THRESH_* numbers).
// The C wrapper gives t (8- and 16-bit: floor(thresh), clamped to -1..max), tv (t clamped to
// 0..max) and m (maxval rounded, clamped): exact on every target; float: thresh, thresh, maxval.
#include "common.h"

namespace {
using namespace Halide;

template <typename T, typename P>
class Threshold : public Generator<Threshold<T, P>> {
public:
    GeneratorInput<Buffer<T>> input{"input", 3};
    GeneratorInput<P> t{"t"};
    GeneratorInput<T> tv{"tv"};
    GeneratorInput<T> m{"m"};
    GeneratorInput<int32_t> type{"type"};
    GeneratorOutput<Buffer<T>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y");
        Expr v = input(c, x, y), zero = cast<T>(0), gt;
        if (std::is_floating_point<T>::value) {
            gt = v > t;
        } else {  // in T's own lanes: t clamped to T's range (t < 0: every value is above it)
            Expr tc = cast<T>(clamp(t, 0, cast<P>(zero.type().max())));
            gt = v > tc || t < 0;
        }
        output(c, x, y) =
            select(type == 0, select(gt, m, zero), type == 1, select(gt, zero, m), type == 2,
                   select(gt, tv, v), type == 3, select(gt, v, zero), select(gt, zero, v));

        lumen::interleaved(input);
        lumen::interleaved(output);
        output.dim(0).set_extent(input.dim(0).extent());
        if (this->get_target().has_gpu_feature()) {  // memory-bound: one kernel for any channels
            Var xo("xo"), yo("yo"), xt("xt"), yt("yt");
            output.gpu_tile(x, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            return;
        }
        for (int k = 0; k < 5; k++) {  // each type specialized: its select folded
            lumen::schedule_interleaved(output.specialize(type == k), input.dim(0).extent(),
                                        output.dim(1).extent(), this->get_target(), c, x, y,
                                        this->template natural_vector_size<T>(), {1, 3, 4},
                                        TailStrategy::GuardWithIf, true);  // may run in place
        }
        output.specialize_fail("lumen: unsupported threshold type");
    }
};

using ThresholdU8 = Threshold<uint8_t, int16_t>;
using ThresholdU16 = Threshold<uint16_t, int32_t>;
using ThresholdF32 = Threshold<float, float>;

}  // namespace

HALIDE_REGISTER_GENERATOR(ThresholdU8, lumen_threshold)
HALIDE_REGISTER_GENERATOR(ThresholdU16, lumen_threshold_u16)
HALIDE_REGISTER_GENERATOR(ThresholdF32, lumen_threshold_f32)
