// The seed's two AOT pipelines, both in ONE generator executable (built once on the host).
//   seed_func1: out(x, y) = in(x, y) + 1   (uint8, WRAPPING: 255 -> 0)
//   seed_func2: out(x, y) = in(x, y) * 2   (uint8, WRAPPING: 200 -> 144)
// Scheduled with gpu_tile when the target has a GPU feature (here: opencl).
#include "Halide.h"

using namespace Halide;

namespace {

template<int Op>
class SeedFunc : public Generator<SeedFunc<Op>> {
public:
    GeneratorInput<Buffer<uint8_t, 2>> input{"input"};
    GeneratorOutput<Buffer<uint8_t, 2>> output{"output"};

    void generate() {
        Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
        if (Op == 1) {
            output(x, y) = input(x, y) + cast<uint8_t>(1);
        } else {
            output(x, y) = input(x, y) * cast<uint8_t>(2);
        }
        if (this->get_target().has_gpu_feature()) {
            output.gpu_tile(x, y, xo, yo, xi, yi, 16, 16, TailStrategy::GuardWithIf);
        }
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(SeedFunc<1>, seed_func1)
HALIDE_REGISTER_GENERATOR(SeedFunc<2>, seed_func2)
