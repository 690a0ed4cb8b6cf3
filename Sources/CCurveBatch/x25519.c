#include "satchel_curve_batch.h"
#include "wipe.h"

#include <stdlib.h>
#include <string.h>
#include <sodium.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* X25519 (RFC 7748) on many u-coordinates with one scalar, as Monero's D = 8·a·R needs for
 * every transaction key of a block: the Montgomery ladder on 8 lanes in radix 2^51 (AVX-512
 * IFMA) or on 4 lanes in radix 2^25.5 (AVX2), the lanes' results divided by their z with one
 * inversion in 64-bit limbs. The scalar's bits are the same in every lane, so the ladder's
 * conditional swaps are masks from one bit, and no branch or address depends on it. */

#define MASK51 0x7FFFFFFFFFFFFULL

/* ---- One element, 64-bit limbs: decoding, the shared inversion and encoding. ---- */

typedef struct { uint64_t v[5]; } fe51;

static void fe51_frombytes(fe51 *r, const uint8_t s[32]) {
    uint64_t w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = 0;
        for (int b = 7; b >= 0; b--) w[i] = w[i] << 8 | s[8 * i + b];
    }
    /* RFC 7748 masks the top bit; a value in [p, 2^255) is taken as it is (reduced later). */
    r->v[0] = w[0] & MASK51;
    r->v[1] = (w[0] >> 51 | w[1] << 13) & MASK51;
    r->v[2] = (w[1] >> 38 | w[2] << 26) & MASK51;
    r->v[3] = (w[2] >> 25 | w[3] << 39) & MASK51;
    r->v[4] = (w[3] >> 12) & MASK51;
}

/* Limbs < 2^52 in and out. */
static void fe51_mul(fe51 *r, const fe51 *a, const fe51 *b) {
    typedef unsigned __int128 u128;
    uint64_t b19[5];
    for (int i = 0; i < 5; i++) b19[i] = b->v[i] * 19;
    u128 t[5];
    for (int k = 0; k < 5; k++) {
        t[k] = 0;
        for (int i = 0; i < 5; i++) {
            int j = k - i;
            t[k] += j >= 0 ? (u128)a->v[i] * b->v[j] : (u128)a->v[i] * b19[j + 5];
        }
    }
    uint64_t c = 0;
    for (int k = 0; k < 5; k++) {
        t[k] += c;
        r->v[k] = (uint64_t)t[k] & MASK51;
        c = (uint64_t)(t[k] >> 51);
    }
    r->v[0] += c * 19;
    r->v[1] += r->v[0] >> 51;
    r->v[0] &= MASK51;
}

/* a^(p−2) = 1/a (0 for 0), by the usual chain: 254 squarings, 11 multiplications. */
static void fe51_invert(fe51 *r, const fe51 *a) {
    fe51 t0, t1, t2, t3;
#define SQN(x, n) for (int i_ = 0; i_ < (n); i_++) fe51_mul(x, x, x)
    fe51_mul(&t0, a, a);            /* 2 */
    t1 = t0; SQN(&t1, 2);           /* 8 */
    fe51_mul(&t1, a, &t1);          /* 9 */
    fe51_mul(&t0, &t0, &t1);        /* 11 */
    fe51_mul(&t2, &t0, &t0);        /* 22 */
    fe51_mul(&t1, &t1, &t2);        /* 2^5 − 1 */
    t2 = t1; SQN(&t2, 5); fe51_mul(&t1, &t2, &t1);    /* 2^10 − 1 */
    t2 = t1; SQN(&t2, 10); fe51_mul(&t2, &t2, &t1);   /* 2^20 − 1 */
    t3 = t2; SQN(&t3, 20); fe51_mul(&t2, &t3, &t2);   /* 2^40 − 1 */
    SQN(&t2, 10); fe51_mul(&t1, &t2, &t1);            /* 2^50 − 1 */
    t2 = t1; SQN(&t2, 50); fe51_mul(&t2, &t2, &t1);   /* 2^100 − 1 */
    t3 = t2; SQN(&t3, 100); fe51_mul(&t2, &t3, &t2);  /* 2^200 − 1 */
    SQN(&t2, 50); fe51_mul(&t1, &t2, &t1);            /* 2^250 − 1 */
    SQN(&t1, 5); fe51_mul(r, &t1, &t0);               /* 2^255 − 21 */
#undef SQN
}

