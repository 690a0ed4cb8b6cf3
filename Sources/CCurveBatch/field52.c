#include "satchel_curve_batch.h"
#include "wipe.h"
#include <stdlib.h>
#include <string.h>

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

/* secp256k1's product (m->k1): a·b mod p below 2p, for a, b below 4p. The ten columns carried
 * into 52-bit limbs, the part above 2^260 folded in by 2^260 ≡ 0x1000003D10, then what is left
 * above 2^256 by 2^256 ≡ 0x1000003D1: below 2^256 + 2^76 < 2p. */
__attribute__((always_inline)) static inline void fe1_mul_k1(fe1 *r, const fe1 *a, const fe1 *b) {
    unsigned __int128 acc = 0;
    uint64_t t[10];
    _Pragma("GCC unroll 9")
    for (int k = 0; k < 9; k++) {
        _Pragma("GCC unroll 5")
        for (int i = 0; i < 5; i++)
            if (k - i >= 0 && k - i < 5) acc += (unsigned __int128)a->v[i] * b->v[k - i];
        t[k] = (uint64_t)acc & MASK52;
        acc >>= 52;
    }
    t[9] = (uint64_t)acc;  /* below 2^(516 − 468) */
    acc = 0;
    _Pragma("GCC unroll 5")
    for (int j = 0; j < 5; j++) {
        acc += t[j] + (unsigned __int128)t[5 + j] * 0x1000003D10ULL;
        t[j] = (uint64_t)acc & MASK52;
        acc >>= 52;
    }
    /* acc·2^260 + t[4]'s bits from 256 on: the part at or above 2^256, below 2^(48 + 4 + 1). */
    uint64_t top = (uint64_t)(acc << 4) | (t[4] >> 48);
    t[4] &= (1ULL << 48) - 1;
    acc = (unsigned __int128)top * 0x1000003D1ULL;
    _Pragma("GCC unroll 5")
    for (int j = 0; j < 5; j++) {
        acc += t[j];
        t[j] = (uint64_t)acc & MASK52;
        acc >>= 52;
    }
    t[4] += (uint64_t)acc << 52;  /* 0: the sum is below 2^257 */
    for (int j = 0; j < 5; j++) r->v[j] = t[j];
    wipe(t, sizeof t);
}

/* Word-by-word Montgomery (CIOS) in radix 2^52, the products split as IFMA splits them: the
 * low 52 bits into limb j, the next 52 into limb j + 1. Limbs grow to < 2^57 unnormalized. */
static inline void fe1_mul(const satchel_mod52 *m, fe1 *r, const fe1 *a, const fe1 *b) {
    if (m->k1) {  /* public: the field's */
        fe1 t;
        fe1_mul_k1(&t, a, b);
        fe1_reduce_once(m, r, t.v);
        return;
    }
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
    m->sparse = m->p[3] == 0 && m->p[4] == 1ULL << 46;
    m->k1 = 0;
    for (int j = 0; j < 5; j++) m->b3[j] = 0;
    /* R = 2^260 mod p and R^2 mod p by doublings of 1 (p is public). */
    fe1 r = {{1, 0, 0, 0, 0}};
    for (int i = 0; i < 520; i++) {
        fe1_add(m, &r, &r, &r);
        if (i == 259) for (int j = 0; j < 5; j++) m->one[j] = r.v[j];
    }
    for (int j = 0; j < 5; j++) m->r2[j] = r.v[j];
}

/* k·R mod p for a small public k, by double-and-add. */
static void fe1_small(const satchel_mod52 *m, fe1 *r, uint64_t k) {
    fe1 unit, acc = {{0, 0, 0, 0, 0}};
    for (int j = 0; j < 5; j++) unit.v[j] = m->one[j];
    for (int bit = 63; bit >= 0; bit--) {
        fe1_add(m, &acc, &acc, &acc);
        if ((k >> bit) & 1) fe1_add(m, &acc, &acc, &unit);  /* k is public: a curve constant */
    }
    *r = acc;
}

void satchel_mod52_set_b(satchel_mod52 *m, uint64_t b) {
    fe1 t;
    fe1_small(m, &t, b);
    for (int j = 0; j < 5; j++) m->b[j] = t.v[j];
    fe1_small(m, &t, 3 * b);
    for (int j = 0; j < 5; j++) m->b3[j] = t.v[j];
}

/* r = a where mask is all ones, b where it is 0. */
static inline void fe1_select(fe1 *r, uint64_t mask, const fe1 *a, const fe1 *b) {
    for (int j = 0; j < 5; j++) r->v[j] = (a->v[j] & mask) | (b->v[j] & ~mask);
}

/* All ones where a = b (both reduced). */
static inline uint64_t fe1_eq(const fe1 *a, const fe1 *b) {
    uint64_t diff = 0;
    for (int j = 0; j < 5; j++) diff |= a->v[j] ^ b->v[j];
    return 0 - ((diff - 1) >> 63);  /* diff < 2^52 */
}

static inline void fe1_set(fe1 *r, const uint64_t l[5]) { for (int j = 0; j < 5; j++) r->v[j] = l[j]; }

/* The complete formulas, the GLV ladder and the square root, once for each backend
 * (point_formulas.inc). */
#define LANES 1
#define FE_SET(r, limbs) fe1_set(r, limbs)
#define FE_LANES(bits) (0 - ((uint64_t)(bits) & 1))
#define FE fe1
#define CTX const satchel_mod52
#define FE_MUL(r, a, b) fe1_mul(c, r, a, b)
#define FE_SQR(r, a) fe1_mul(c, r, a, a)
#define FE_ADD(r, a, b) fe1_add(c, r, a, b)
#define FE_ADD_NR(r, a, b) fe1_add(c, r, a, b)
#define FE_SUB(r, a, b) fe1_sub(c, r, a, b)
#define FE_SELECT(r, mask, a, b) fe1_select(r, mask, a, b)
#define FE_EQ(a, b) fe1_eq(a, b)
#define FE_B3(c) ((const fe1 *)(c)->b3)
#define FE_D2(c) ((const fe1 *)(c)->d2)
#define ATTR
#define NAME(name) lane1_##name
#include "point_formulas.inc"
#include "point_formulas_undef.inc"

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

/* What a ladder needs besides the points: the scalar's digits, and φ's ζ (GLV) or whether to
 * clear the cofactor first (Edwards). */
typedef struct {
    const int8_t *d1, *d2;
    size_t windows;
    fe1 zeta;
    int cofactor;
    /* GLV with a scalar per point: d1 and d2 hold `windows` digits a point, point after point
     * (a block's ladder gets them lane-minor: d[w·8 + lane]). */
    int lanes;
} ladder_args;

/* ---- Eight lanes, AVX-512 IFMA. ---- */
#if defined(__x86_64__)
#define IFMA __attribute__((target("avx512f,avx512ifma")))
/* Fully unrolled, or the limbs live in memory and the products wait on loads. */
#define UNROLL _Pragma("GCC unroll 16")

/* An element here is only kept below 2p (limbs normalized), not below p: a product of two
 * such is below 4p²/2^260 + p < 2p for any p < 2^256 without its final subtraction, sums
 * and differences subtract or add 2p. fe8_canon makes an element canonical where it must
 * be (before a comparison, and for what leaves the kernel). */
typedef struct { __m512i v[5]; } fe8;
typedef struct { __m512i p[5], p2[5], pinv, b3[5], d2[5]; } ctx8;

/* r = z − m unless that borrows (z < 2m). */
IFMA static inline void fe8_reduce_by(fe8 *r, const __m512i z[5], const __m512i m[5]) {
    const __m512i mask = _mm512_set1_epi64((long long)MASK52), zero = _mm512_setzero_si512();
    __m512i d[5], borrow = zero;
    UNROLL
    for (int j = 0; j < 5; j++) {
        __m512i t = _mm512_sub_epi64(_mm512_sub_epi64(z[j], m[j]), borrow);
        borrow = _mm512_srli_epi64(t, 63);
        d[j] = _mm512_and_si512(t, mask);
    }
    __mmask8 keep = _mm512_test_epi64_mask(borrow, borrow);  /* lanes that borrowed keep z */
    UNROLL
    for (int j = 0; j < 5; j++) r->v[j] = _mm512_mask_blend_epi64(keep, d[j], z[j]);
}

