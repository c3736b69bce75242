// Shared helpers for Lumen's generators: the interleaved u8 image layout and schedules.
#pragma once

#include "Halide.h"

namespace lumen {

using namespace Halide;

// Interleaved u8 images: dim 0 = channel (stride 1), dim 1 = x (stride = channels), dim 2 = y
// (any row stride). Buffers start at 0, except (origin false) a neighbourhood pipeline's input:
// for a view, the C wrapper passes the pixels around it too, at negative coordinates.
template <typename Buf>
void interleaved(Buf &b, bool origin = true) {
    b.dim(0).set_min(0).set_stride(1);
    b.dim(1).set_stride(b.dim(0).extent());
    if (origin) {
        b.dim(1).set_min(0);
        b.dim(2).set_min(0);
    }
}

// A 4:2:0 frame's planes: Y, and U and V at half size, all starting at 0; U and V with any x
// stride (1: planes of their own, I420; 2: the halves of NV12's / NV21's interleaved plane).
template <typename P>
void planes_420(P &luma, P &cb, P &cr) {
    luma.dim(0).set_min(0);
    luma.dim(1).set_min(0);
    for (P *p : {&cb, &cr}) {
        p->dim(0).set_min(0).set_stride(Expr());
        p->dim(1).set_min(0);
    }
}

// Flat rows (neighbourhood pipelines): an interleaved image as rows of elements, i = channels * x
// + c (the C wrapper passes it so; dense for any channel count). For element i of a row whose
// elements are [lo, lo + extent), the element to read with the pixel clamped to the row's edges.
// Inside the row it is i itself (likely: a dense loop of its own, whatever `channels`); writing
// it as (i % channels, i / channels) of a 3-D input left 3-channel loads as gathers where
// Halide's simplifier missed channels * (i / channels) + i % channels = i.
// The channel i % channels is computed in float: a vector `%` by a runtime value is an integer
// division per lane (a third of a 1080p 3x3 box filter's time, at the rows' ends). floor((i +
// 0.5) / channels) is exact: the quotient's fraction is at least 0.5 / channels from an integer,
// far beyond float's error for |i| < 2^21 (a row is at most 65535 * 4 elements and its halo).
inline Expr clamp_flat(Expr i, Expr channels, Expr lo, Expr extent) {
    Expr q = cast<int>(floor((cast<float>(i) + 0.5f) / cast<float>(channels)));
    Expr m = i - channels * q, hi = lo + extent - 1;
    Expr edge = lo + m + cast<int>(i > hi) * (extent - channels);
    auto in = [&](Expr e) { return unsafe_promise_clamped(e, lo, hi); };  // for bounds inference
    return select(i >= lo && i <= hi, likely(in(i)), in(edge));
}

// Allocates f once per iteration of `level` (e.g. a parallel strip) instead of once per iteration
// of its compute loop (a row), with no other effect (no sliding window). Halide 17+ only
// (hoist_storage); Halide 14 keeps a heap block per row. A 1080p blur made ~2900 blocks a call
// (docs/performance.md, "Two threads").
inline Func &hoist(Func &f, LoopLevel level) {
#if defined(HALIDE_VERSION_MAJOR) && HALIDE_VERSION_MAJOR >= 17
    f.hoist_storage(level);
#else
    (void)level;
#endif
    return f;
}

// Rows per parallel task on the CPU.
constexpr int kRowsPerTask = 64;

// Schedules the output `f(c, x, y)` once per channel count in `counts`: channels innermost and
// unrolled, x vectorized (rows at least one vector wide), strips of kRowsPerTask rows in parallel
// (loops "yo" / "yi", for producers stored per strip and computed per row). On a GPU: 2D tiles
// of threads (block loops "xo" / "yo", thread loops "xt" / "yt"), channels unrolled per thread.
// In-place pipelines need x_tail = GuardWithIf: ShiftInwards recomputes (rereads) some pixels.
// fuse_cx (point ops): on the CPU, channels and x become one dense loop "cx" (the interleaved
// row), vectorized as a whole: no strided loads or stores. rows > 1 (with fuse_cx): each "yi"
// iteration does `rows` rows (unrolled loop "yu"), so a vertical stencil computed there loads
// each input row once for all of them. out_channels: the output's channel count where it is
// not known to equal `channels`, specialized on too. gpu_rows: on a GPU, each thread does that
// many rows (serial loop "yu", rows yu * 8 + yt of 8 * gpu_rows per tile), so a producer computed
// per block (a stencil's halo) is shared by more rows.
template <typename F>
void schedule_interleaved_impl(F f, Expr channels, Expr width, const Target &t, Var c, Var x, Var y,
                               int vec, std::vector<int> counts, TailStrategy x_tail, bool fuse_cx,
                               int rows, Expr out_channels = Expr(), int gpu_rows = 1) {
    Var xo("xo"), yo("yo"), xt("xt"), yt("yt"), yi("yi"), yu("yu"), cx("cx");
    for (int k : counts) {
        Stage s = f.specialize(out_channels.defined() ? channels == k && out_channels == k
                                                      : channels == k);
        if (t.has_gpu_feature() && gpu_rows > 1) {
            s.reorder(c, x, y)
                .split(x, xo, xt, 32, TailStrategy::GuardWithIf)
                .split(y, yo, yi, 8 * gpu_rows, TailStrategy::GuardWithIf)
                .split(yi, yu, yt, 8)
                .reorder(c, yu, xt, yt, xo, yo)
                .gpu_blocks(xo, yo)
                .gpu_threads(xt, yt)
                .unroll(c);
        } else if (t.has_gpu_feature()) {
            s.reorder(c, x, y).gpu_tile(x, y, xo, yo, xt, yt, 32, 8, TailStrategy::GuardWithIf);
            s.unroll(c);
        } else if (fuse_cx) {
            s.reorder(c, x, y)
                .fuse(c, x, cx)
                .split(y, yo, yi, kRowsPerTask, TailStrategy::GuardWithIf)
                .parallel(yo);
            if (rows > 1) {
                Var yu("yu");
                s.split(yi, yi, yu, rows).reorder(cx, yu, yi, yo).unroll(yu);
            }
            s.specialize(width * k >= vec).vectorize(cx, vec, x_tail);
        } else {
            s.reorder(c, x, y)
                .split(y, yo, yi, kRowsPerTask, TailStrategy::GuardWithIf)
                .parallel(yo)
                .unroll(c);  // before specialize(): a specialization copies the schedule so far
            s.specialize(width >= vec).vectorize(x, vec, x_tail);
        }
    }
}

// The same, other channel counts failing, for one specialization of a Func (a Stage) ...
inline void schedule_interleaved(Stage f, Expr channels, Expr width, const Target &t, Var c, Var x,
                                 Var y, int vec, std::vector<int> counts = {1, 3, 4},
                                 TailStrategy x_tail = TailStrategy::ShiftInwards,
                                 bool fuse_cx = false, int rows = 1, Expr out_channels = Expr(),
                                 int gpu_rows = 1) {
    schedule_interleaved_impl(f, channels, width, t, c, x, y, vec, counts, x_tail, fuse_cx, rows,
                              out_channels, gpu_rows);
    f.specialize_fail("lumen: unsupported channel count");
}

// ... or for a whole Func (or a generator output).
template <typename... Args>
void schedule_interleaved(Func f, Args &&...args) {
    schedule_interleaved(Stage(f), std::forward<Args>(args)...);
}

// Bilinear taps of resize (OpenCV INTER_LINEAR pixel centres): f(i) = {first source index,
// second, Q11 weight of the second} for output index i of out_extent over in_extent. 64-bit so
// that (2i + 1) * in_extent cannot overflow for any image Lumen accepts.
inline void resize_taps(Func f, Var i, Expr in_extent, Expr out_extent) {
    Expr n = cast<int64_t>(in_extent), m = cast<int64_t>(out_extent);
    Expr num = max(cast<int64_t>(0), (2 * cast<int64_t>(i) + 1) * n - m);
    Expr den = 2 * m;
    Expr t0 = min(num / den, n - 1);
    Expr t1 = min(t0 + 1, n - 1);
    Expr w1 = ((num % den) * 2048 + m) / den;
    f(i) = {cast<int32_t>(t0), cast<int32_t>(t1), cast<int32_t>(w1)};
}

}  // namespace lumen