/* The canonical 32 bytes (value mod p). */
static void fe51_tobytes(uint8_t s[32], const fe51 *a) {
    uint64_t t[5];
    memcpy(t, a->v, sizeof t);
    /* Two carry passes bring every limb under 2^51, the value under 2^255 + small. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < 4; i++) { t[i + 1] += t[i] >> 51; t[i] &= MASK51; }
        t[0] += 19 * (t[4] >> 51);
        t[4] &= MASK51;
    }
    /* q = 1 when t ≥ p: t + 19 reaches 2^255. Then t − q·p = t + 19q − q·2^255. */
    uint64_t q = (t[0] + 19) >> 51;
    for (int i = 1; i < 5; i++) q = (t[i] + q) >> 51;
    t[0] += 19 * q;
    for (int i = 0; i < 4; i++) { t[i + 1] += t[i] >> 51; t[i] &= MASK51; }
    t[4] &= MASK51;
    uint64_t w[4] = {t[0] | t[1] << 51, t[1] >> 13 | t[2] << 38, t[2] >> 26 | t[3] << 25, t[3] >> 39 | t[4] << 12};
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 8; b++) s[8 * i + b] = (uint8_t)(w[i] >> (8 * b));
}

/* ---- Eight lanes, AVX-512 IFMA. ---- */
#if defined(__x86_64__)
#define IFMA __attribute__((target("avx512f,avx512ifma")))
/* Every loop over limbs or columns unrolled: left as loops, the columns' bounds vary with k,
 * so the limbs went through memory and the ladder ran at half speed. */
#define UNROLL _Pragma("GCC unroll 16")

typedef struct { __m512i v[5]; } f8;

#define LO(acc, x, y) _mm512_madd52lo_epu64(acc, x, y)
#define HI(acc, x, y) _mm512_madd52hi_epu64(acc, x, y)

/* 19·x, as 16x + 2x + x. The empty asm keeps the compiler from turning the shifts back into
 * a 64-bit multiplication, which without AVX-512DQ it builds from three vpmuludq. */
IFMA static inline __m512i times19(__m512i x) {
    __m512i x16 = _mm512_slli_epi64(x, 4);
    __asm__("" : "+v"(x16));
    return _mm512_add_epi64(_mm512_add_epi64(x16, _mm512_slli_epi64(x, 1)), x);
}

/* Limb k of a product from its column sums: l = Σ lo(a_i·b_j) over i + j = k, h = Σ hi(a_i·b_j)
 * over i + j = k − 1 (the high half of a 104-bit product weighs 2^52 = 2·2^51). Columns are
 * summed one at a time so that few accumulators are live and none spills. */
IFMA static inline __m512i column(__m512i l, __m512i h) { return _mm512_add_epi64(l, _mm512_add_epi64(h, h)); }

/* One parallel carry round: limbs < 2^63 in, < 2^51 + 19·2^12 out. */
IFMA static inline void f8_carry(f8 *r, const __m512i z[5]) {
    const __m512i mask = _mm512_set1_epi64((long long)MASK51);
    __m512i c[5];
    UNROLL
    for (int i = 0; i < 5; i++) c[i] = _mm512_srli_epi64(z[i], 51);
    r->v[0] = _mm512_add_epi64(_mm512_and_si512(z[0], mask), times19(c[4]));
    UNROLL
    for (int i = 1; i < 5; i++) r->v[i] = _mm512_add_epi64(_mm512_and_si512(z[i], mask), c[i - 1]);
}

/* a·b with limbs < 2^52: 25 products split at bit 52 as IFMA splits them, limbs 5…9 folded
 * back times 19 (2^255 ≡ 19). Column sums stay under 2^57, the folded limbs under 2^63. */
