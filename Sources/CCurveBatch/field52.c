#include "satchel_curve_batch.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define MASK52 0xFFFFFFFFFFFFFULL

void satchel_mod52_init(satchel_mod52 *m, const uint64_t p[4]) {
    for (int j = 0; j < 5; j++) {
        int bit = 52 * j, word = bit / 64, shift = bit % 64;
        uint64_t v = p[word] >> shift;
        if (shift > 12 && word + 1 < 4) v |= p[word + 1] << (64 - shift);
        m->p[j] = v & MASK52;
    }
    /* -p^-1 mod 2^64 by Newton's iteration (each step doubles the correct bits), then 52 bits. */
    uint64_t inv = 1;
    for (int i = 0; i < 6; i++) inv *= 2 - p[0] * inv;
    m->pinv = (0 - inv) & MASK52;
}

/* Word-by-word Montgomery (CIOS) in radix 2^52, the products split as IFMA splits them: the
 * low 52 bits into limb j, the next 52 into limb j + 1. Limbs grow to < 2^57 unnormalized. */
static void mul8_portable(const satchel_mod52 *m, uint64_t r[5][8], const uint64_t a[5][8], const uint64_t b[5][8]) {
    for (int lane = 0; lane < 8; lane++) {
        uint64_t z[6] = {0, 0, 0, 0, 0, 0};
        for (int i = 0; i < 5; i++) {
            uint64_t bi = b[i][lane];
            for (int j = 0; j < 5; j++) {
                unsigned __int128 t = (unsigned __int128)a[j][lane] * bi;
                z[j] += (uint64_t)t & MASK52;
                z[j + 1] += (uint64_t)(t >> 52);
            }
            uint64_t q = (z[0] * m->pinv) & MASK52;
            for (int j = 0; j < 5; j++) {
                unsigned __int128 t = (unsigned __int128)q * m->p[j];
                z[j] += (uint64_t)t & MASK52;
                z[j + 1] += (uint64_t)(t >> 52);
            }
            uint64_t carry = z[0] >> 52;  /* z[0] is 0 mod 2^52 now */
            for (int j = 0; j < 5; j++) z[j] = z[j + 1];
            z[5] = 0;
            z[0] += carry;
        }
        for (int j = 0; j < 4; j++) { z[j + 1] += z[j] >> 52; z[j] &= MASK52; }
        /* z < 2p: subtract p, keep the difference unless it borrowed. */
        uint64_t d[5], borrow = 0;
        for (int j = 0; j < 5; j++) {
            uint64_t t = z[j] - m->p[j] - borrow;
            borrow = t >> 63;
            d[j] = t & MASK52;
        }
        uint64_t keep = 0 - borrow;  /* all ones: keep z */
        for (int j = 0; j < 5; j++) r[j][lane] = (z[j] & keep) | (d[j] & ~keep);
    }
}

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512ifma")))
static void mul8_ifma(const satchel_mod52 *m, uint64_t r[5][8], const uint64_t a[5][8], const uint64_t b[5][8]) {
    const __m512i mask = _mm512_set1_epi64((long long)MASK52), zero = _mm512_setzero_si512();
    __m512i x[5], p[5], z[6];
    for (int j = 0; j < 5; j++) {
        x[j] = _mm512_loadu_si512((const void *)a[j]);
        p[j] = _mm512_set1_epi64((long long)m->p[j]);
        z[j] = zero;
    }
    z[5] = zero;
    const __m512i pinv = _mm512_set1_epi64((long long)m->pinv);
    for (int i = 0; i < 5; i++) {
        __m512i bi = _mm512_loadu_si512((const void *)b[i]);
        for (int j = 0; j < 5; j++) {
            z[j] = _mm512_madd52lo_epu64(z[j], x[j], bi);
            z[j + 1] = _mm512_madd52hi_epu64(z[j + 1], x[j], bi);
        }
        __m512i q = _mm512_madd52lo_epu64(zero, z[0], pinv);
        for (int j = 0; j < 5; j++) {
            z[j] = _mm512_madd52lo_epu64(z[j], q, p[j]);
            z[j + 1] = _mm512_madd52hi_epu64(z[j + 1], q, p[j]);
        }
        __m512i carry = _mm512_srli_epi64(z[0], 52);
        for (int j = 0; j < 5; j++) z[j] = z[j + 1];
        z[5] = zero;
        z[0] = _mm512_add_epi64(z[0], carry);
    }
    for (int j = 0; j < 4; j++) {
        z[j + 1] = _mm512_add_epi64(z[j + 1], _mm512_srli_epi64(z[j], 52));
        z[j] = _mm512_and_si512(z[j], mask);
    }
    __m512i d[5], borrow = zero;
    for (int j = 0; j < 5; j++) {
        __m512i t = _mm512_sub_epi64(_mm512_sub_epi64(z[j], p[j]), borrow);
        borrow = _mm512_srli_epi64(t, 63);
        d[j] = _mm512_and_si512(t, mask);
    }
    __mmask8 keep = _mm512_test_epi64_mask(borrow, borrow);  /* lanes that borrowed keep z */
    for (int j = 0; j < 5; j++) _mm512_storeu_si512((void *)r[j], _mm512_mask_blend_epi64(keep, d[j], z[j]));
}
#endif

void satchel_fe52_mul8(enum satchel_simd_path path, const satchel_mod52 *m, uint64_t r[5][8],
                       const uint64_t a[5][8], const uint64_t b[5][8]) {
#if defined(__x86_64__)
    if (path == SATCHEL_SIMD_IFMA && satchel_simd_supported(SATCHEL_SIMD_IFMA)) { mul8_ifma(m, r, a, b); return; }
#endif
    /* AVX2 has no 52-bit multiplier: its field kernels (radix 2^26) are not written yet, so it
     * runs the portable code, as every machine without IFMA does. */
    mul8_portable(m, r, a, b);
}