/* Below p, from below 2p. */
IFMA static inline void fe8_canon(const ctx8 *c, fe8 *r, const fe8 *a) { fe8_reduce_by(r, a->v, c->p); }

/* The reduction of the product's ten columns z (fe8_mul's second half). `sparse`: p's limb 3
 * is 0 and limb 4 is 2^46 (p = 2^254 + c, c < 2^156: Pallas and Vesta), so q·p's last two
 * columns are shifts instead of eight multiply-adds out of 55. */
IFMA static inline void fe8_montgomery(const ctx8 *c, fe8 *r, __m512i z[10], const int sparse) {
    const __m512i mask = _mm512_set1_epi64((long long)MASK52), zero = _mm512_setzero_si512();
    UNROLL
    for (int i = 0; i < 5; i++) {
        __m512i q = _mm512_madd52lo_epu64(zero, z[i], c->pinv);
        UNROLL
        for (int j = 0; j < (sparse ? 3 : 5); j++) {
            z[i + j] = _mm512_madd52lo_epu64(z[i + j], q, c->p[j]);
            z[i + j + 1] = _mm512_madd52hi_epu64(z[i + j + 1], q, c->p[j]);
        }
        if (sparse) {  /* q·2^46·2^(52·4): its low 6 bits into limb 4, the rest into limb 5 */
            z[i + 4] = _mm512_add_epi64(z[i + 4], _mm512_and_si512(_mm512_slli_epi64(q, 46), mask));
            z[i + 5] = _mm512_add_epi64(z[i + 5], _mm512_srli_epi64(q, 6));
        }
        z[i + 1] = _mm512_add_epi64(z[i + 1], _mm512_srli_epi64(z[i], 52));  /* z[i] is 0 mod 2^52 */
    }
    UNROLL
    for (int j = 5; j < 9; j++) {
        z[j + 1] = _mm512_add_epi64(z[j + 1], _mm512_srli_epi64(z[j], 52));
        r->v[j - 5] = _mm512_and_si512(z[j], mask);
    }
    r->v[4] = z[9];  /* below 2p < 2^256: no carry out of the top limb */
}

/* The whole product first (50 independent multiply-adds), then the reduction column by column
 * (product scanning): only the five quotients wait on each other. Congruent to fe1_mul's
 * value, below 2p for factors below 2p. */
IFMA static inline void fe8_mul_impl(const ctx8 *c, fe8 *r, const fe8 *a, const fe8 *b, const int sparse) {
    const __m512i zero = _mm512_setzero_si512();
    __m512i z[10];
    UNROLL
    for (int k = 0; k < 10; k++) z[k] = zero;
    UNROLL
    for (int i = 0; i < 5; i++) {
        UNROLL
        for (int j = 0; j < 5; j++) {
            z[i + j] = _mm512_madd52lo_epu64(z[i + j], a->v[j], b->v[i]);
            z[i + j + 1] = _mm512_madd52hi_epu64(z[i + j + 1], a->v[j], b->v[i]);
        }
    }
    fe8_montgomery(c, r, z, sparse);
}

/* a²: the ten cross products once, doubled by a shift, then the five squares (30 multiply-adds
 * instead of 50). */
IFMA static inline void fe8_sqr_impl(const ctx8 *c, fe8 *r, const fe8 *a, const int sparse) {
    const __m512i zero = _mm512_setzero_si512();
    __m512i z[10];
    UNROLL
    for (int k = 0; k < 10; k++) z[k] = zero;
    UNROLL
    for (int i = 0; i < 5; i++) {
        UNROLL
        for (int j = i + 1; j < 5; j++) {
            z[i + j] = _mm512_madd52lo_epu64(z[i + j], a->v[j], a->v[i]);
            z[i + j + 1] = _mm512_madd52hi_epu64(z[i + j + 1], a->v[j], a->v[i]);
        }
    }
    UNROLL
    for (int k = 1; k < 10; k++) z[k] = _mm512_slli_epi64(z[k], 1);
    UNROLL
    for (int i = 0; i < 5; i++) {
        z[2 * i] = _mm512_madd52lo_epu64(z[2 * i], a->v[i], a->v[i]);
        z[2 * i + 1] = _mm512_madd52hi_epu64(z[2 * i + 1], a->v[i], a->v[i]);
    }
    fe8_montgomery(c, r, z, sparse);
}

IFMA static inline void fe8_mul(const ctx8 *c, fe8 *r, const fe8 *a, const fe8 *b) { fe8_mul_impl(c, r, a, b, 0); }
IFMA static inline void fe8_sqr(const ctx8 *c, fe8 *r, const fe8 *a) { fe8_sqr_impl(c, r, a, 0); }
IFMA static inline void fe8_mul_sparse(const ctx8 *c, fe8 *r, const fe8 *a, const fe8 *b) { fe8_mul_impl(c, r, a, b, 1); }
IFMA static inline void fe8_sqr_sparse(const ctx8 *c, fe8 *r, const fe8 *a) { fe8_sqr_impl(c, r, a, 1); }

IFMA static inline void fe8_add(const ctx8 *c, fe8 *r, const fe8 *a, const fe8 *b) {
    const __m512i mask = _mm512_set1_epi64((long long)MASK52);
    __m512i z[5], carry = _mm512_setzero_si512();
    UNROLL
    for (int j = 0; j < 5; j++) {
        __m512i t = _mm512_add_epi64(_mm512_add_epi64(a->v[j], b->v[j]), carry);
        carry = _mm512_srli_epi64(t, 52);
        z[j] = _mm512_and_si512(t, mask);
    }
    fe8_reduce_by(r, z, c->p2);  /* below 4p, then below 2p */
}

/* a + b below 4p, for a product only (fe8_montgomery: below 16p²/2^260 + p < 2p). */
IFMA static inline void fe8_add_nr(fe8 *r, const fe8 *a, const fe8 *b) {
    const __m512i mask = _mm512_set1_epi64((long long)MASK52);
    __m512i carry = _mm512_setzero_si512();
    UNROLL
    for (int j = 0; j < 5; j++) {
        __m512i t = _mm512_add_epi64(_mm512_add_epi64(a->v[j], b->v[j]), carry);
        carry = _mm512_srli_epi64(t, 52);
        r->v[j] = j < 4 ? _mm512_and_si512(t, mask) : t;
    }
}

IFMA static inline void fe8_sub(const ctx8 *c, fe8 *r, const fe8 *a, const fe8 *b) {
    const __m512i mask = _mm512_set1_epi64((long long)MASK52), zero = _mm512_setzero_si512();
    __m512i d[5], borrow = zero;
    UNROLL
    for (int j = 0; j < 5; j++) {
        __m512i t = _mm512_sub_epi64(_mm512_sub_epi64(a->v[j], b->v[j]), borrow);
        borrow = _mm512_srli_epi64(t, 63);
        d[j] = _mm512_and_si512(t, mask);
    }
    __m512i add = _mm512_sub_epi64(zero, borrow), carry = zero;
    UNROLL
    for (int j = 0; j < 5; j++) {
        __m512i t = _mm512_add_epi64(_mm512_add_epi64(d[j], _mm512_and_si512(c->p2[j], add)), carry);
        carry = _mm512_srli_epi64(t, 52);
        r->v[j] = _mm512_and_si512(t, mask);
    }
}

/* A mask has a bit per lane (fe8_eq's), or is all ones or 0 for every lane (a key's digit or
 * sign: its low 8 bits are then the lanes'). */
IFMA static inline void fe8_select(fe8 *r, uint64_t mask, const fe8 *a, const fe8 *b) {
    __mmask8 k = (__mmask8)mask;
    UNROLL
    for (int j = 0; j < 5; j++) r->v[j] = _mm512_mask_blend_epi64(k, b->v[j], a->v[j]);
}

/* Compared canonical: an element is only kept below 2p. */
IFMA static inline uint64_t fe8_eq(const ctx8 *c, const fe8 *a, const fe8 *b) {
    fe8 x, y;
    fe8_canon(c, &x, a);
    fe8_canon(c, &y, b);
    __mmask8 k = 0xFF;
    for (int j = 0; j < 5; j++) k &= _mm512_cmpeq_epi64_mask(x.v[j], y.v[j]);
    return k;
}

