/* secp256k1 (y^2 = x^3 + 7 over p = 2^256 − 2^32 − 977) on the radix-2^52 ladders of
 * field52.c: BIP352's shared secrets b_scan·T for one scan key and many points T, 8 points per
 * ladder. The scalar is split by the curve's endomorphism, λ·(x, y) = (β·x, y), as
 * libsecp256k1's secp256k1_scalar_split_lambda splits it (its constants; the rounding of
 * k·g/2^384 the same), but over the integers: k1 = k − c1·a1 − c2·a2 and k2 = c1·|b1| − c2·b2
 * are small signed numbers (|k1|, |k2| < 2^129), so no arithmetic mod n is needed. Every step
 * on k is fixed-width: no branch or address depends on it. */
#include "satchel_curve_batch.h"
#include "wipe.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define WINDOWS 33 /* signed 4-bit digits of a half below 2^129, with the recoding's carry */

static const uint64_t P[4] = {0xFFFFFFFEFFFFFC2FULL, 0xFFFFFFFFFFFFFFFFULL, 0xFFFFFFFFFFFFFFFFULL, 0xFFFFFFFFFFFFFFFFULL};
static const uint64_t N[4] = {0xBFD25E8CD0364141ULL, 0xBAAEDCE6AF48A03BULL, 0xFFFFFFFFFFFFFFFEULL, 0xFFFFFFFFFFFFFFFFULL};
static const uint64_t BETA[4] = {0xC1396C28719501EEULL, 0x9CF0497512F58995ULL, 0x6E64479EAC3434E9ULL, 0x7AE96A2B657C0710ULL};
static const uint64_t G1[4] = {0xE893209A45DBB031ULL, 0x3DAA8A1471E8CA7FULL, 0xE86C90E49284EB15ULL, 0x3086D221A7D46BCDULL};
static const uint64_t G2[4] = {0x1571B4AE8AC47F71ULL, 0x221208AC9DF506C6ULL, 0x6F547FA90ABFE4C4ULL, 0xE4437ED6010E8828ULL};
static const uint64_t A1[3] = {0xE86C90E49284EB15ULL, 0x3086D221A7D46BCDULL, 0};       /* = b2 */
static const uint64_t B1[3] = {0x6F547FA90ABFE4C3ULL, 0xE4437ED6010E8828ULL, 0};       /* |b1| */
static const uint64_t A2[3] = {0x57C1108D9D44CFD8ULL, 0x14CA50F7A8E2F3F6ULL, 1};       /* a1 + |b1| */

/* r[0 ..< na + nb] = a·b. */
static void mul_words(uint64_t *r, const uint64_t *a, int na, const uint64_t *b, int nb) {
    for (int i = 0; i < na + nb; i++) r[i] = 0;
    for (int i = 0; i < na; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < nb; j++) {
            unsigned __int128 t = (unsigned __int128)a[i] * b[j] + r[i + j] + carry;
            r[i + j] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
        r[i + nb] = carry;
    }
}

/* round(k·g / 2^384), below 2^128 for k < n. */
static void mul_shift_384(uint64_t c[2], const uint64_t k[4], const uint64_t g[4]) {
    uint64_t t[8];
    mul_words(t, k, 4, g, 4);
    uint64_t round = t[5] >> 63;  /* bit 383 */
    unsigned __int128 lo = (unsigned __int128)t[6] + round;
    c[0] = (uint64_t)lo;
    c[1] = t[7] + (uint64_t)(lo >> 64);
    wipe(t, sizeof t);
}

/* r −= a over 5 words, two's complement (a has 5 words). */
static void sub5(uint64_t r[5], const uint64_t a[5]) {
    uint64_t borrow = 0;
    for (int i = 0; i < 5; i++) {
        unsigned __int128 t = (unsigned __int128)r[i] - a[i] - borrow;
        r[i] = (uint64_t)t;
        borrow = (uint64_t)(t >> 64) & 1;
    }
}

/* A signed 5-word number's magnitude as 4-bit digits recoded into [−7, 8], negated when the
 * number is negative; by masks, not branches. Returns 0 where the magnitude is below 2^129
 * and no carry leaves the top digit, which holds for every k < n. */
