/* Gaussian taps shared by gaussian_blur and unsharp_mask (see generators/blur.h). */
#include "internal.h"

#include <math.h>

int lumen__gaussian_taps(float sigma, uint16_t *taps) {
    int r = (int)ceil(3.0 * (double)sigma);
    double g[LUMEN__MAX_TAPS], sum = 0.0;
    for (int i = -r; i <= r; i++) {
        g[i + r] = exp(-(double)(i * i) / (2.0 * (double)sigma * (double)sigma));
        sum += g[i + r];
    }
    /* Round every tap but the centre, which takes the rest so the taps sum to exactly 2^16
     * (Q16; the centre stays below 2^16: it is at most 0.79 at sigma 0.5). */
    long total = 0;
    for (int i = -r; i <= r; i++) {
        if (i == 0) continue;
        taps[i + r] = (uint16_t)lround(65536.0 * g[i + r] / sum);
        total += taps[i + r];
    }
    taps[r] = (uint16_t)(65536 - total);
    return r;
}