IFMA static inline void fe8_set(fe8 *r, const uint64_t l[5]) {
    for (int j = 0; j < 5; j++) r->v[j] = _mm512_set1_epi64((long long)l[j]);
}

#define LANES 8
#define FE_SET(r, limbs) fe8_set(r, limbs)
#define FE_LANES(bits) ((uint64_t)(bits))
#define FE fe8
#define CTX const ctx8
#define FE_ADD(r, a, b) fe8_add(c, r, a, b)
#define FE_ADD_NR(r, a, b) fe8_add_nr(r, a, b)
#define FE_SUB(r, a, b) fe8_sub(c, r, a, b)
#define FE_SELECT(r, mask, a, b) fe8_select(r, mask, a, b)
#define FE_EQ(a, b) fe8_eq(c, a, b)
#define FE_B3(c) ((const fe8 *)(c)->b3)
#define FE_D2(c) ((const fe8 *)(c)->d2)
#define ATTR IFMA
#define FE_MUL(r, a, b) fe8_mul(c, r, a, b)
#define FE_SQR(r, a) fe8_sqr(c, r, a)
#define NAME(name) lane8_##name
#include "point_formulas.inc"
#undef FE_MUL
#undef FE_SQR
#undef NAME
/* The same for a Pallas-shaped modulus (fe8_montgomery's `sparse`). */
#define FE_MUL(r, a, b) fe8_mul_sparse(c, r, a, b)
#define FE_SQR(r, a) fe8_sqr_sparse(c, r, a)
#define NAME(name) lane8s_##name
#include "point_formulas.inc"
#include "point_formulas_undef.inc"

IFMA static void ctx8_make(ctx8 *c, const satchel_mod52 *m) {
    for (int j = 0; j < 5; j++) {
        c->p[j] = _mm512_set1_epi64((long long)m->p[j]);
        c->p2[j] = _mm512_set1_epi64((long long)(j == 4 ? m->p[j] << 1 | m->p[j - 1] >> 51 : (m->p[j] << 1 | (j ? m->p[j - 1] >> 51 : 0)) & MASK52));
        c->b3[j] = _mm512_set1_epi64((long long)m->b3[j]);
        c->d2[j] = _mm512_set1_epi64((long long)m->d2[j]);
    }
    c->pinv = _mm512_set1_epi64((long long)m->pinv);
}

IFMA static void load8(fe8 *out, const uint64_t x[5][8]) { for (int j = 0; j < 5; j++) out->v[j] = _mm512_loadu_si512((const void *)x[j]); }
/* What leaves the kernel is canonical. */
IFMA static void store8(const ctx8 *c, uint64_t x[5][8], const fe8 *in) {
    fe8 r;
    fe8_canon(c, &r, in);
    for (int j = 0; j < 5; j++) _mm512_storeu_si512((void *)x[j], r.v[j]);
}

IFMA static void mul8_ifma(const satchel_mod52 *m, uint64_t r[5][8], const uint64_t a[5][8], const uint64_t b[5][8]) {
    ctx8 c;
    ctx8_make(&c, m);
    fe8 x, y, z;
    load8(&x, a);
    load8(&y, b);
    fe8_mul(&c, &z, &x, &y);
    store8(&c, r, &z);
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
    store8(&c, r->x, &out[0]); store8(&c, r->y, &out[1]); store8(&c, r->z, &out[2]);
}

#include "field26.inc"
#endif

/* Whether `path` is `kernel`'s and this CPU runs it: the IFMA kernels, or the AVX2 ones
 * (field26.inc). */
static int runs(enum satchel_simd_path path, enum satchel_simd_path kernel) {
#if defined(__x86_64__)
    return path == kernel && satchel_simd_supported(kernel);
#else
    (void)path;
    (void)kernel;
    return 0;
#endif
}

void satchel_fe52_mul8(enum satchel_simd_path path, const satchel_mod52 *m, uint64_t r[5][8],
                       const uint64_t a[5][8], const uint64_t b[5][8]) {
#if defined(__x86_64__)
    if (runs(path, SATCHEL_SIMD_IFMA)) { mul8_ifma(m, r, a, b); return; }
    if (runs(path, SATCHEL_SIMD_AVX2)) { mul8_avx2(m, r, a, b); return; }
#endif
    (void)path;
    mul8_portable(m, r, a, b);
}

static void point8(enum satchel_simd_path path, const satchel_mod52 *m, satchel_point8 *r, const satchel_point8 *a, const satchel_point8 *b) {
#if defined(__x86_64__)
    if (runs(path, SATCHEL_SIMD_IFMA)) { point8_ifma(m, r, a, b); return; }
    if (runs(path, SATCHEL_SIMD_AVX2)) { point8_avx2(m, r, a, b); return; }
#endif
    (void)path;
    point8_portable(m, r, a, b);
}

void satchel_point52_add8(enum satchel_simd_path path, const satchel_mod52 *m, satchel_point8 *r,
                          const satchel_point8 *a, const satchel_point8 *b) {
    point8(path, m, r, a, b);
}

void satchel_point52_double8(enum satchel_simd_path path, const satchel_mod52 *m, satchel_point8 *r, const satchel_point8 *a) {
    point8(path, m, r, a, 0);
}

/* ---- GLV multiplication of many points by one split scalar. ---- */

static void limbs52(uint64_t l[5], const uint64_t w[4]) {
    for (int j = 0; j < 5; j++) {
        int bit = 52 * j, word = bit / 64, shift = bit % 64;
        uint64_t v = w[word] >> shift;
        if (shift > 12 && word + 1 < 4) v |= w[word + 1] << (64 - shift);
        l[j] = v & MASK52;
    }
}

static void words64(uint64_t w[4], const uint64_t l[5]) {
    for (int i = 0; i < 4; i++) w[i] = 0;
    for (int j = 0; j < 5; j++) {
        int bit = 52 * j, word = bit / 64, shift = bit % 64;
        w[word] |= l[j] << shift;
        if (shift > 12 && word + 1 < 4) w[word + 1] |= l[j] >> (64 - shift);
    }
}

/* How a result is written: Pallas's repr_P (x little-endian, y's parity in bit 255; 32 bytes),
 * Jubjub's repr_J (v little-endian, u's parity in bit 255; 32 bytes), or SEC1's compressed
 * point (0x02 or 0x03 by y's parity, then x big-endian; 33 bytes: for p up to 2^256, where x
 * may use bit 255). The identity is all zero bytes in each. */
enum { FORMAT_REPR_P = 0, FORMAT_EDWARDS = 1, FORMAT_SEC1 = 2 };

/* One result's bytes from its affine coordinates (canonical radix-2^52 limbs); `keep` is all
 * ones, or 0 for the identity. No branch on the coordinates: the format is public. */
static void encode_one(uint8_t *o, const uint64_t x[5], const uint64_t y[5], uint64_t keep, int format) {
    uint64_t w[4];
    const uint8_t k = (uint8_t)keep;
    if (format == FORMAT_SEC1) {
        words64(w, x);
        o[0] = (uint8_t)(0x02 | (y[0] & 1)) & k;
        for (int b = 0; b < 32; b++) o[1 + b] = (uint8_t)(w[3 - b / 8] >> (8 * (7 - b % 8))) & k;
    } else {
        const uint64_t *word = format == FORMAT_EDWARDS ? y : x, *parity = format == FORMAT_EDWARDS ? x : y;
        words64(w, word);
        for (int b = 0; b < 32; b++) o[b] = (uint8_t)(w[b / 8] >> (8 * (b % 8))) & k;
        o[31] |= (uint8_t)((parity[0] & 1) << 7) & k;
    }
    wipe(w, sizeof w);
}

/* Montgomery form of a canonical value (a·R^2·R^-1), and back (a·1·R^-1). */
static void fe1_to_mont(const satchel_mod52 *m, fe1 *r, const uint64_t w[4]) {
    fe1 a, r2;
    limbs52(a.v, w);
    for (int j = 0; j < 5; j++) r2.v[j] = m->r2[j];
    fe1_mul(m, r, &a, &r2);
}

static void fe1_from_mont(const satchel_mod52 *m, fe1 *r, const fe1 *a) {
    const fe1 unit = {{1, 0, 0, 0, 0}};
    fe1_mul(m, r, a, &unit);
}

