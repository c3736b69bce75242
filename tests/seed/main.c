/* The seed matrix's program: mylib_run on a random image, every pixel checked against plain C.
 * Prints one "SEED ..." line; exit 0: correct pixels, 10: mylib returned an error, 11: wrong
 * pixels. */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

enum { W = 67, H = 45 }; /* not multiples of the 16x16 GPU tiles */

int main(void) {
    static uint8_t in[W * H], out[W * H];
    char msg[2048];
    unsigned s = 12345;
    for (int i = 0; i < W * H; i++) {
        s = s * 1103515245u + 12345u;
        in[i] = (uint8_t)(s >> 16);
    }
    int status = mylib_run(in, out, W, H, msg, sizeof msg);
    if (status != 0) {
        printf("SEED result=error status=%d msg=%s\n", status, msg);
        return 10;
    }
    int bad = 0;
    for (int i = 0; i < W * H; i++) {
        uint8_t want = (uint8_t)((uint8_t)(in[i] + 1) * 2); /* uint8 wrapping, as the pipelines */
        if (out[i] != want && bad++ < 5)
            printf("pixel (%d, %d): got %d, want %d\n", i % W, i / W, out[i], want);
    }
    if (bad) {
        printf("SEED result=wrong-pixels bad=%d of %d\n", bad, W * H);
        return 11;
    }
    printf("SEED result=ok pixels=%d %s\n", W * H, msg);
    return 0;
}