IFMA static inline void f8_mul(f8 *r, const f8 *a, const f8 *b) {
    const __m512i zero = _mm512_setzero_si512();
    __m512i z[5];
    UNROLL
    for (int k = 0; k < 5; k++) {
        __m512i l = zero, h = zero, l5 = zero, h5 = zero;
        UNROLL
        for (int i = 0; i <= k; i++) l = LO(l, a->v[i], b->v[k - i]);
        UNROLL
        for (int i = 0; i < k; i++) h = HI(h, a->v[i], b->v[k - 1 - i]);
        UNROLL
        for (int i = k + 1; i < 5; i++) l5 = LO(l5, a->v[i], b->v[k + 5 - i]);
        UNROLL
        for (int i = k; i < 5; i++) h5 = HI(h5, a->v[i], b->v[k + 4 - i]);
        z[k] = _mm512_add_epi64(column(l, h), times19(column(l5, h5)));
    }
    f8_carry(r, z);
}

/* Column c of a², each cross product once and doubled: lo + 2·hi as in column(). */
IFMA static inline __m512i square_column(const f8 *a, int c) {
    const __m512i zero = _mm512_setzero_si512();
    __m512i l = zero, h = zero, dl = zero, dh = zero;
    UNROLL
    for (int i = 0; i < 5; i++)
        UNROLL
        for (int j = i + 1; j < 5; j++) {
            if (i + j == c) l = LO(l, a->v[i], a->v[j]);
            if (i + j + 1 == c) h = HI(h, a->v[i], a->v[j]);
        }
    if (c % 2 == 0 && c / 2 < 5) dl = LO(dl, a->v[c / 2], a->v[c / 2]);
    if (c % 2 == 1 && c / 2 < 5) dh = HI(dh, a->v[c / 2], a->v[c / 2]);
    return column(_mm512_add_epi64(dl, _mm512_add_epi64(l, l)), _mm512_add_epi64(dh, _mm512_add_epi64(h, h)));
}

/* a²: 15 products instead of 25. */
IFMA static inline void f8_sq(f8 *r, const f8 *a) {
    __m512i z[5];
    UNROLL
    for (int k = 0; k < 5; k++) z[k] = _mm512_add_epi64(square_column(a, k), times19(square_column(a, k + 5)));
    f8_carry(r, z);
}

/* a·121665, (A − 2)/4 of curve25519: one limb-sized constant. */
IFMA static inline void f8_mul_a24(f8 *r, const f8 *a) {
    const __m512i zero = _mm512_setzero_si512(), k = _mm512_set1_epi64(121665);
    __m512i z[5], hi[6];
    UNROLL
    for (int i = 0; i < 5; i++) {
        z[i] = _mm512_madd52lo_epu64(zero, a->v[i], k);
        hi[i + 1] = _mm512_madd52hi_epu64(zero, a->v[i], k);
    }
    z[0] = _mm512_add_epi64(z[0], times19(_mm512_add_epi64(hi[5], hi[5])));
    UNROLL
    for (int i = 1; i < 5; i++) z[i] = _mm512_add_epi64(z[i], _mm512_add_epi64(hi[i], hi[i]));
    f8_carry(r, z);
}

IFMA static inline void f8_add(f8 *r, const f8 *a, const f8 *b) {
    __m512i z[5];
    UNROLL
    for (int i = 0; i < 5; i++) z[i] = _mm512_add_epi64(a->v[i], b->v[i]);
    f8_carry(r, z);
}

/* a − b + 2p: every limb of 2p exceeds every limb b can have (< 2^51 + 2^17). */
IFMA static inline void f8_sub(f8 *r, const f8 *a, const f8 *b) {
    const __m512i p0 = _mm512_set1_epi64((long long)(2 * (MASK51 - 18))), pi = _mm512_set1_epi64((long long)(2 * MASK51));
    __m512i z[5];
    z[0] = _mm512_sub_epi64(_mm512_add_epi64(a->v[0], p0), b->v[0]);
    UNROLL
    for (int i = 1; i < 5; i++) z[i] = _mm512_sub_epi64(_mm512_add_epi64(a->v[i], pi), b->v[i]);
    f8_carry(r, z);
}

IFMA static inline void f8_cswap(f8 *a, f8 *b, __m512i mask) {
    UNROLL
    for (int i = 0; i < 5; i++) {
        __m512i t = _mm512_and_si512(mask, _mm512_xor_si512(a->v[i], b->v[i]));
        a->v[i] = _mm512_xor_si512(a->v[i], t);
        b->v[i] = _mm512_xor_si512(b->v[i], t);
    }
}