/* p − 2 in 64-bit words: the exponent of an inversion (public, so its bits may branch). */
static void p_minus_2(const satchel_mod52 *m, uint64_t w[4]) {
    uint64_t e[5], borrow = 2;
    for (int j = 0; j < 5; j++) { uint64_t t = m->p[j] - borrow; borrow = t >> 63; e[j] = t & MASK52; }
    words64(w, e);
}

/* a^(p−2). */
static void fe1_invert(const satchel_mod52 *m, fe1 *r, const fe1 *a) {
    uint64_t w[4];
    fe1 one;
    p_minus_2(m, w);
    for (int j = 0; j < 5; j++) one.v[j] = m->one[j];
    lane1_pow(m, r, a, w, 256, &one);
}

static uint64_t fe1_zero_mask(const fe1 *a) {
    uint64_t any = a->v[0] | a->v[1] | a->v[2] | a->v[3] | a->v[4];  /* < 2^52 */
    return 0 - ((any - 1) >> 63);
}

#if defined(__x86_64__)
/* 8 points (canonical radix-2^52 limbs, limb-major: x or u, then y or v) through a ladder;
 * X, Y, Z out, canonical in Montgomery form. */
typedef void (*ladder8_fn)(const satchel_mod52 *m, const ladder_args *a, const uint64_t in[2][5][8], uint64_t out[3][5][8]);

/* 8 affine points into Montgomery form with Z = 1 (p[0], p[1], p[2]); one = R mod p. */
IFMA static void load_affine8(const ctx8 *c, const satchel_mod52 *m, fe8 *p, fe8 *one, const uint64_t in[2][5][8]) {
    fe8 r2;
    for (int j = 0; j < 5; j++) {
        one->v[j] = _mm512_set1_epi64((long long)m->one[j]);
        r2.v[j] = _mm512_set1_epi64((long long)m->r2[j]);
    }
    for (int k = 0; k < 2; k++) {
        load8(&p[k], in[k]);
        fe8_mul(c, &p[k], &p[k], &r2);
    }
    p[2] = *one;
}

IFMA static void glv8_ifma(const satchel_mod52 *m, const ladder_args *a, const uint64_t in[2][5][8], uint64_t out[3][5][8]) {
    ctx8 c;
    ctx8_make(&c, m);
    fe8 p[3], acc[3], z8, one8;
    for (int j = 0; j < 5; j++) z8.v[j] = _mm512_set1_epi64((long long)a->zeta.v[j]);
    load_affine8(&c, m, p, &one8, in);
    if (a->lanes && m->sparse) lane8s_glv_lanes(&c, acc, p, &z8, &one8, a->d1, a->d2, a->windows);
    else if (a->lanes) lane8_glv_lanes(&c, acc, p, &z8, &one8, a->d1, a->d2, a->windows);
    else if (m->sparse) lane8s_glv(&c, acc, p, &z8, &one8, a->d1, a->d2, a->windows);
    else lane8_glv(&c, acc, p, &z8, &one8, a->d1, a->d2, a->windows);
    for (int k = 0; k < 3; k++) store8(&c, out[k], &acc[k]);
    wipe(acc, sizeof acc);
}

IFMA static void edwards8_ifma(const satchel_mod52 *m, const ladder_args *a, const uint64_t in[2][5][8], uint64_t out[3][5][8]) {
    ctx8 c;
    ctx8_make(&c, m);
    fe8 p[4], acc[4], one8;
    load_affine8(&c, m, p, &one8, in);
    fe8_mul(&c, &p[3], &p[0], &p[1]);
    if (m->sparse) lane8s_ed_mul(&c, acc, p, &one8, a->d1, a->windows, a->cofactor);
    else lane8_ed_mul(&c, acc, p, &one8, a->d1, a->windows, a->cofactor);
    for (int k = 0; k < 3; k++) store8(&c, out[k], &acc[k]);
    wipe(acc, sizeof acc);
}

/* The encodings of n results in blocks of 8 (X, Y, Z canonical in Montgomery form, limb-major):
 * Montgomery's trick down each lane across the blocks, the eight inversions as one vector
 * exponentiation, then the affine coordinates a vector at a time. Weierstrass: x with y's
 * parity, zeros for the identity (Z = 0); Edwards: v with u's parity (Z is never 0). */
IFMA static int encode_all_ifma(const satchel_mod52 *m, uint64_t (*acc)[3][5][8], size_t n, uint8_t *out, int format) {
    const size_t blocks = (n + 7) / 8;
    fe8 *prefix = aligned_alloc(64, blocks * sizeof(fe8));  /* vector loads and stores need 64 */
    if (!prefix) return -2;
    ctx8 c;
    ctx8_make(&c, m);
    fe8 one8, unit, zero, running, inverse, zinv, zi, x, y, z;
    memset(&zero, 0, sizeof zero);
    for (int j = 0; j < 5; j++) {
        one8.v[j] = _mm512_set1_epi64((long long)m->one[j]);
        unit.v[j] = _mm512_set1_epi64(j == 0 ? 1 : 0);
    }
    uint64_t w[4];
    p_minus_2(m, w);
    running = one8;
    for (size_t b = 0; b < blocks; b++) {  /* the identity's Z = 0 takes 1 */
        load8(&z, acc[b][2]);
        fe8_select(&zi, fe8_eq(&c, &z, &zero), &one8, &z);
        prefix[b] = running;
        fe8_mul(&c, &running, &running, &zi);
    }
    if (m->sparse) lane8s_pow(&c, &inverse, &running, w, 256, &one8);
    else lane8_pow(&c, &inverse, &running, w, 256, &one8);
    const size_t stride = format == FORMAT_SEC1 ? 33 : 32;
    for (size_t b = blocks; b-- > 0;) {
        load8(&z, acc[b][2]);
        uint64_t identity = fe8_eq(&c, &z, &zero);
        fe8_select(&zi, identity, &one8, &z);
        fe8_mul(&c, &zinv, &inverse, &prefix[b]);
        fe8_mul(&c, &inverse, &inverse, &zi);
        load8(&x, acc[b][0]);
        load8(&y, acc[b][1]);
        fe8_mul(&c, &x, &x, &zinv);
        fe8_mul(&c, &y, &y, &zinv);
        fe8_mul(&c, &x, &x, &unit);
        fe8_mul(&c, &y, &y, &unit);
        store8(&c, acc[b][0], &x);  /* the affine coordinates, canonical, over X and Y */
        store8(&c, acc[b][1], &y);
        for (size_t lane = 0; lane < 8 && 8 * b + lane < n; lane++) {
            uint64_t lx[5], ly[5], keep = ((identity >> lane) & 1) - 1;  /* 0 for the identity */
            for (int j = 0; j < 5; j++) { lx[j] = acc[b][0][j][lane]; ly[j] = acc[b][1][j][lane]; }
            encode_one(out + stride * (8 * b + lane), lx, ly, keep, format);
            wipe(lx, sizeof lx); wipe(ly, sizeof ly);
        }
    }
    wipe(prefix, blocks * sizeof(fe8));
    free(prefix);
    wipe(&running, sizeof running); wipe(&inverse, sizeof inverse); wipe(&zinv, sizeof zinv);
    wipe(&x, sizeof x); wipe(&y, sizeof y);
    return 0;
}

static int encode_all_portable(const satchel_mod52 *m, const fe1 *res, size_t n, uint8_t *out, int format);

/* The encodings of n results in blocks of 8 (X, Y, Z canonical in Montgomery form): IFMA's
 * vector code, or the portable code (AVX2: a few products a point against a ladder's
 * thousands). */
static int encode_blocks(const satchel_mod52 *m, uint64_t (*acc)[3][5][8], size_t n, uint8_t *out, int format, int ifma) {
    if (ifma) return encode_all_ifma(m, acc, n, out, format);
    fe1 *res = malloc(n * 3 * sizeof(fe1));
    if (!res) return -2;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) load1(&res[3 * i + k], acc[i / 8][k], (int)(i % 8));
    int status = encode_all_portable(m, res, n, out, format);
    wipe(res, n * 3 * sizeof(fe1));
    free(res);
    return status;
}

