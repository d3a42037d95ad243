/* The WebAssembly module's exports for testing the dot-product GEMM
 * (core/simd/qgemm_dot.h) from JS: what the start-up probe found, a mode
 * forced, and one product through either GEMM, so that a test can compare
 * the relaxed engine's dot products with the SIMD128 engine's int16 ones
 * bit for bit (wasm/test/qgemm_dot.test.mjs). Not used by kiln.mjs. */
#include <emscripten.h>
#include <stdlib.h>

#include "core/simd/qgemm.h"
#include "core/simd/qgemm_dot.h"

/* What the instruction does exactly (KN_QDOT_*: kn_qgemm_dot_probe);
 * lanes (4 int32) get the probe's a = 127, b = 255 lanes. */
EMSCRIPTEN_KEEPALIVE int kiln_wasm_qgemm_dot_probe(int32_t *lanes)
{
    return kn_qgemm_dot_probe(lanes);
}

/* The mode the convolutions use (KN_QDOT_*). */
EMSCRIPTEN_KEEPALIVE int kiln_wasm_qgemm_dot_mode(void) { return kn_qgemm_dot_mode(); }

/* Forces a mode; returns the one before. */
EMSCRIPTEN_KEEPALIVE int kiln_wasm_qgemm_dot_set_mode(int mode)
{
    return kn_qgemm_dot_set_mode(mode);
}

/* c (m x n) = a (m x k) x b (k x n), int16 8-bit values less zero points,
 * each b + z within [0, 255]: through the dot GEMM in `mode`, or the int16
 * one for KN_QDOT_OFF; A packed once, then B packed and multiplied `reps`
 * times (a convolution's column blocks do that: for timing). Returns 0, -1
 * out of memory, -2 a row of a wider than bytes. */
EMSCRIPTEN_KEEPALIVE int kiln_wasm_qgemm(int m, int n, int k, const int16_t *a, const int16_t *b,
                                         int z, int mode, int32_t *c, int reps)
{
    int16_t *pa = malloc(kn_qgemm_packed_a_len(m, k) * sizeof(int16_t));
    int16_t *pb = malloc(kn_qgemm_packed_b_len(k, n) * sizeof(int16_t));
    void *da = malloc(kn_qgemm_dot_packed_a_bytes(m, k));
    void *db = malloc(kn_qgemm_dot_packed_b_bytes(k, n));
    int rc = pa && pb && da && db ? 0 : -1;
    if (!rc) {
        kn_qgemm_pack_a(m, k, a, k, pa);
        int packed = mode == KN_QDOT_OFF ? 1 : kn_qgemm_dot_pack_a(m, k, a, k, da);
        if (!packed)
            rc = -2;
        for (int r = 0; r < reps && !rc; r++) {
            kn_qgemm_pack_b(k, n, b, n, pb);
            if (mode == KN_QDOT_OFF) {
                kn_qgemm_packed(m, n, k, pa, pb, c, n);
            } else {
                kn_qgemm_dot_pack_b(k, n, pb, z, mode, packed == KN_QDOT_ROWS_SHIFTED, db);
                kn_qgemm_dot_packed(m, n, k, da, db, z, mode, c, n);
            }
        }
    }
    free(pa);
    free(pb);
    free(da);
    free(db);
    return rc;
}