#define FE f8
#define MASK __m512i
#define MASK_OF(bit) _mm512_set1_epi64((long long)(0 - (bit)))
#define FE_CSWAP f8_cswap
#define FE_ADD f8_add
#define FE_SUB f8_sub
#define FE_MUL f8_mul
#define FE_SQ f8_sq
#define FE_A24 f8_mul_a24
#define PREFIX(name) IFMA name##8
#include "ladder.inc"  /* which undefines them */

/* The ladder on 8 lanes; (x, z) of k·u per lane out, limb-major. */
IFMA static void ladder8(uint64_t xout[5][8], uint64_t zout[5][8], const uint8_t k[32], const uint64_t u[5][8]) {
    f8 x1, x2, z2, x3, z3;
    UNROLL
    for (int i = 0; i < 5; i++) {
        x1.v[i] = x3.v[i] = _mm512_loadu_si512((const void *)u[i]);
        x2.v[i] = z3.v[i] = _mm512_set1_epi64(i == 0);
        z2.v[i] = _mm512_setzero_si512();
    }
    ladder_steps8(&x2, &z2, &x3, &z3, &x1, k);
    UNROLL
    for (int i = 0; i < 5; i++) {
        _mm512_storeu_si512((void *)xout[i], x2.v[i]);
        _mm512_storeu_si512((void *)zout[i], z2.v[i]);
    }
}

/* ---- Four lanes, AVX2: radix 2^25.5 (ten limbs of 26 and 25 bits, offsets 0, 26, 51, 77,
 * …), products of 32-bit halves (vpmuludq), which every x86-64 with AVX2 has. ---- */
#define AVX2 __attribute__((target("avx2")))

typedef struct { __m256i v[10]; } f4;

static const int WIDTH[10] = {26, 25, 26, 25, 26, 25, 26, 25, 26, 25};

/* One carry chain, limb 0 to 9, 9 back into 0 times 19 and on into 1: limbs < 2^64 in, each
 * limb under its width out, but limb 1, which takes the last carry (< 2^18). */
AVX2 static inline void f4_carry(f4 *h) {
    UNROLL
    for (int i = 0; i < 9; i++) {
        __m256i c = _mm256_srli_epi64(h->v[i], WIDTH[i]);
        h->v[i] = _mm256_and_si256(h->v[i], _mm256_set1_epi64x((1LL << WIDTH[i]) - 1));
        h->v[i + 1] = _mm256_add_epi64(h->v[i + 1], c);
    }
    __m256i c = _mm256_srli_epi64(h->v[9], 25);
    h->v[9] = _mm256_and_si256(h->v[9], _mm256_set1_epi64x((1LL << 25) - 1));
    __m256i c16 = _mm256_slli_epi64(c, 4);
    __asm__("" : "+x"(c16));  /* 19c as shifts, not a 64-bit multiplication */
    h->v[0] = _mm256_add_epi64(h->v[0], _mm256_add_epi64(_mm256_add_epi64(c16, _mm256_slli_epi64(c, 1)), c));
    c = _mm256_srli_epi64(h->v[0], 26);
    h->v[0] = _mm256_and_si256(h->v[0], _mm256_set1_epi64x((1LL << 26) - 1));
    h->v[1] = _mm256_add_epi64(h->v[1], c);
}

/* f·g, limbs < 2^27.6: a product f_i·g_j lands on limb i + j, twice when i and j are both odd
 * (their offsets round down), times 19 past limb 9. 19·g_j < 2^32, each product ≤ 2·2^27.6 ·
 * 19·2^27.6 < 2^60.5, and a column's ten under 2^64.
 * Row by row (one f_i against every g_j, read from memory): AVX2 has 16 registers, and the ten
 * column sums take ten of them; holding f, 2f, g and 19g as well spilled everything. */