/* The vector paths: 8 points per ladder (IFMA: one vector, AVX2: two), a partial last block
 * repeating its first point in the lanes it does not use. AVX2 encodes with the portable code:
 * a few products a point against a ladder's thousands. */
static int ladder_blocks(const satchel_mod52 *m, ladder8_fn ladder, const ladder_args *a, const uint64_t *points, size_t n,
                         uint8_t *out, int format, int ifma) {
    const size_t blocks = (n + 7) / 8;
    uint64_t (*acc)[3][5][8] = malloc(blocks * sizeof *acc);
    if (!acc) return -2;
    for (size_t b = 0; b < blocks; b++) {
        uint64_t in[2][5][8], l[5];
        for (size_t lane = 0; lane < 8; lane++) {
            const uint64_t *point = points + 8 * (8 * b + lane < n ? 8 * b + lane : 8 * b);
            for (int k = 0; k < 2; k++) {
                limbs52(l, point + 4 * k);
                for (int j = 0; j < 5; j++) in[k][j][lane] = l[j];
            }
        }
        if (a->lanes) {  /* this block's scalars' digits, lane-minor */
            ladder_args block = *a;
            int8_t d1[8 * 64], d2[8 * 64];  /* windows ≤ 64 (checked by the caller) */
            for (size_t lane = 0; lane < 8; lane++) {
                const size_t i = 8 * b + lane < n ? 8 * b + lane : 8 * b;
                for (size_t w = 0; w < a->windows; w++) {
                    d1[8 * w + lane] = a->d1[a->windows * i + w];
                    d2[8 * w + lane] = a->d2[a->windows * i + w];
                }
            }
            block.d1 = d1;
            block.d2 = d2;
            ladder(m, &block, in, acc[b]);
            wipe(d1, sizeof d1);
            wipe(d2, sizeof d2);
        } else {
            ladder(m, a, in, acc[b]);
        }
    }
    int status = encode_blocks(m, acc, n, out, format, ifma);
    wipe(acc, blocks * sizeof *acc);
    free(acc);
    return status;
}
#endif

/* The portable path's encodings of n results (X, Y, Z a point), as encode_all_ifma's. */
static int encode_all_portable(const satchel_mod52 *m, const fe1 *res, size_t n, uint8_t *out, int format) {
    fe1 *prefix = malloc(n * sizeof(fe1));
    if (!prefix) return -2;
    fe1 one1, running, inverse, zinv, x, y, zi;
    for (int j = 0; j < 5; j++) one1.v[j] = m->one[j];
    running = one1;
    for (size_t i = 0; i < n; i++) {
        prefix[i] = running;
        fe1_select(&zi, fe1_zero_mask(&res[3 * i + 2]), &one1, &res[3 * i + 2]);
        fe1_mul(m, &running, &running, &zi);
    }
    fe1_invert(m, &inverse, &running);
    for (size_t i = n; i-- > 0;) {
        uint64_t identity = fe1_zero_mask(&res[3 * i + 2]);
        fe1_select(&zi, identity, &one1, &res[3 * i + 2]);
        fe1_mul(m, &zinv, &inverse, &prefix[i]);
        fe1_mul(m, &inverse, &inverse, &zi);
        fe1_mul(m, &x, &res[3 * i], &zinv);
        fe1_mul(m, &y, &res[3 * i + 1], &zinv);
        fe1_from_mont(m, &x, &x);
        fe1_from_mont(m, &y, &y);
        encode_one(out + (format == FORMAT_SEC1 ? 33 : 32) * i, x.v, y.v, ~identity, format);
    }
    wipe(prefix, n * sizeof(fe1));
    wipe(&x, sizeof x); wipe(&y, sizeof y); wipe(&zinv, sizeof zinv); wipe(&inverse, sizeof inverse); wipe(&running, sizeof running);
    free(prefix);
    return 0;
}

/* One point (Montgomery form, Z = 1) through a ladder, X, Y, Z out: the portable path. */
typedef void (*ladder1_fn)(const satchel_mod52 *m, const ladder_args *a, fe1 out[3], const fe1 p[3]);

static void glv1(const satchel_mod52 *m, const ladder_args *a, fe1 out[3], const fe1 p[3]) {
    lane1_glv(m, out, p, &a->zeta, &p[2], a->d1, a->d2, a->windows);
}

static void edwards1(const satchel_mod52 *m, const ladder_args *a, fe1 out[3], const fe1 p[3]) {
    fe1 q[4] = {p[0], p[1], p[2], p[2]}, acc[4];
    fe1_mul(m, &q[3], &p[0], &p[1]);
    lane1_ed_mul(m, acc, q, &p[2], a->d1, a->windows, a->cofactor);
    for (int k = 0; k < 3; k++) out[k] = acc[k];
    wipe(acc, sizeof acc);
}

/* Every point through the ladder on `path`, then the encodings. */
static int ladder_all(enum satchel_simd_path path, const satchel_mod52 *m, const ladder_args *a, ladder1_fn one_ladder,
                      const uint64_t *points, size_t n, uint8_t *out, int format) {
    if (n == 0) return 0;
#if defined(__x86_64__)
    const int edwards = format == FORMAT_EDWARDS;
    if (runs(path, SATCHEL_SIMD_IFMA)) return ladder_blocks(m, edwards ? edwards8_ifma : glv8_ifma, a, points, n, out, format, 1);
    if (runs(path, SATCHEL_SIMD_AVX2)) return ladder_blocks(m, edwards ? edwards8_avx2 : glv8_avx2, a, points, n, out, format, 0);
#endif
    (void)path;
    fe1 *res = malloc(n * 3 * sizeof(fe1));
    if (!res) return -2;
    for (size_t i = 0; i < n; i++) {
        fe1 p[3];
        fe1_to_mont(m, &p[0], points + 8 * i);
        fe1_to_mont(m, &p[1], points + 8 * i + 4);
        for (int j = 0; j < 5; j++) p[2].v[j] = m->one[j];
        ladder_args point = *a;
        if (a->lanes) {  /* this point's own digits */
            point.d1 = a->d1 + a->windows * i;
            point.d2 = a->d2 + a->windows * i;
        }
        one_ladder(m, &point, &res[3 * i], p);
    }
    int status = encode_all_portable(m, res, n, out, format);
    wipe(res, n * 3 * sizeof(fe1));
    free(res);
    return status;
}

static int glv_batch(enum satchel_simd_path path, const satchel_mod52 *m, const uint64_t zeta[4], const int8_t *digits1,
                     const int8_t *digits2, size_t windows, const uint64_t *points, size_t n, uint8_t *out, int format) {
    ladder_args a = {digits1, digits2, windows, {{0}}, 0, 0};
    fe1_to_mont(m, &a.zeta, zeta);
    return ladder_all(path, m, &a, glv1, points, n, out, format);
}

int satchel_glv_batch(enum satchel_simd_path path, const satchel_mod52 *m, const uint64_t zeta[4],
                      const int8_t *digits1, const int8_t *digits2, size_t windows,
                      const uint64_t *points, size_t n, uint8_t *out) {
    return glv_batch(path, m, zeta, digits1, digits2, windows, points, n, out, FORMAT_REPR_P);
}

int satchel_glv_batch_sec1(enum satchel_simd_path path, const satchel_mod52 *m, const uint64_t zeta[4],
                           const int8_t *digits1, const int8_t *digits2, size_t windows,
                           const uint64_t *points, size_t n, uint8_t *out) {
    return glv_batch(path, m, zeta, digits1, digits2, windows, points, n, out, FORMAT_SEC1);
}

int satchel_glv_lanes_batch_sec1(enum satchel_simd_path path, const satchel_mod52 *m, const uint64_t zeta[4],
                                 const int8_t *digits1, const int8_t *digits2, size_t windows,
                                 const uint64_t *points, size_t n, uint8_t *out) {
    if (windows > 64) return -2;
    ladder_args a = {digits1, digits2, windows, {{0}}, 0, 1};
    fe1_to_mont(m, &a.zeta, zeta);
    return ladder_all(path, m, &a, glv1, points, n, out, FORMAT_SEC1);
}

