// to_tensor: an 8-bit image to float, resized and normalized in one pass (lumen_to_tensor).
// Output channel k = c0 + c (c0: the plane a planar tensor's call writes) reads source channel
// params(k, 0), resizes it as lumen_resize's float path does (bilinear, Q11 weights; at the
// source's size, the value itself), then * params(k, 1) + params(k, 2) (scale, offset).
#include "common.h"

namespace {
using namespace Halide;

class ToTensor : public Generator<ToTensor> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Input<Buffer<float>> params{"params", 2};  // (k, 0..2): source channel, scale, offset
    Input<int32_t> c0{"c0"};
    Input<int32_t> out_width{"out_width"};
    Input<int32_t> out_height{"out_height"};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Var c("c"), x("x"), y("y"), i("i");
        Func xs("xs"), ys("ys"), v("v");
        Expr in_w = input.dim(1).extent(), in_h = input.dim(2).extent();
        lumen::resize_taps(xs, i, in_w, out_width);
        lumen::resize_taps(ys, i, in_h, out_height);
        Expr k = c + c0,
             sc = unsafe_promise_clamped(cast<int32_t>(params(k, 0)), 0, input.dim(0).extent() - 1);
        auto in = [&](Expr xx, Expr yy) {
            return cast<float>(input(sc, unsafe_promise_clamped(xx, 0, in_w - 1),
                                     unsafe_promise_clamped(yy, 0, in_h - 1)));
        };
        Expr wx1 = xs(x)[2], wx0 = 2048 - wx1, wy1 = ys(y)[2], wy0 = 2048 - wy1;
        v(c, x, y) = (cast<float>(wy0) * in(x, ys(y)[0]) + cast<float>(wy1) * in(x, ys(y)[1])) *
                     (1.0f / 2048);
        Expr r = (cast<float>(wx0) * v(c, unsafe_promise_clamped(xs(x)[0], 0, in_w - 1), y) +
                  cast<float>(wx1) * v(c, unsafe_promise_clamped(xs(x)[1], 0, in_w - 1), y)) *
                 (1.0f / 2048);
        Expr same = out_width == in_w && out_height == in_h;
        output(c, x, y) = select(same, in(x, y), r) * params(k, 1) + params(k, 2);

        lumen::interleaved(input);
        lumen::interleaved(output);
        params.dim(0).set_bounds(0, 4).dim(1).set_bounds(0, 3);
        output.dim(1).set_extent(out_width);
        output.dim(2).set_extent(out_height);
        const Target &t = get_target();
        int vec = natural_vector_size<float>();
        Expr oc = output.dim(0).extent();
        lumen::schedule_interleaved_impl(output.specialize(same), oc, out_width, t, c, x, y, vec,
                                         {1, 3, 4}, TailStrategy::GuardWithIf, false, 1);
        lumen::schedule_interleaved(output, oc, out_width, t, c, x, y, vec, {1, 3, 4},
                                    TailStrategy::GuardWithIf);
        if (!t.has_gpu_feature()) {
            xs.compute_root();
            ys.compute_root();
            v.compute_at(output, Var("yi")).vectorize(x, vec, TailStrategy::GuardWithIf);
        }
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ToTensor, lumen_to_tensor)