static uint64_t signed_digits(int8_t d[WINDOWS], const uint64_t v[5]) {
    const uint64_t negative = 0 - (v[4] >> 63);
    uint64_t m[5], carry = 1 & negative;
    for (int i = 0; i < 5; i++) {  /* (v ^ mask) + (mask & 1): the magnitude */
        unsigned __int128 t = (unsigned __int128)(v[i] ^ negative) + carry;
        m[i] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
    uint64_t out_of_bound = m[4] | m[3] | (m[2] >> 1);
    const int64_t flip = (int64_t)negative;
    int64_t c = 0;
    for (int i = 0; i < WINDOWS; i++) {
        int64_t digit = (int64_t)((m[i / 16] >> (4 * (i % 16))) & 0xF) + c;
        c = ((8 - digit) >> 63) & 1;  /* 1 when the digit is over 8 */
        d[i] = (int8_t)(((digit - 16 * c) ^ flip) - flip);
    }
    wipe(m, sizeof m);
    return out_of_bound | (uint64_t)c;
}

/* 1 where k (big-endian) is in [1, n), read into little-endian words; without a branch. */
static uint64_t scalar_words(uint64_t w[4], const uint8_t k[32]) {
    for (int i = 0; i < 4; i++) {
        w[i] = 0;
        for (int b = 0; b < 8; b++) w[i] |= (uint64_t)k[31 - 8 * i - b] << (8 * b);
    }
    uint64_t borrow = 0, any = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 t = (unsigned __int128)w[i] - N[i] - borrow;
        borrow = (uint64_t)(t >> 64) & 1;
        any |= w[i];
    }
    return borrow & (((any | (0 - any)) >> 63) & 1);  /* k < n and k ≠ 0 */
}

int satchel_secp256k1_split(const uint8_t k[32], int8_t digits1[33], int8_t digits2[33]) {
    uint64_t w[4], c1[2], c2[2], t[5], k1[5] = {0}, k2[5] = {0};
    uint64_t valid = scalar_words(w, k);
    mul_shift_384(c1, w, G1);
    mul_shift_384(c2, w, G2);
    /* k2 = c1·|b1| − c2·b2 */
    mul_words(k2, c1, 2, B1, 3);
    mul_words(t, c2, 2, A1, 3);
    sub5(k2, t);
    /* k1 = k − c1·a1 − c2·a2 */
    for (int i = 0; i < 4; i++) k1[i] = w[i];
    mul_words(t, c1, 2, A1, 3);
    sub5(k1, t);
    mul_words(t, c2, 2, A2, 3);
    sub5(k1, t);
    uint64_t bad = signed_digits(digits1, k1) | signed_digits(digits2, k2);
    /* Public by design: both are 0 for every valid key (the split's bound), so the outcome
     * tells nothing of k. */
    satchel_declassify(&valid, sizeof valid);
    satchel_declassify(&bad, sizeof bad);
    wipe(w, sizeof w); wipe(c1, sizeof c1); wipe(c2, sizeof c2); wipe(t, sizeof t); wipe(k1, sizeof k1); wipe(k2, sizeof k2);
    if (!valid) return -1;
    return bad ? -3 : 0;
}

/* Plain products where the path has them; the IFMA kernels multiply in Montgomery form only. */
static int plain_field(enum satchel_simd_path path) {
    return !(path == SATCHEL_SIMD_IFMA && satchel_simd_supported(SATCHEL_SIMD_IFMA));
}

void satchel_secp256k1_field(satchel_mod52 *m, int plain) {
    satchel_mod52_init(m, P);
    if (plain) {
        m->k1 = 1;
        for (int j = 0; j < 5; j++) m->one[j] = m->r2[j] = j == 0;
    }
    satchel_mod52_set_b(m, 7);
}

int satchel_secp256k1_mul_batch(enum satchel_simd_path path, const uint8_t k[32], const uint64_t *points, size_t n,
                                uint8_t *out) {
    int8_t d1[WINDOWS], d2[WINDOWS];
    int status = satchel_secp256k1_split(k, d1, d2);
    if (status == 0) {
        satchel_mod52 m;
        satchel_secp256k1_field(&m, plain_field(path));
        status = satchel_glv_batch_sec1(path, &m, BETA, d1, d2, WINDOWS, points, n, out);
    }
    wipe(d1, sizeof d1);
    wipe(d2, sizeof d2);
    return status;
}

/* k_i·P_i, each point its own secret scalar (BIP352's (b_scan·input_hash)·A for a block's
 * transactions): every scalar split as above, then the per-lane ladder. */
int satchel_secp256k1_mul_lanes(enum satchel_simd_path path, const uint8_t *scalars, const uint64_t *points, size_t n, uint8_t *out) {
    return satchel_secp256k1_mul_lanes_field(path, plain_field(path), scalars, points, n, out);
}