int satchel_edwards_mul_batch(enum satchel_simd_path path, const satchel_mod52 *m, const int8_t *digits, size_t windows,
                              int cofactor, const uint64_t *points, size_t n, uint8_t *out) {
    ladder_args a = {digits, 0, windows, {{0}}, cofactor, 0};
    return ladder_all(path, m, &a, edwards1, points, n, out, FORMAT_EDWARDS);
}

/* ---- Fixed-base multiples: t_i·B + Q_j for many secret scalars t_i, one public base B (its
 * table), and a few public points Q_j. ---- */

void satchel_fixed_table(const satchel_mod52 *m, const uint64_t base[8], size_t windows, uint64_t (*table)[8][2][5]) {
    fe1 step[3], multiples[8][3], inverse, x, y;
    fe1_to_mont(m, &step[0], base);
    fe1_to_mont(m, &step[1], base + 4);
    fe1_set(&step[2], m->one);
    for (size_t w = 0; w < windows; w++) {  /* step = 16^w·B; all of it public */
        for (int k = 0; k < 3; k++) multiples[0][k] = step[k];
        for (int j = 1; j < 8; j++) lane1_add(m, multiples[j], multiples[j - 1], step);
        for (int j = 0; j < 8; j++) {
            fe1_invert(m, &inverse, &multiples[j][2]);
            fe1_mul(m, &x, &multiples[j][0], &inverse);
            fe1_mul(m, &y, &multiples[j][1], &inverse);
            for (int l = 0; l < 5; l++) { table[w][j][0][l] = x.v[l]; table[w][j][1][l] = y.v[l]; }
        }
        lane1_double(m, step, multiples[7]);
    }
}

/* What a block of 8 lanes needs: the table, the addends (x, y limbs in the field's form; NULL:
 * t·B alone, one result a scalar). */
typedef struct {
    const uint64_t (*table)[8][2][5];
    size_t windows;
    const uint64_t (*addends)[2][5];
    size_t count;
} fixed_args;

#if defined(__x86_64__)
/* 8 lanes' t·B, then t·B + Q_j into out[j·stride] (X, Y, Z canonical, Montgomery form). */
typedef void (*fixed8_fn)(const satchel_mod52 *m, const fixed_args *a, const int8_t *digits8, uint64_t (*out)[3][5][8],
                          size_t stride);

IFMA static void fixed8_ifma(const satchel_mod52 *m, const fixed_args *a, const int8_t *digits8, uint64_t (*out)[3][5][8],
                             size_t stride) {
    ctx8 c;
    ctx8_make(&c, m);
    fe8 acc[3], one8, q[3], r[3];
    fe8_set(&one8, m->one);
    if (m->sparse) lane8s_fixed(&c, acc, a->table, digits8, a->windows, &one8);
    else lane8_fixed(&c, acc, a->table, digits8, a->windows, &one8);
    for (size_t j = 0; j < a->count; j++) {
        if (a->addends) {
            fe8_set(&q[0], a->addends[j][0]); fe8_set(&q[1], a->addends[j][1]); q[2] = one8;
            if (m->sparse) lane8s_add(&c, r, acc, q);
            else lane8_add(&c, r, acc, q);
        } else {
            for (int k = 0; k < 3; k++) r[k] = acc[k];
        }
        for (int k = 0; k < 3; k++) store8(&c, out[j * stride][k], &r[k]);
    }
    wipe(acc, sizeof acc);
    wipe(r, sizeof r);
}

AVX2 static void fixed8_avx2(const satchel_mod52 *m, const fixed_args *a, const int8_t *digits8, uint64_t (*out)[3][5][8],
                             size_t stride) {
    ctx8a c;
    ctx8a_make(&c, m);
    fe8a acc[3], one, q[3], r[3];
    fe8a_set(&one, m->one);
    BY_SHAPE(&c, fixed, &c, acc, a->table, digits8, a->windows, &one);
    for (size_t j = 0; j < a->count; j++) {
        if (a->addends) {
            fe8a_set(&q[0], a->addends[j][0]); fe8a_set(&q[1], a->addends[j][1]); q[2] = one;
            BY_SHAPE(&c, add, &c, r, acc, q);
        } else {
            for (int k = 0; k < 3; k++) r[k] = acc[k];
        }
        for (int k = 0; k < 3; k++) store8a(&c, out[j * stride][k], &r[k]);
    }
    wipe(acc, sizeof acc);
    wipe(r, sizeof r);
}

/* The vector paths: 8 scalars a block (a partial last block repeats its first scalar), then
 * each addend's n results encoded with one inversion. */
static int fixed_blocks(const satchel_mod52 *m, fixed8_fn kernel, const fixed_args *a, const int8_t *digits, size_t n, uint8_t *out,
                        int ifma) {
    const size_t blocks = (n + 7) / 8;
    uint64_t (*acc)[3][5][8] = malloc(a->count * blocks * sizeof *acc);
    int8_t *digits8 = malloc(a->windows * 8);
    int status = -2;
    if (acc && digits8) {
        for (size_t b = 0; b < blocks; b++) {
            for (size_t lane = 0; lane < 8; lane++) {
                const int8_t *d = digits + a->windows * (8 * b + lane < n ? 8 * b + lane : 8 * b);
                for (size_t w = 0; w < a->windows; w++) digits8[8 * w + lane] = d[w];
            }
            kernel(m, a, digits8, acc + b, blocks);
        }
        status = 0;
        for (size_t j = 0; j < a->count && status == 0; j++) status = encode_blocks(m, acc + j * blocks, n, out + 33 * n * j, FORMAT_SEC1, ifma);
    }
    if (acc) { wipe(acc, a->count * blocks * sizeof *acc); free(acc); }
    if (digits8) { wipe(digits8, a->windows * 8); free(digits8); }
    return status;
}
#endif

int satchel_fixed_batch(enum satchel_simd_path path, const satchel_mod52 *m, const uint64_t (*table)[8][2][5], size_t windows,
                        const int8_t *digits, size_t n, const uint64_t *addends, size_t count, uint8_t *out) {
    if (n == 0) return 0;
    uint64_t (*forms)[2][5] = NULL;
    if (addends) {
        if (count == 0) return 0;
        forms = malloc(count * sizeof *forms);
        if (!forms) return -2;
        for (size_t j = 0; j < count; j++) {
            fe1 v;
            for (int k = 0; k < 2; k++) {
                fe1_to_mont(m, &v, addends + 8 * j + 4 * k);
                for (int l = 0; l < 5; l++) forms[j][k][l] = v.v[l];
            }
        }
    }
    fixed_args a = {table, windows, (const uint64_t (*)[2][5])forms, addends ? count : 1};
    int status;
#if defined(__x86_64__)
    if (runs(path, SATCHEL_SIMD_IFMA)) { status = fixed_blocks(m, fixed8_ifma, &a, digits, n, out, 1); goto done; }
    if (runs(path, SATCHEL_SIMD_AVX2)) { status = fixed_blocks(m, fixed8_avx2, &a, digits, n, out, 0); goto done; }
#endif
    (void)path;
    fe1 *res = malloc(a.count * n * 3 * sizeof(fe1));
    status = -2;
    if (res) {
        fe1 one, acc[3], q[3];
        fe1_set(&one, m->one);
        for (size_t i = 0; i < n; i++) {
            lane1_fixed(m, acc, table, digits + windows * i, windows, &one);
            for (size_t j = 0; j < a.count; j++) {
                fe1 *r = &res[3 * (j * n + i)];
                if (forms) {
                    fe1_set(&q[0], forms[j][0]); fe1_set(&q[1], forms[j][1]); q[2] = one;
                    lane1_add(m, r, acc, q);
                } else {
                    for (int k = 0; k < 3; k++) r[k] = acc[k];
                }
            }
        }
        status = 0;
        for (size_t j = 0; j < a.count && status == 0; j++) status = encode_all_portable(m, res + 3 * j * n, n, out + 33 * n * j, FORMAT_SEC1);
        wipe(acc, sizeof acc);
        wipe(res, a.count * n * 3 * sizeof(fe1));
        free(res);
    }
#if defined(__x86_64__)
done:
#endif
    free(forms);
    return status;
}

/* ---- Decoding points: batched square roots. ---- */

