// grayscale: RGB or RGBA (BGR or BGRA with `bgr`) -> gray with BT.601 integer weights,
// Y = (77 R + 150 G + 29 B + 128) >> 8 (weights sum to 256; alpha ignored).
#include "common.h"

namespace {
using namespace Halide;

class Grayscale : public Generator<Grayscale> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Input<bool> bgr{"bgr"};  // channel 0 is B, 2 is R
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y");
        const Target &t = get_target();
        auto in = [&](int ch) { return cast<uint16_t>(input(ch, x, y)); };
        // The weights of channels 0 and 2 are scalars, so both orders run the same code.
        Expr w0 = cast<uint16_t>(select(bgr, 29, 77)), w2 = cast<uint16_t>(select(bgr, 77, 29));
        output(c, x, y) = cast<uint8_t>((w0 * in(0) + 150 * in(1) + w2 * in(2) + 128) >> 8);

        lumen::interleaved(input);
        lumen::interleaved(output);
        output.dim(0).set_bounds(0, 1);
        Expr channels = input.dim(0).extent();
        if (t.has_gpu_feature()) {
            lumen::schedule_interleaved(output, channels, output.dim(1).extent(), t, c, x, y,
                                        natural_vector_size<uint16_t>() * 2, {3, 4});
            return;
        }
        // Strided byte loads: LLVM deinterleaves them with byte shuffles (pshufb, permd) in one
        // pass over the row. Vector widths measured per variant (1 thread, 1080p and 4K RGB /
        // RGBA, docs/performance.md): 16 pixels (64 for AVX-512 RGBA). Before, rows were
        // widened to u16 per chunk and deinterleaved in 16-bit lanes: up to 3x slower.
        Var yo("yo"), yi("yi");
        for (int k : {3, 4}) {
            int vec = t.has_feature(Target::AVX512_Skylake) && k == 4 ? 64 : 16;
            Stage s = output.specialize(channels == k);
            s.reorder(c, x, y)
                .split(y, yo, yi, lumen::kRowsPerTask, TailStrategy::GuardWithIf)
                .parallel(yo);
            s.specialize(output.dim(1).extent() >= vec)
                .vectorize(x, vec, TailStrategy::ShiftInwards);
        }
        output.specialize_fail("lumen: unsupported channel count");
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Grayscale, lumen_grayscale)
