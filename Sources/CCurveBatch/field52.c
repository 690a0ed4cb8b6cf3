#include "satchel_curve_batch.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define MASK52 0xFFFFFFFFFFFFFULL

/* ---- One lane, portable: the bit-exact reference of the vector kernels. ---- */

typedef struct { uint64_t v[5]; } fe1;

/* r = z − p unless that borrows (z < 2p, limbs normalized). */
static inline void fe1_reduce_once(const satchel_mod52 *m, fe1 *r, const uint64_t z[5]) {
    uint64_t d[5], borrow = 0;
    for (int j = 0; j < 5; j++) {
        uint64_t t = z[j] - m->p[j] - borrow;
        borrow = t >> 63;
        d[j] = t & MASK52;
    }
    uint64_t keep = 0 - borrow;  /* all ones: keep z */
    for (int j = 0; j < 5; j++) r->v[j] = (z[j] & keep) | (d[j] & ~keep);
}

/* Word-by-word Montgomery (CIOS) in radix 2^52, the products split as IFMA splits them: the
 * low 52 bits into limb j, the next 52 into limb j + 1. Limbs grow to < 2^57 unnormalized. */
static inline void fe1_mul(const satchel_mod52 *m, fe1 *r, const fe1 *a, const fe1 *b) {
    uint64_t z[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 5; i++) {
        uint64_t bi = b->v[i];
        for (int j = 0; j < 5; j++) {
            unsigned __int128 t = (unsigned __int128)a->v[j] * bi;
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
    fe1_reduce_once(m, r, z);  /* z < 2p */
}

static inline void fe1_add(const satchel_mod52 *m, fe1 *r, const fe1 *a, const fe1 *b) {
    uint64_t z[5], carry = 0;
    for (int j = 0; j < 5; j++) { z[j] = a->v[j] + b->v[j] + carry; carry = z[j] >> 52; z[j] &= MASK52; }
    fe1_reduce_once(m, r, z);
}

/* a − b, plus p when it borrows (the 2^260 the borrow stands for is dropped with the carry). */
static inline void fe1_sub(const satchel_mod52 *m, fe1 *r, const fe1 *a, const fe1 *b) {
    uint64_t d[5], borrow = 0;
    for (int j = 0; j < 5; j++) { uint64_t t = a->v[j] - b->v[j] - borrow; borrow = t >> 63; d[j] = t & MASK52; }
    uint64_t add = 0 - borrow, carry = 0;
    for (int j = 0; j < 5; j++) { uint64_t t = d[j] + (m->p[j] & add) + carry; carry = t >> 52; r->v[j] = t & MASK52; }
}

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
    for (int j = 0; j < 5; j++) m->b3[j] = 0;
}

void satchel_mod52_set_b(satchel_mod52 *m, uint64_t b) {
    /* R = 2^260 mod p by 260 doublings of 1, then 3b·R by double-and-add. */
    fe1 r = {{1, 0, 0, 0, 0}}, acc = {{0, 0, 0, 0, 0}};
    for (int i = 0; i < 260; i++) fe1_add(m, &r, &r, &r);
    for (int bit = 63; bit >= 0; bit--) {
        fe1_add(m, &acc, &acc, &acc);
        if ((3 * b >> bit) & 1) fe1_add(m, &acc, &acc, &r);  /* b is public: a curve constant */
    }
    for (int j = 0; j < 5; j++) m->b3[j] = acc.v[j];
}

/* The complete formulas, once, for each backend (pallas_formulas.inc). */
#define FE fe1
#define CTX const satchel_mod52
#define FE_MUL(r, a, b) fe1_mul(c, r, a, b)
#define FE_ADD(r, a, b) fe1_add(c, r, a, b)
#define FE_SUB(r, a, b) fe1_sub(c, r, a, b)
#define FE_B3(c) ((const fe1 *)(c)->b3)
#define PREFIX(name) lane1_##name
#include "point_formulas.inc"  /* which undefines them */

static void load1(fe1 *out, const uint64_t x[5][8], int lane) { for (int j = 0; j < 5; j++) out->v[j] = x[j][lane]; }
static void store1(uint64_t x[5][8], const fe1 *in, int lane) { for (int j = 0; j < 5; j++) x[j][lane] = in->v[j]; }

static void mul8_portable(const satchel_mod52 *m, uint64_t r[5][8], const uint64_t a[5][8], const uint64_t b[5][8]) {
    for (int lane = 0; lane < 8; lane++) {
        fe1 x, y, z;
        load1(&x, a, lane);
        load1(&y, b, lane);
        fe1_mul(m, &z, &x, &y);
        store1(r, &z, lane);
    }
}

static void point8_portable(const satchel_mod52 *c, satchel_point8 *r, const satchel_point8 *a, const satchel_point8 *b) {
    for (int lane = 0; lane < 8; lane++) {
        fe1 p[3], q[3], out[3];
        load1(&p[0], a->x, lane); load1(&p[1], a->y, lane); load1(&p[2], a->z, lane);
        if (b) {
            load1(&q[0], b->x, lane); load1(&q[1], b->y, lane); load1(&q[2], b->z, lane);
            lane1_add(c, out, p, q);
        } else {
            lane1_double(c, out, p);
        }
        store1(r->x, &out[0], lane); store1(r->y, &out[1], lane); store1(r->z, &out[2], lane);
    }
}

/* ---- Eight lanes, AVX-512 IFMA. ---- */
#if defined(__x86_64__)
#define IFMA __attribute__((target("avx512f,avx512ifma")))

typedef struct { __m512i v[5]; } fe8;
typedef struct { __m512i p[5], pinv, b3[5]; } ctx8;

IFMA static inline void fe8_reduce_once(const ctx8 *c, fe8 *r, const __m512i z[5]) {
    const __m512i mask = _mm512_set1_epi64((long long)MASK52), zero = _mm512_setzero_si512();
    __m512i d[5], borrow = zero;
    for (int j = 0; j < 5; j++) {
        __m512i t = _mm512_sub_epi64(_mm512_sub_epi64(z[j], c->p[j]), borrow);
        borrow = _mm512_srli_epi64(t, 63);
        d[j] = _mm512_and_si512(t, mask);
    }
    __mmask8 keep = _mm512_test_epi64_mask(borrow, borrow);  /* lanes that borrowed keep z */
    for (int j = 0; j < 5; j++) r->v[j] = _mm512_mask_blend_epi64(keep, d[j], z[j]);
}

IFMA static inline void fe8_mul(const ctx8 *c, fe8 *r, const fe8 *a, const fe8 *b) {
    const __m512i mask = _mm512_set1_epi64((long long)MASK52), zero = _mm512_setzero_si512();
    __m512i z[6] = {zero, zero, zero, zero, zero, zero};
    for (int i = 0; i < 5; i++) {
        __m512i bi = b->v[i];
        for (int j = 0; j < 5; j++) {
            z[j] = _mm512_madd52lo_epu64(z[j], a->v[j], bi);
            z[j + 1] = _mm512_madd52hi_epu64(z[j + 1], a->v[j], bi);
        }
        __m512i q = _mm512_madd52lo_epu64(zero, z[0], c->pinv);
        for (int j = 0; j < 5; j++) {
            z[j] = _mm512_madd52lo_epu64(z[j], q, c->p[j]);
            z[j + 1] = _mm512_madd52hi_epu64(z[j + 1], q, c->p[j]);
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
    fe8_reduce_once(c, r, z);
}

IFMA static inline void fe8_add(const ctx8 *c, fe8 *r, const fe8 *a, const fe8 *b) {
    const __m512i mask = _mm512_set1_epi64((long long)MASK52);
    __m512i z[5], carry = _mm512_setzero_si512();
    for (int j = 0; j < 5; j++) {
        __m512i t = _mm512_add_epi64(_mm512_add_epi64(a->v[j], b->v[j]), carry);
        carry = _mm512_srli_epi64(t, 52);
        z[j] = _mm512_and_si512(t, mask);
    }
    fe8_reduce_once(c, r, z);
}

IFMA static inline void fe8_sub(const ctx8 *c, fe8 *r, const fe8 *a, const fe8 *b) {
    const __m512i mask = _mm512_set1_epi64((long long)MASK52), zero = _mm512_setzero_si512();
    __m512i d[5], borrow = zero;
    for (int j = 0; j < 5; j++) {
        __m512i t = _mm512_sub_epi64(_mm512_sub_epi64(a->v[j], b->v[j]), borrow);
        borrow = _mm512_srli_epi64(t, 63);
        d[j] = _mm512_and_si512(t, mask);
    }
    __m512i add = _mm512_sub_epi64(zero, borrow), carry = zero;
    for (int j = 0; j < 5; j++) {
        __m512i t = _mm512_add_epi64(_mm512_add_epi64(d[j], _mm512_and_si512(c->p[j], add)), carry);
        carry = _mm512_srli_epi64(t, 52);
        r->v[j] = _mm512_and_si512(t, mask);
    }
}

#define FE fe8
#define CTX const ctx8
#define FE_MUL(r, a, b) fe8_mul(c, r, a, b)
#define FE_ADD(r, a, b) fe8_add(c, r, a, b)
#define FE_SUB(r, a, b) fe8_sub(c, r, a, b)
#define FE_B3(c) ((const fe8 *)(c)->b3)
#define PREFIX(name) IFMA lane8_##name
#include "point_formulas.inc"  /* which undefines them */

IFMA static void ctx8_make(ctx8 *c, const satchel_mod52 *m) {
    for (int j = 0; j < 5; j++) {
        c->p[j] = _mm512_set1_epi64((long long)m->p[j]);
        c->b3[j] = _mm512_set1_epi64((long long)m->b3[j]);
    }
    c->pinv = _mm512_set1_epi64((long long)m->pinv);
}

IFMA static void load8(fe8 *out, const uint64_t x[5][8]) { for (int j = 0; j < 5; j++) out->v[j] = _mm512_loadu_si512((const void *)x[j]); }
IFMA static void store8(uint64_t x[5][8], const fe8 *in) { for (int j = 0; j < 5; j++) _mm512_storeu_si512((void *)x[j], in->v[j]); }

IFMA static void mul8_ifma(const satchel_mod52 *m, uint64_t r[5][8], const uint64_t a[5][8], const uint64_t b[5][8]) {
    ctx8 c;
    ctx8_make(&c, m);
    fe8 x, y, z;
    load8(&x, a);
    load8(&y, b);
    fe8_mul(&c, &z, &x, &y);
    store8(r, &z);
}

IFMA static void point8_ifma(const satchel_mod52 *m, satchel_point8 *r, const satchel_point8 *a, const satchel_point8 *b) {
    ctx8 c;
    ctx8_make(&c, m);
    fe8 p[3], q[3], out[3];
    load8(&p[0], a->x); load8(&p[1], a->y); load8(&p[2], a->z);
    if (b) {
        load8(&q[0], b->x); load8(&q[1], b->y); load8(&q[2], b->z);
        lane8_add(&c, out, p, q);
    } else {
        lane8_double(&c, out, p);
    }
    store8(r->x, &out[0]); store8(r->y, &out[1]); store8(r->z, &out[2]);
}
#endif

void satchel_fe52_mul8(enum satchel_simd_path path, const satchel_mod52 *m, uint64_t r[5][8],
                       const uint64_t a[5][8], const uint64_t b[5][8]) {
#if defined(__x86_64__)
    if (path == SATCHEL_SIMD_IFMA && satchel_simd_supported(SATCHEL_SIMD_IFMA)) { mul8_ifma(m, r, a, b); return; }
#else
    (void)path;
#endif
    /* AVX2 has no 52-bit multiplier: its field kernels (radix 2^26) are not written yet, so it
     * runs the portable code, as every machine without IFMA does. */
    mul8_portable(m, r, a, b);
}

static void point8(enum satchel_simd_path path, const satchel_mod52 *m, satchel_point8 *r, const satchel_point8 *a, const satchel_point8 *b) {
#if defined(__x86_64__)
    if (path == SATCHEL_SIMD_IFMA && satchel_simd_supported(SATCHEL_SIMD_IFMA)) { point8_ifma(m, r, a, b); return; }
#else
    (void)path;
#endif
    point8_portable(m, r, a, b);
}

void satchel_point52_add8(enum satchel_simd_path path, const satchel_mod52 *m, satchel_point8 *r,
                          const satchel_point8 *a, const satchel_point8 *b) {
    point8(path, m, r, a, b);
}

void satchel_point52_double8(enum satchel_simd_path path, const satchel_mod52 *m, satchel_point8 *r, const satchel_point8 *a) {
    point8(path, m, r, a, 0);
}