void satchel_mod52_set_sqrt(satchel_mod52 *m, uint64_t nonsquare) {
    uint64_t w[4], t[4];
    words64(w, m->p);
    w[0] -= 1;  /* p is odd: no borrow */
    int s = 0;
    while (((w[s / 64] >> (s % 64)) & 1) == 0) s++;
    for (int i = 0; i < 4; i++) {  /* t = (p − 1) >> s */
        int word = i + s / 64, shift = s % 64;
        uint64_t v = word < 4 ? w[word] >> shift : 0;
        if (shift && word + 1 < 4) v |= w[word + 1] << (64 - shift);
        t[i] = v;
    }
    m->s = s;
    for (int i = 0; i < 4; i++) m->c3[i] = (t[i] >> 1) | (i < 3 ? t[i + 1] << 63 : 0);  /* (t − 1)/2: t is odd */
    int bits = 256;
    while (bits > 0 && ((m->c3[(bits - 1) / 64] >> ((bits - 1) % 64)) & 1) == 0) bits--;
    m->c3bits = bits;
    fe1 c, one, c5;
    fe1_small(m, &c, nonsquare);
    for (int j = 0; j < 5; j++) one.v[j] = m->one[j];
    int tbits = 256;
    while (tbits > 0 && ((t[(tbits - 1) / 64] >> ((tbits - 1) % 64)) & 1) == 0) tbits--;
    lane1_pow(m, &c5, &c, t, tbits, &one);
    for (int j = 0; j < 5; j++) m->c5[j] = c5.v[j];
}

void satchel_mod52_set_edwards(satchel_mod52 *m, const uint64_t d[4]) {
    fe1 dm, d2;
    fe1_to_mont(m, &dm, d);
    fe1_add(m, &d2, &dm, &dm);
    for (int j = 0; j < 5; j++) { m->d[j] = dm.v[j]; m->d2[j] = d2.v[j]; }
}

/* The other coordinate of a point from the one its encoding gives (canonical limbs, in and
 * out), and the mask of the lanes where it exists. Weierstrass: y from x, y^2 = x^3 + b.
 * Edwards: u from v, u^2 = (v^2 − 1)/(d·v^2 + 1), the denominator inverted by INVERT (d·v^2 + 1
 * is never 0: d is not a square): by p − 2, or (vector paths) read from edwards_inverses'. One
 * body for each backend. */
#define ROOT_BODY(FE_T, MUL, SQR, ADD, SUB, SQRT, ARG)                                       \
    FE_T given, rhs, num, den, root, inv;                                                \
    MUL(&given, x, &r2);                                                                 \
    if (!edwards) {                                                                      \
        SQR(&rhs, &given);                                                               \
        MUL(&rhs, &rhs, &given);                                                         \
        ADD(&rhs, &rhs, &b);                                                             \
    } else {                                                                             \
        SQR(&num, &given);                                                               \
        MUL(&den, &num, &d);                                                             \
        ADD(&den, &den, &one);                                                           \
        SUB(&num, &num, &one);                                                           \
        INVERT(&inv, &den);                                                              \
        MUL(&rhs, &num, &inv);                                                           \
    }                                                                                    \
    uint64_t square = SQRT(ARG, &root, &rhs, &one, &c5, m->c3, m->c3bits, m->s);         \
    MUL(&root, &root, &unit);

static uint64_t root1(const satchel_mod52 *m, fe1 *y, const fe1 *x, int edwards) {
    fe1 one, c5, b, d, r2, unit = {{1, 0, 0, 0, 0}};
    uint64_t pm2[4];
    p_minus_2(m, pm2);
    for (int j = 0; j < 5; j++) { one.v[j] = m->one[j]; c5.v[j] = m->c5[j]; b.v[j] = m->b[j]; d.v[j] = m->d[j]; r2.v[j] = m->r2[j]; }
#define MUL1(r, a, bb) fe1_mul(m, r, a, bb)
#define SQR1(r, a) fe1_mul(m, r, a, a)
#define ADD1(r, a, bb) fe1_add(m, r, a, bb)
#define SUB1(r, a, bb) fe1_sub(m, r, a, bb)
#define INVERT(r, a) lane1_pow(m, r, a, pm2, 256, &one)
    ROOT_BODY(fe1, MUL1, SQR1, ADD1, SUB1, lane1_sqrt, m)
#undef INVERT
    *y = root;
    return square;
}

#if defined(__x86_64__)
IFMA static uint64_t root8_ifma(const satchel_mod52 *m, uint64_t y[5][8], const uint64_t xl[5][8], int edwards,
                               const uint64_t (*inverse)[8]) {
    ctx8 c;
    ctx8_make(&c, m);
    fe8 one, c5, b, d, r2, unit, xv, *x = &xv;
    uint64_t pm2[4];
    p_minus_2(m, pm2);
    for (int j = 0; j < 5; j++) {
        one.v[j] = _mm512_set1_epi64((long long)m->one[j]);
        c5.v[j] = _mm512_set1_epi64((long long)m->c5[j]);
        b.v[j] = _mm512_set1_epi64((long long)m->b[j]);
        d.v[j] = _mm512_set1_epi64((long long)m->d[j]);
        r2.v[j] = _mm512_set1_epi64((long long)m->r2[j]);
        unit.v[j] = _mm512_set1_epi64(j == 0 ? 1 : 0);
    }
    load8(x, xl);
#define MUL8(r, a, bb) fe8_mul(&c, r, a, bb)
#define SQR8(r, a) fe8_sqr(&c, r, a)
#define ADD8(r, a, bb) fe8_add(&c, r, a, bb)
#define SUB8(r, a, bb) fe8_sub(&c, r, a, bb)
#define POW8(ctx, r, a, e, bits, o) (m->sparse ? lane8s_pow(ctx, r, a, e, bits, o) : lane8_pow(ctx, r, a, e, bits, o))
#define SQRT8(ctx, r, a, o, c5v, c3, bits, s) (m->sparse ? lane8s_sqrt(ctx, r, a, o, c5v, c3, bits, s) : lane8_sqrt(ctx, r, a, o, c5v, c3, bits, s))
#define INVERT(r, a) do { if (inverse) load8(r, inverse); else POW8(&c, r, a, pm2, 256, &one); } while (0)
    ROOT_BODY(fe8, MUL8, SQR8, ADD8, SUB8, SQRT8, &c)
#undef INVERT
    store8(&c, y, &root);
    return square;
}

/* The same on AVX2. */
AVX2 static uint64_t root8_avx2(const satchel_mod52 *m, uint64_t y[5][8], const uint64_t xl[5][8], int edwards,
                               const uint64_t (*inverse)[8]) {
    ctx8a c;
    ctx8a_make(&c, m);
    const uint64_t unit52[5] = {1, 0, 0, 0, 0};
    fe8a one, c5, b, d, r2, unit, xv, *x = &xv;
    uint64_t pm2[4];
    p_minus_2(m, pm2);
    fe8a_set(&one, m->one); fe8a_set(&c5, m->c5); fe8a_set(&b, m->b); fe8a_set(&d, m->d); fe8a_set(&r2, m->r2);
    fe8a_set(&unit, unit52);
    load8a(x, xl);
#define MUL8A(r, a, bb) fe8a_mul(&c, r, a, bb)
#define SQR8A(r, a) fe8a_sqr(&c, r, a)
#define ADD8A(r, a, bb) fe8a_add(&c, r, a, bb)
#define SUB8A(r, a, bb) fe8a_sub(&c, r, a, bb)
#define POW8A(ctx, r, a, e, bits, o) BY_SHAPE(ctx, pow, ctx, r, a, e, bits, o)
#define SQRT8A(ctx, r, a, o, c5v, c3, bits, s) BY_SHAPE(ctx, sqrt, ctx, r, a, o, c5v, c3, bits, s)
#define INVERT(r, a) do { if (inverse) load8a(r, inverse); else POW8A(&c, r, a, pm2, 256, &one); } while (0)
    ROOT_BODY(fe8a, MUL8A, SQR8A, ADD8A, SUB8A, SQRT8A, &c)
#undef INVERT
    store8a(&c, y, &root);
    return square;
}

/* Edwards decoding on a vector path: the denominators d·v^2 + 1 of every block (Montgomery
 * form) inverted together, Montgomery's trick down each lane across the blocks and one vector
 * exponentiation, instead of one per block. 0 if there is no memory (each block then inverts
 * its own). */