AVX2 static inline void f4_mul(f4 *h, const f4 *f, const f4 *g) {
    __m256i g19[10];
    UNROLL
    for (int j = 0; j < 10; j++) {
        __m256i g16 = _mm256_slli_epi64(g->v[j], 4);
        __asm__("" : "+x"(g16));
        g19[j] = _mm256_add_epi64(_mm256_add_epi64(g16, _mm256_slli_epi64(g->v[j], 1)), g->v[j]);
    }
    __m256i acc[10];
    UNROLL
    for (int k = 0; k < 10; k++) acc[k] = _mm256_setzero_si256();
    UNROLL
    for (int i = 0; i < 10; i++) {
        __m256i fi = f->v[i], fi2 = _mm256_add_epi64(fi, fi);
        UNROLL
        for (int j = 0; j < 10; j++) {
            int k = (i + j) % 10;
            __m256i x = (i & 1) && (j & 1) ? fi2 : fi;
            acc[k] = _mm256_add_epi64(acc[k], _mm256_mul_epu32(x, i + j >= 10 ? g19[j] : g->v[j]));
        }
    }
    f4 r;
    UNROLL
    for (int k = 0; k < 10; k++) r.v[k] = acc[k];
    f4_carry(&r);
    *h = r;
}

/* f², each product f_i·f_j (i < j) once and doubled: 55 multiplications instead of 100. Limbs
 * < 2^27.6, odd ones < 2^26.6 (what f4_sub gives at most): a column's terms stay under 2^63. */
AVX2 static inline void f4_sq(f4 *h, const f4 *f) {
    __m256i f19[10];
    UNROLL
    for (int j = 0; j < 10; j++) {
        __m256i f16 = _mm256_slli_epi64(f->v[j], 4);
        __asm__("" : "+x"(f16));
        f19[j] = _mm256_add_epi64(_mm256_add_epi64(f16, _mm256_slli_epi64(f->v[j], 1)), f->v[j]);
    }
    __m256i acc[10];
    UNROLL
    for (int k = 0; k < 10; k++) acc[k] = _mm256_setzero_si256();
    UNROLL
    for (int i = 0; i < 10; i++) {
        __m256i fi = f->v[i], fi2 = _mm256_add_epi64(fi, fi), fi4 = _mm256_add_epi64(fi2, fi2);
        UNROLL
        for (int j = i; j < 10; j++) {
            int times = (i == j ? 1 : 2) * ((i & 1) && (j & 1) ? 2 : 1);
            __m256i x = times == 1 ? fi : times == 2 ? fi2 : fi4;
            acc[(i + j) % 10] = _mm256_add_epi64(acc[(i + j) % 10], _mm256_mul_epu32(x, i + j >= 10 ? f19[j] : f->v[j]));
        }
    }
    f4 r;
    UNROLL
    for (int k = 0; k < 10; k++) r.v[k] = acc[k];
    f4_carry(&r);
    *h = r;
}

AVX2 static inline void f4_mul_a24(f4 *h, const f4 *f) {
    const __m256i k = _mm256_set1_epi64x(121665);
    f4 r;
    UNROLL
    for (int i = 0; i < 10; i++) r.v[i] = _mm256_mul_epu32(f->v[i], k);
    f4_carry(&r);
    *h = r;
}

/* Sums and differences are not carried: each goes straight into a multiplication, which takes
 * limbs < 2^27.6 (its bounds above hold for them), and only carried values are added. */
AVX2 static inline void f4_add(f4 *h, const f4 *a, const f4 *b) {
    UNROLL
    for (int i = 0; i < 10; i++) h->v[i] = _mm256_add_epi64(a->v[i], b->v[i]);
}

/* a − b + 2p: each limb of 2p (2^27 − 38, 2^26 − 2, …) exceeds every limb a carried b has
 * (< 2^26, odd ones < 2^25, limb 1 < 2^25 + 2^18). */
AVX2 static inline void f4_sub(f4 *h, const f4 *a, const f4 *b) {
    UNROLL
    for (int i = 0; i < 10; i++) {
        long long two_p = i == 0 ? 2 * ((1LL << 26) - 19) : 2 * ((1LL << WIDTH[i]) - 1);
        h->v[i] = _mm256_sub_epi64(_mm256_add_epi64(a->v[i], _mm256_set1_epi64x(two_p)), b->v[i]);
    }
}

AVX2 static inline void f4_cswap(f4 *a, f4 *b, __m256i mask) {
    UNROLL
    for (int i = 0; i < 10; i++) {
        __m256i t = _mm256_and_si256(mask, _mm256_xor_si256(a->v[i], b->v[i]));
        a->v[i] = _mm256_xor_si256(a->v[i], t);
        b->v[i] = _mm256_xor_si256(b->v[i], t);
    }
}