int satchel_secp256k1_mul_lanes_field(enum satchel_simd_path path, int plain, const uint8_t *scalars, const uint64_t *points, size_t n,
                                      uint8_t *out) {
    if (n == 0) return 0;
    int8_t *d1 = malloc(n * WINDOWS), *d2 = malloc(n * WINDOWS);
    int status = -2;
    if (d1 && d2) {
        status = 0;
        for (size_t i = 0; i < n; i++) {  /* the split's outcome is public (satchel_secp256k1_split) */
            int s = satchel_secp256k1_split(scalars + 32 * i, d1 + WINDOWS * i, d2 + WINDOWS * i);
            if (s != 0 && status == 0) status = s;
        }
        if (status == 0) {
            satchel_mod52 m;
            satchel_secp256k1_field(&m, plain);
            status = satchel_glv_lanes_batch_sec1(path, &m, BETA, d1, d2, WINDOWS, points, n, out);
        }
    }
    if (d1) { wipe(d1, n * WINDOWS); free(d1); }
    if (d2) { wipe(d2, n * WINDOWS); free(d2); }
    return status;
}

/* ---- t·G: the fixed-base kernel over a table of G. ---- */

#define GEN_WINDOWS 65 /* signed 4-bit digits of t < 2^256, with the recoding's carry */

static const uint64_t GX[4] = {0x59F2815B16F81798ULL, 0x029BFCDB2DCE28D9ULL, 0x55A06295CE870B07ULL, 0x79BE667EF9DCBBACULL};
static const uint64_t GY[4] = {0x9C47D08FFB10D4B8ULL, 0xFD17B448A6855419ULL, 0x5DA4FBFC0E1108A8ULL, 0x483ADA7726A3C465ULL};

/* j·16^w·G in each field form the kernels use: plain products (portable, AVX2), Montgomery (IFMA). */
static uint64_t gen_plain[GEN_WINDOWS][8][2][5], gen_montgomery[GEN_WINDOWS][8][2][5];
static pthread_once_t gen_once = PTHREAD_ONCE_INIT;

static void gen_tables(void) {
    uint64_t g[8];
    for (int i = 0; i < 4; i++) { g[i] = GX[i]; g[4 + i] = GY[i]; }
    satchel_mod52 m;
    satchel_secp256k1_field(&m, 1);
    satchel_fixed_table(&m, g, GEN_WINDOWS, gen_plain);
    satchel_secp256k1_field(&m, 0);
    satchel_fixed_table(&m, g, GEN_WINDOWS, gen_montgomery);
}

/* t as 65 signed 4-bit digits in [−8, 8], least significant first (the top one the carry, 0 or
 * 1); 1 where t is in [1, n). No branch or address depends on t. */
static uint64_t gen_digits(int8_t d[GEN_WINDOWS], const uint8_t t[32]) {
    uint64_t w[4];
    const uint64_t valid = scalar_words(w, t);
    int64_t c = 0;
    for (int i = 0; i < GEN_WINDOWS - 1; i++) {
        int64_t digit = (int64_t)((w[i / 16] >> (4 * (i % 16))) & 0xF) + c;
        c = ((8 - digit) >> 63) & 1;  /* 1 when the digit is over 8 */
        d[i] = (int8_t)(digit - 16 * c);
    }
    d[GEN_WINDOWS - 1] = (int8_t)c;
    wipe(w, sizeof w);
    return valid;
}

int satchel_secp256k1_gen_batch(enum satchel_simd_path path, const uint8_t *scalars, size_t n, const uint64_t *addends, size_t count,
                                uint8_t *out) {
    return satchel_secp256k1_gen_batch_field(path, plain_field(path), scalars, n, addends, count, out);
}

int satchel_secp256k1_gen_batch_field(enum satchel_simd_path path, int plain, const uint8_t *scalars, size_t n, const uint64_t *addends,
                                      size_t count, uint8_t *out) {
    if (n == 0) return 0;
    pthread_once(&gen_once, gen_tables);
    int8_t *digits = malloc(n * GEN_WINDOWS);
    if (!digits) return -2;
    uint64_t valid = 1;
    for (size_t i = 0; i < n; i++) valid &= gen_digits(digits + GEN_WINDOWS * i, scalars + 32 * i);
    /* Public by design: every t_k in use is valid (a hash below n but for 2^-128). */
    satchel_declassify(&valid, sizeof valid);
    int status = -1;
    if (valid) {
        satchel_mod52 m;
        satchel_secp256k1_field(&m, plain);
        status = satchel_fixed_batch(path, &m, (const uint64_t (*)[8][2][5])(plain ? gen_plain : gen_montgomery), GEN_WINDOWS, digits,
                                     n, addends, count, out);
    }
    wipe(digits, n * GEN_WINDOWS);
    free(digits);
    return status;
}