#define INVERSES_BODY(FE_T, MUL, SQR, ADD, POW, LOAD, STORE, SET, ARG)                   \
    FE_T one, d, r2, running, v, den, inv, t;                                            \
    FE_T *dens = aligned_alloc(64, blocks * sizeof(FE_T));                               \
    if (!dens) return 0;                                                                 \
    uint64_t pm2[4];                                                                     \
    p_minus_2(m, pm2);                                                                   \
    SET(&one, m->one); SET(&d, m->d); SET(&r2, m->r2);                                   \
    running = one;                                                                       \
    for (size_t b = 0; b < blocks; b++) {                                                \
        LOAD(&v, x[b]);                                                                  \
        MUL(&v, &v, &r2);                                                                \
        SQR(&den, &v);                                                                   \
        MUL(&den, &den, &d);                                                             \
        ADD(&dens[b], &den, &one);                                                       \
        STORE(inverses[b], &running);  /* the prefix, until the way back */              \
        MUL(&running, &running, &dens[b]);                                               \
    }                                                                                    \
    POW(ARG, &inv, &running, pm2, 256, &one);                                            \
    for (size_t b = blocks; b-- > 0;) {                                                  \
        LOAD(&t, inverses[b]);                                                           \
        MUL(&t, &t, &inv);                                                               \
        MUL(&inv, &inv, &dens[b]);                                                       \
        STORE(inverses[b], &t);                                                          \
    }                                                                                    \
    free(dens);                                                                          \
    return 1;

IFMA static int edwards_inverses_ifma(const satchel_mod52 *m, const uint64_t (*x)[5][8], size_t blocks, uint64_t (*inverses)[5][8]) {
    ctx8 c;
    ctx8_make(&c, m);
#define LOAD8(r, a) load8(r, a)
#define STORE8(a, r) store8(&c, a, r)
#define SET8(r, l) do { for (int j = 0; j < 5; j++) (r)->v[j] = _mm512_set1_epi64((long long)(l)[j]); } while (0)
    INVERSES_BODY(fe8, MUL8, SQR8, ADD8, POW8, LOAD8, STORE8, SET8, &c)
}

AVX2 static int edwards_inverses_avx2(const satchel_mod52 *m, const uint64_t (*x)[5][8], size_t blocks, uint64_t (*inverses)[5][8]) {
    ctx8a c;
    ctx8a_make(&c, m);
#define STORE8A(a, r) store8a(&c, a, r)
    INVERSES_BODY(fe8a, MUL8A, SQR8A, ADD8A, POW8A, load8a, STORE8A, fe8a_set, &c)
}
#endif

/* Block `base` of the encodings (8 of them, a partial block repeating its first): x (or v) as
 * canonical limbs, zero where the encoding is not below p (or, Weierstrass, all zero). */
static void parse_block(const uint8_t *encodings, size_t n, size_t base, const uint64_t pw[4], int edwards,
                        uint64_t x[5][8], uint64_t xw[8][4], uint8_t valid[8], uint8_t sign[8]) {
    size_t count = n - base < 8 ? n - base : 8;
    for (size_t lane = 0; lane < 8; lane++) {
        const uint8_t *e = encodings + 32 * (base + (lane < count ? lane : 0));
        uint64_t any = 0;
        for (int i = 0; i < 4; i++) {
            uint64_t v = 0;
            for (int k = 7; k >= 0; k--) v = v << 8 | e[8 * i + k];
            xw[lane][i] = v;
            any |= v;
        }
        sign[lane] = e[31] >> 7;
        xw[lane][3] &= 0x7FFFFFFFFFFFFFFFULL;
        /* below p, compared from the top word */
        int below = 0;
        for (int i = 3; i >= 0; i--) {
            if (xw[lane][i] != pw[i]) { below = xw[lane][i] < pw[i]; break; }
        }
        valid[lane] = (uint8_t)(below && (edwards || any != 0));
        if (!valid[lane]) for (int i = 0; i < 4; i++) xw[lane][i] = 0;
        uint64_t l[5];
        limbs52(l, xw[lane]);
        for (int j = 0; j < 5; j++) x[j][lane] = l[j];
    }
}

/* Weierstrass (x, y), x given, the all-zero encoding the identity's and not decoded here; or
 * Edwards (u, v), v given. */
static void decode_batch(enum satchel_simd_path path, const satchel_mod52 *m, const uint8_t *encodings, size_t n,
                         uint64_t *points, uint8_t *ok, int edwards) {
    const int ifma = runs(path, SATCHEL_SIMD_IFMA), avx2 = runs(path, SATCHEL_SIMD_AVX2);
    uint64_t pw[4];
    words64(pw, m->p);
    const size_t blocks = (n + 7) / 8;
    uint64_t (*inverses)[5][8] = NULL;
    (void)blocks;
#if defined(__x86_64__)
    if (edwards && (ifma || avx2) && blocks > 1) {
        uint64_t (*xs)[5][8] = malloc(blocks * sizeof *xs);
        inverses = malloc(blocks * sizeof *inverses);
        if (xs && inverses) {
            uint64_t xw[8][4];
            uint8_t valid[8], sign[8];
            for (size_t b = 0; b < blocks; b++) parse_block(encodings, n, 8 * b, pw, edwards, xs[b], xw, valid, sign);
            if (!(ifma ? edwards_inverses_ifma : edwards_inverses_avx2)(m, (const uint64_t (*)[5][8])xs, blocks, inverses)) {
                free(inverses);
                inverses = NULL;
            }
        } else {
            free(inverses);
            inverses = NULL;
        }
        free(xs);
    }
#endif
    for (size_t base = 0; base < n; base += 8) {
        size_t count = n - base < 8 ? n - base : 8;
        uint64_t x[5][8], y[5][8], xw[8][4], square = 0;
        uint8_t valid[8], sign[8];
        parse_block(encodings, n, base, pw, edwards, x, xw, valid, sign);
        const uint64_t (*inverse)[8] = inverses ? (const uint64_t (*)[8])inverses[base / 8] : NULL;
        (void)inverse;
#if defined(__x86_64__)
        if (ifma) square = root8_ifma(m, y, x, edwards, inverse);
        if (avx2) square = root8_avx2(m, y, x, edwards, inverse);
#endif
        if (!ifma && !avx2) {
            for (size_t lane = 0; lane < count; lane++) {
                fe1 xl, yl;
                load1(&xl, x, lane);
                square |= root1(m, &yl, &xl, edwards) & (1ULL << lane);
                store1(y, &yl, lane);
            }
        }
        for (size_t lane = 0; lane < count; lane++) {
            size_t i = base + lane;
            uint64_t *out = points + 8 * i;
            fe1 yl, neg;
            load1(&yl, y, lane);
            const int zero = (yl.v[0] | yl.v[1] | yl.v[2] | yl.v[3] | yl.v[4]) == 0;
            /* ZIP 216: u = 0 has one encoding, without the sign bit */
            ok[i] = (uint8_t)(valid[lane] && ((square >> lane) & 1) && !(edwards && zero && sign[lane]));
            if (!ok[i]) { for (int k = 0; k < 8; k++) out[k] = 0; continue; }
            if ((yl.v[0] & 1) != sign[lane]) {  /* 0 has no other sign (Weierstrass: x^3 + b = 0 keeps it) */
                const fe1 z0 = {{0, 0, 0, 0, 0}};
                fe1_sub(m, &neg, &z0, &yl);
                yl = neg;
            }
            uint64_t *given = out + (edwards ? 4 : 0), *root = out + (edwards ? 0 : 4);
            for (int k = 0; k < 4; k++) given[k] = xw[lane][k];
            words64(root, yl.v);
        }
    }
    free(inverses);
}

void satchel_weierstrass_decode_batch(enum satchel_simd_path path, const satchel_mod52 *m, const uint8_t *encodings,
                                      size_t n, uint64_t *points, uint8_t *ok) {
    decode_batch(path, m, encodings, n, points, ok, 0);
}

void satchel_edwards_decode_batch(enum satchel_simd_path path, const satchel_mod52 *m, const uint8_t *encodings,
                                  size_t n, uint64_t *points, uint8_t *ok) {
    decode_batch(path, m, encodings, n, points, ok, 1);
}