#define FE f4
#define MASK __m256i
#define MASK_OF(bit) _mm256_set1_epi64x((long long)(0 - (bit)))
#define FE_CSWAP f4_cswap
#define FE_ADD f4_add
#define FE_SUB f4_sub
#define FE_MUL f4_mul
#define FE_SQ f4_sq
#define FE_A24 f4_mul_a24
#define PREFIX(name) AVX2 name##4
#include "ladder.inc"  /* which undefines them */

AVX2 static void ladder4(uint64_t xout[10][4], uint64_t zout[10][4], const uint8_t k[32], const uint64_t u[10][4]) {
    f4 x1, x2, z2, x3, z3;
    for (int i = 0; i < 10; i++) {
        x1.v[i] = x3.v[i] = _mm256_loadu_si256((const __m256i *)u[i]);
        x2.v[i] = z3.v[i] = _mm256_set1_epi64x(i == 0);
        z2.v[i] = _mm256_setzero_si256();
    }
    ladder_steps4(&x2, &z2, &x3, &z3, &x1, k);
    for (int i = 0; i < 10; i++) {
        _mm256_storeu_si256((__m256i *)xout[i], x2.v[i]);
        _mm256_storeu_si256((__m256i *)zout[i], z2.v[i]);
    }
}
#endif

/* 1 when a is zero, without a branch: a's value may be secret-derived. */
static int fe51_iszero(const fe51 *a) {
    uint8_t s[32], acc = 0;
    fe51_tobytes(s, a);
    for (int i = 0; i < 32; i++) acc |= s[i];
    return (int)(((uint32_t)acc - 1) >> 31);
}

static void fe51_add(fe51 *r, const fe51 *a, const fe51 *b) {
    for (int i = 0; i < 5; i++) r->v[i] = a->v[i] + b->v[i];
}

/* a − b + 2p, for limbs < 2^51 + 2^17 (what fe51_mul and fe51_frombytes give). */
static void fe51_sub(fe51 *r, const fe51 *a, const fe51 *b) {
    r->v[0] = a->v[0] + 2 * (MASK51 - 18) - b->v[0];
    for (int i = 1; i < 5; i++) r->v[i] = a->v[i] + 2 * MASK51 - b->v[i];
    fe51 one = {{1, 0, 0, 0, 0}};
    fe51_mul(r, r, &one);  /* back under 2^52 per limb */
}

/* All ones when bit is 1, else 0, through a value barrier: the compiler cannot tell the mask
 * is one of two values, so it cannot turn a select on it into a branch (clang -O2 did, on a
 * zero test of a secret-derived denominator; make ctime saw it). */
static inline uint64_t ct_mask(int bit) {
    uint64_t m = 0 - (uint64_t)bit;
    __asm__("" : "+r"(m));
    return m;
}

/* q[i] = num[i]/den[i] for all i with one inversion (Montgomery's trick); 0 where den[i] is 0,
 * as z^(p−2) gives. `prefix` is scratch for n elements. q may alias num. */
static void fe51_divide_all(fe51 *q, const fe51 *num, const fe51 *den, fe51 *prefix, size_t n) {
    const fe51 one = {{1, 0, 0, 0, 0}};
    fe51 running = one;
    for (size_t i = 0; i < n; i++) {
        prefix[i] = running;
        fe51 d = den[i];
        uint64_t zero = ct_mask(fe51_iszero(&d));
        for (int j = 0; j < 5; j++) d.v[j] = (d.v[j] & ~zero) | (one.v[j] & zero);
        fe51_mul(&running, &running, &d);
    }
    fe51 inverse;
    fe51_invert(&inverse, &running);
    for (size_t i = n; i-- > 0;) {
        fe51 d = den[i], inv_i;
        uint64_t zero = ct_mask(fe51_iszero(&d));
        for (int j = 0; j < 5; j++) d.v[j] = (d.v[j] & ~zero) | (one.v[j] & zero);
        fe51_mul(&inv_i, &inverse, &prefix[i]);
        fe51_mul(&inverse, &inverse, &d);
        fe51_mul(&q[i], &num[i], &inv_i);
        for (int j = 0; j < 5; j++) q[i].v[j] &= ~zero;
    }
}

