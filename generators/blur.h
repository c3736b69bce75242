// The separable integer Gaussian shared by gaussian_blur and unsharp_mask.
// Taps w[0..2r] are Q14 (they sum to 16384), computed by the C wrapper (see sdk/src/kernel.c):
//   h = (sum_k w[k] * in(x + k - r) + 32) >> 6          (u16, 8 fractional bits)
//   out = (sum_k w[k] * h(y + k - r) + (1 << 21)) >> 22  (u8)
// Borders clamp to the edge.
#pragma once

#include "common.h"

namespace lumen {

struct GaussianBlur {
    Func hsum{"hsum"}, hx{"hx"}, vsum{"vsum"}, out{"blurred"};
    RDom r;

    GaussianBlur(Func clamped, Func w, Expr radius, Var c, Var x, Var y)
        : r(0, 2 * radius + 1, "r") {
        hsum(c, x, y) = cast<uint32_t>(0);
        hsum(c, x, y) += cast<uint32_t>(w(r)) * clamped(c, x + r - radius, y);
        hx(c, x, y) = cast<uint16_t>((hsum(c, x, y) + 32) >> 6);
        vsum(c, x, y) = cast<uint32_t>(0);
        vsum(c, x, y) += cast<uint32_t>(w(r)) * hx(c, x, y + r - radius);
        out(c, x, y) = cast<uint8_t>((vsum(c, x, y) + (1 << 21)) >> 22);
    }

    // Schedules the producers of `output`, which schedule_interleaved has scheduled.
    void schedule(Func output, const Target &t, Var c, Var x, Var y, int vec) {
        if (t.has_gpu_feature()) {
            Var xo("xo"), yo("yo"), xt("xt"), yt("yt");
            hx.compute_root().reorder(c, x, y).gpu_tile(x, y, xo, yo, xt, yt, 32, 8,
                                                        TailStrategy::GuardWithIf);
            hsum.compute_at(hx, xt);
            vsum.compute_at(output, Var("xt"));
            return;
        }
        // Planar intermediates (x innermost) so every vector op is dense; hx slides down each
        // strip of rows, one new row per output row.
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
