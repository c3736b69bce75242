// The separable integer Gaussian shared by gaussian_blur and unsharp_mask.
// Taps w[0..2r] are Q14 (they sum to 16384), computed by the C wrapper (see sdk/src/kernel.c):
//   h = (sum_k w[k] * in(x + k - r) + 32) >> 6          (u16, 8 fractional bits)
//   out = (sum_k w[k] * h(y + k - r) + (1 << 21)) >> 22  (u8)
// Borders clamp to the edge. The taps are symmetric (w[r - j] = w[r + j], as kernel.c makes
// them), so each sum is computed as w[r] * p(0) + sum_j w[r + j] * (p(-j) + p(+j)): half the
// multiplies, the same exact integers.
#pragma once

#include "common.h"

namespace lumen {

struct GaussianBlur {
    Func hsum{"hsum"}, hx{"hx"}, vsum{"vsum"}, out{"blurred"};
    Func clamped;
    RDom r;

    GaussianBlur(Func clamped_, Func w, Expr radius, Var c, Var x, Var y)
        : clamped(clamped_), r(1, radius, "r") {
        auto in = [&](Expr xx) { return cast<uint32_t>(clamped(c, xx, y)); };
        hsum(c, x, y) = cast<uint32_t>(w(radius)) * in(x);
        hsum(c, x, y) += cast<uint32_t>(w(radius + r)) * (in(x - r) + in(x + r));
        hx(c, x, y) = cast<uint16_t>((hsum(c, x, y) + 32) >> 6);
        auto h = [&](Expr yy) { return cast<uint32_t>(hx(c, x, yy)); };
        vsum(c, x, y) = cast<uint32_t>(w(radius)) * h(y);
        vsum(c, x, y) += cast<uint32_t>(w(radius + r)) * (h(y - r) + h(y + r));
        out(c, x, y) = cast<uint8_t>((vsum(c, x, y) + (1 << 21)) >> 22);
    }

    // Schedules the producers of `output`, which schedule_interleaved has scheduled.
    void schedule(Func output, const Target &t, Var c, Var x, Var y, int vec) {
        if (t.has_gpu_feature()) {
            // The horizontal pass per block of the output's 32x8 tiles, in the block's shared
            // (local) memory: 32 x (8 + 2 radius) values per channel, by the block's 32x8
            // threads, (8 + 2 radius) / 8 rows each. No full-size intermediate, so any image
            // that fits in the device runs (a root hx needed twice the image in one buffer).
            Var yi("yi"), ys("ys");
            hx.compute_at(output, Var("xo"))
                .reorder(c, x, y)
                .split(y, ys, yi, 8, TailStrategy::GuardWithIf)
                .reorder(c, x, yi, ys)
                .gpu_threads(x, yi)
                .unroll(c);
            hsum.compute_at(hx, x);
            vsum.compute_at(output, Var("xt"));
            return;
        }
        // Planar intermediates (x innermost) so every vector op is dense: each input row is
        // deinterleaved and clamp-padded once (the taps then read it with no clamps or
        // shuffles); hx slides down each strip of rows, one new row per output row.
        std::vector<Var> a = clamped.args();  // repeat_edge's own (c, x, y)
        clamped.compute_at(hx, y).reorder_storage(a[1], a[0], a[2]).reorder(a[1], a[0], a[2])
            .vectorize(a[1], vec);
        hx.store_at(output, Var("yo"))
            .compute_at(output, Var("yi"))
            .reorder_storage(x, c, y)
            .reorder(x, c, y)
            .vectorize(x, vec);
        hsum.compute_at(hx, x).reorder_storage(x, c, y).vectorize(x);
        hsum.update().reorder(x, c, r).vectorize(x);
        vsum.compute_at(output, x).reorder_storage(x, c, y).vectorize(x);
        vsum.update().reorder(x, c, r).vectorize(x);
    }
};

}  // namespace lumen