int satchel_x25519_batch_native(enum satchel_simd_path path) {
#if defined(__x86_64__)
    return path != SATCHEL_SIMD_PORTABLE && satchel_simd_supported(path);
#else
    (void)path;
    return 0;
#endif
}

#if defined(__x86_64__)
/* Radix 2^51 and radix 2^25.5 for the AVX2 lanes: the same bits, cut at other places. */
static const int OFFSET25[11] = {0, 26, 51, 77, 102, 128, 153, 179, 204, 230, 255};

static void fe51_to25(uint64_t out[10], const fe51 *a) {
    uint8_t s[32];
    fe51_tobytes(s, a);
    for (int i = 0; i < 10; i++) {
        uint64_t v = 0;
        for (int bit = OFFSET25[i + 1] - 1; bit >= OFFSET25[i]; bit--) v = v << 1 | ((s[bit >> 3] >> (bit & 7)) & 1);
        out[i] = v;
    }
    wipe(s, sizeof s);
}

/* Limbs < 2^27.1 (not reduced): each added in at its offset, then carried by a multiplication by 1. */
static void fe51_from25(fe51 *r, const uint64_t in[10]) {
    fe51 t = {{0, 0, 0, 0, 0}};
    for (int i = 0; i < 10; i++) {
        int limb = OFFSET25[i] / 51, shift = OFFSET25[i] % 51;
        unsigned __int128 v = (unsigned __int128)in[i] << shift;
        t.v[limb] += (uint64_t)v & MASK51;
        uint64_t high = (uint64_t)(v >> 51);
        if (limb + 1 < 5) t.v[limb + 1] += high; else t.v[0] += 19 * high;
    }
    const fe51 one = {{1, 0, 0, 0, 0}};
    fe51_mul(r, &t, &one);
}
#endif

/* (X : Z) of k·u for every u: 8 (IFMA) or 4 (AVX2) per vector ladder, a short last batch
 * repeating its first point in the lanes it lacks; else libsodium's ladder one at a time
 * (X = its u, Z = 1; X = 0 where it answers −1, which is what the vector ladders give too). */
static void ladder_all(enum satchel_simd_path path, fe51 *x, fe51 *z, const uint8_t k[32], const fe51 *u, size_t n) {
#if defined(__x86_64__)
    if (path == SATCHEL_SIMD_IFMA && satchel_x25519_batch_native(path)) {
        for (size_t start = 0; start < n; start += 8) {
            uint64_t us[5][8], xs[5][8], zs[5][8];
            for (int lane = 0; lane < 8; lane++)
                for (int i = 0; i < 5; i++) us[i][lane] = u[start + lane < n ? start + lane : start].v[i];
            ladder8(xs, zs, k, us);
            size_t lanes = n - start < 8 ? n - start : 8;
            for (size_t lane = 0; lane < lanes; lane++)
                for (int i = 0; i < 5; i++) { x[start + lane].v[i] = xs[i][lane]; z[start + lane].v[i] = zs[i][lane]; }
            wipe(xs, sizeof xs);
            wipe(zs, sizeof zs);
        }
        return;
    }
    if (path == SATCHEL_SIMD_AVX2 && satchel_x25519_batch_native(path)) {
        for (size_t start = 0; start < n; start += 4) {
            uint64_t us[10][4], xs[10][4], zs[10][4], limbs[10];
            for (int lane = 0; lane < 4; lane++) {
                fe51_to25(limbs, &u[start + lane < n ? start + lane : start]);
                for (int i = 0; i < 10; i++) us[i][lane] = limbs[i];
            }
            ladder4(xs, zs, k, us);
            size_t lanes = n - start < 4 ? n - start : 4;
            for (size_t lane = 0; lane < lanes; lane++) {
                for (int i = 0; i < 10; i++) limbs[i] = xs[i][lane];
                fe51_from25(&x[start + lane], limbs);
                for (int i = 0; i < 10; i++) limbs[i] = zs[i][lane];
                fe51_from25(&z[start + lane], limbs);
            }
            wipe(xs, sizeof xs);
            wipe(zs, sizeof zs);
            wipe(limbs, sizeof limbs);
        }
        return;
    }
#endif
    (void)path;
    for (size_t i = 0; i < n; i++) {
        uint8_t in[32], out[32];
        fe51_tobytes(in, &u[i]);
        /* libsodium answers −1 for a point of small order: its output is then cleared by a
         * mask, not a branch on the result (which the ladder's secret output decides). */
        uint8_t keep = (uint8_t)~(uint8_t)crypto_scalarmult_curve25519(out, k, in);
        for (int j = 0; j < 32; j++) out[j] &= keep;
        fe51_frombytes(&x[i], out);
        z[i] = (fe51){{1, 0, 0, 0, 0}};
        wipe(out, 32);
    }
}

