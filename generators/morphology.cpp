// morphology: erosion (min) and dilation (max) with a kw x kh rectangle, and their compositions
// (lumen_morphology). The window at (x, y) is [x - kw/2, x - kw/2 + kw - 1] x [y - kh/2, ...]
// (OpenCV's default anchor), clamped to the input's edges: a replicated edge pixel is in the
// window already, so this is OpenCV's default border (one that never wins a min or max). One
// separable windowed max serves both: min(v) = inv(max(inv(v))), inv(v) = ~v for integers, -v for
// float: exact, so every target gives the same elements. From the C wrapper: structure 0 one pass
// (erode, dilate); 1 two, the second on the first's result clamped to the input's edges (open,
// close; combine 1: input - result, top hat; 2: result - input, black hat); 2 dilate - erode of
// the input (gradient). erode_first: pass one is an erosion (the second is the other). Integer
// differences saturate at 0.
#include "common.h"

namespace {
using namespace Halide;

template <typename T>
class Morphology : public Generator<Morphology<T>> {
public:
    // Rows of elements, (x, c) fused (i = channels * x + c): every target treats a row as one
    // signal, a horizontal step being `channels` elements, whatever the channel count (the C
    // wrapper passes src and dst so). A view's input has its pixels around it too, at
    // coordinates around the output's.
    GeneratorInput<Buffer<T>> input{"input", 2};
    GeneratorInput<int32_t> channels{"channels"};
    GeneratorInput<int32_t> kw{"kw"};
    GeneratorInput<int32_t> kh{"kh"};
    GeneratorInput<int32_t> structure{"structure"};
    GeneratorInput<bool> erode_first{"erode_first"};
    GeneratorInput<int32_t> combine{"combine"};
    GeneratorOutput<Buffer<T>> output{"output", 2};

    // One windowed max: src = inv(the source clamped to the input's edges), h the max over each
    // row's window, v over h's column window (inline reductions: per vector, in a register).
    struct Pass {
        Func src, h;
        Expr v;
    };

    // Rows per strip (a parallel task) on the CPU: a two-pass RGB 1080p strip's rows stay in L2.
    static constexpr int kRows = 32;
    Var i{"i"}, y{"y"};

    // f (the input, or a Func over the same elements) at (i, y) clamped to the input's edges.
    Expr clamped(Func f) {
        Expr ic = lumen::clamp_flat(i, channels, input.dim(0).min(), input.dim(0).extent());
        return f(ic, clamp(y, input.dim(1).min(), input.dim(1).max()));
    }
    static Expr inv(Expr v, Expr on) {
        if (std::is_floating_point<T>::value) return v * select(on, -1.0f, 1.0f);
        return v ^ select(on, v.type().max(), cast<T>(0));
    }
    static Expr sub(Expr a, Expr b) {
        return std::is_floating_point<T>::value ? a - b : select(a > b, a - b, cast<T>(0));
    }

    Pass pass(const std::string &n, Func source, Expr on) {
        RDom rx(0, kw, n + "_rx"), ry(0, kh, n + "_ry");
        Pass p{Func(n + "_src"), Func(n + "_h"), Expr()};
        p.src(i, y) = inv(clamped(source), on);
        p.h(i, y) = maximum(p.src(i + channels * (rx - kw / 2), y), n + "_hmax");
        p.v = maximum(p.h(i, y + ry - kh / 2), n + "_vmax");
        return p;
    }

    void generate() {
        Func in("in"), first("first"), own("own");
        in(i, y) = input(i, y);
        Pass p1 = pass("p1", in, erode_first);
        first(i, y) = inv(p1.v, erode_first);
        Pass p2 = pass("p2", first, !erode_first);  // open, close, top and black hat
        Pass pe = pass("pe", in, true);             // gradient's erosion
        Expr second = inv(p2.v, !erode_first);
        own(i, y) = clamped(in);
        output(i, y) = select(structure == 0, inv(p1.v, erode_first), structure == 2,
                              sub(inv(p1.v, false), inv(pe.v, true)), combine == 1,
                              sub(own(i, y), second), combine == 2, sub(second, own(i, y)), second);

        input.dim(0).set_stride(1);
        output.dim(0).set_min(0).set_stride(1);
        output.dim(1).set_min(0);
        const Target t = this->get_target();
        Var xo("xo"), yo("yo"), xt("xt"), yt("yt"), yi("yi");
        int vec = this->template natural_vector_size<T>();
        for (int s = 0; s < 3; s++) {
            Stage st = output.specialize(structure == s);
            if (t.has_gpu_feature()) {
                st.gpu_tile(i, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            } else {
                st.split(y, yo, yi, kRows, TailStrategy::GuardWithIf).parallel(yo);
                st.vectorize(i, vec, TailStrategy::GuardWithIf);
            }
        }
        output.specialize_fail("lumen: unsupported structure");
        if (t.has_gpu_feature()) {  // each pass's rows, and the first result, in device memory
            for (Func f : {p1.h, p2.h, pe.h, first}) {
                f.compute_root().gpu_tile(i, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            }
            return;
        }
        // Per strip of rows: each pass's rows (and the first result of two passes) for the strip
        // and its halo, each source row inverted and clamp-padded once; the column windows per
        // output vector. (Sliding rows down the strip instead made Halide's sliding window pass run
        // for minutes.)
        // Heap blocks once per strip, not per row: p1's source row is hoisted (lumen::hoist);
        // Halide cannot hoist a Func that some specializations of `structure` leave out, so
        // p2's and pe's source rows, and `own`, are computed for the whole strip instead.
        for (Pass *p : {&p1, &p2, &pe}) {
            if (p == &p1)
                lumen::hoist(p->src, LoopLevel(output, yo)).compute_at(p->h, y);
            else
                p->src.compute_at(output, yo);
            p->src.vectorize(i, vec, TailStrategy::RoundUp);
            for (int k : {1, 3, 4}) p->src.specialize(channels == k);  // the edges' i % channels
            p->h.compute_at(output, yo).vectorize(i, vec, TailStrategy::RoundUp);
        }
        first.compute_at(output, yo).vectorize(i, vec, TailStrategy::RoundUp);
        own.compute_at(output, yo).vectorize(i, vec, TailStrategy::RoundUp);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Morphology<uint8_t>, lumen_morphology)
HALIDE_REGISTER_GENERATOR(Morphology<uint16_t>, lumen_morphology_u16)
HALIDE_REGISTER_GENERATOR(Morphology<float>, lumen_morphology_f32)