/* The scalar as RFC 7748 decodes it. */
static void clamp(uint8_t k[32], const uint8_t scalar[32]) {
    memcpy(k, scalar, 32);
    k[0] &= 248;
    k[31] = (k[31] & 127) | 64;
}

int satchel_x25519_batch(enum satchel_simd_path path, uint8_t *out, const uint8_t scalar[32],
                         const uint8_t *points, size_t n) {
    if (n == 0) return 0;
    fe51 *x = malloc(4 * n * sizeof(fe51));
    if (!x) return -2;
    fe51 *z = x + n, *u = z + n, *scratch = u + n;
    uint8_t k[32];
    clamp(k, scalar);
    for (size_t i = 0; i < n; i++) fe51_frombytes(&u[i], points + 32 * i);
    ladder_all(path, x, z, k, u, n);
    fe51_divide_all(x, x, z, scratch, n);
    for (size_t i = 0; i < n; i++) fe51_tobytes(out + 32 * i, &x[i]);
    wipe(k, sizeof k);
    wipe(x, 4 * n * sizeof(fe51));
    free(x);
    return 0;
}

int satchel_edwards_y_batch(enum satchel_simd_path path, uint8_t *out, uint8_t *ok, const uint8_t scalar[32],
                            const uint8_t *ys, size_t n) {
    if (n == 0) return 0;
    fe51 *x = malloc(5 * n * sizeof(fe51));
    if (!x) return -2;
    fe51 *z = x + n, *num = z + n, *den = num + n, *scratch = den + n;
    const fe51 one = {{1, 0, 0, 0, 0}};
    uint8_t k[32];
    clamp(k, scalar);
    /* u = (1 + y)/(1 − y) for every key, one inversion. */
    for (size_t i = 0; i < n; i++) {
        uint8_t y[32], canonical[32];
        memcpy(y, ys + 32 * i, 32);
        y[31] &= 0x7F;
        fe51 e;
        fe51_frombytes(&e, y);
        fe51_tobytes(canonical, &e);
        ok[i] = memcmp(canonical, y, 32) == 0;  /* Monero refuses a non-canonical y (public) */
        fe51_add(&num[i], &one, &e);
        fe51_sub(&den[i], &one, &e);
    }
    fe51_divide_all(num, num, den, scratch, n);
    ladder_all(path, x, z, k, num, n);
    /* y = (u − 1)/(u + 1) = (X − Z)/(X + Z); none where u is 0 (X or Z is 0) or u + 1 is. */
    for (size_t i = 0; i < n; i++) {
        fe51 sum;
        fe51_add(&sum, &x[i], &z[i]);
        /* Masked, not branched on: X and Z come from the ladder of the secret k. (Whether k·P
         * is the identity or of order 2 is decided by the public point alone, k being a
         * multiple of 8, so the caller may branch on ok.) */
        uint8_t degenerate = (uint8_t)(fe51_iszero(&x[i]) | fe51_iszero(&z[i]) | fe51_iszero(&sum));
        ok[i] &= (uint8_t)(degenerate ^ 1);
        fe51_sub(&num[i], &x[i], &z[i]);
        den[i] = sum;
    }
    fe51_divide_all(num, num, den, scratch, n);
    for (size_t i = 0; i < n; i++) fe51_tobytes(out + 32 * i, &num[i]);
    wipe(k, sizeof k);
    wipe(x, 5 * n * sizeof(fe51));
    free(x);
    return 0;
}
