/* Constant-time check of CCurveBatch (make ctime), as libsecp256k1's ctime tests do: every
 * entry point that takes a secret (a scalar, IVK digits, the data a secret is hashed from) is
 * called with that secret marked undefined for valgrind's memcheck, on the portable path and,
 * where the CPU has it, AVX2. A conditional jump or a memory address that depends on the
 * secret is then a memcheck error, and valgrind exits 42. Public inputs (points, encodings,
 * the field's constants) stay defined. valgrind runs no AVX-512: the IFMA kernels are the same
 * templates (ladder.inc, point_formulas.inc) instantiated with other vector types.
 *
 * Built apart from the Swift package with the package's C flags (-O2), since the check is of
 * the machine code's branches: cc -O2 -I Sources/CCurveBatch/include Sources/CCurveBatch/\*.c
 * Tests/ctime/ctime.c -lsodium. Without valgrind it runs too (the marks are no-ops), which the
 * Makefile uses to show the harness itself completes. */
#include "satchel_curve_batch.h"
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

enum { N = 9 };  /* more than a vector's lanes, and not a multiple of them */

static void words(uint64_t out[4], const uint64_t in[4]) { memcpy(out, in, 32); }

/* n points of the curve set up in m, decoded (public) from random encodings until n decode. */
static size_t decoded(const satchel_mod52 *m, int edwards, uint64_t *points, size_t n) {
    size_t have = 0;
    while (have < n) {
        uint8_t enc[32 * N], ok[N];
        uint64_t p[8 * N];
        randombytes_buf(enc, sizeof enc);
        for (int i = 0; i < N; i++) enc[32 * i + 31] &= 0x3F;  /* below both moduli's top bits */
        if (edwards) satchel_edwards_decode_batch(SATCHEL_SIMD_PORTABLE, m, enc, N, p, ok);
        else satchel_weierstrass_decode_batch(SATCHEL_SIMD_PORTABLE, m, enc, N, p, ok);
        for (int i = 0; i < N && have < n; i++)
            if (ok[i]) memcpy(points + 8 * have++, p + 8 * i, 64);
    }
    return have;
}

/* Signed 4-bit digits in [−8, 8] of a random scalar below 2^252 (what the Swift side makes). */
static void digits(int8_t *d, size_t windows) {
    uint8_t r[32];
    randombytes_buf(r, sizeof r);
    r[31] &= 0x0F;
    int carry = 0;
    for (size_t i = 0; i < windows; i++) {
        int v = (i / 2 < 32 ? (r[i / 2] >> (4 * (i % 2))) & 0xF : 0) + carry;
        carry = v > 8;
        d[i] = (int8_t)(v - 16 * carry);
    }
}

static int run(enum satchel_simd_path path) {
    int failures = 0;
    uint8_t scalar[32], points[32 * N], out[32 * N], ok[N];
    randombytes_buf(scalar, sizeof scalar);
    randombytes_buf(points, sizeof points);

    SECRET(scalar, sizeof scalar);
    failures += satchel_x25519_batch(path, out, scalar, points, N) != 0;
    PUBLIC(out, sizeof out);

    for (int i = 0; i < N; i++) ok[i] = 1;
    failures += satchel_edwards_y_batch(path, out, ok, scalar, points, N) != 0;
    PUBLIC(out, sizeof out);
    PUBLIC(ok, sizeof ok);
    PUBLIC(scalar, sizeof scalar);

    /* Keccak of secret data (Monero's Hs(8aR ‖ i)): only the lengths may steer it. */
    uint8_t data[40 * N];
    size_t offsets[N + 1];
    randombytes_buf(data, sizeof data);
    for (int i = 0; i <= N; i++) offsets[i] = (size_t)(33 + (i > 0)) * (size_t)i;
    SECRET(data, sizeof data);
    satchel_keccak256_batch(path, out, data, offsets, N);
    PUBLIC(out, sizeof out);

    /* Pallas (Orchard's ivk): GLV with two digit strings. */
    static const uint64_t pallas_p[4] = {0x992D30ED00000001ull, 0x224698FC094CF91Bull, 0, 0x4000000000000000ull};
    static const uint64_t pallas_zeta[4] = {0x7B7FD22F0201B547ull, 0x05270D29D19FC7D2ull, 0xD3552A23A8554E50ull, 0x2D33357CB532458Eull};
    satchel_mod52 pallas;
    uint64_t p4[4], z4[4];
    words(p4, pallas_p);
    words(z4, pallas_zeta);
    satchel_mod52_init(&pallas, p4);
    satchel_mod52_set_b(&pallas, 5);
    satchel_mod52_set_sqrt(&pallas, 5);
    uint64_t pts[8 * N];
    decoded(&pallas, 0, pts, N);
    int8_t d1[33], d2[33];
    digits(d1, 33);
    digits(d2, 33);
    SECRET(d1, sizeof d1);
    SECRET(d2, sizeof d2);
    failures += satchel_glv_batch(path, &pallas, z4, d1, d2, 33, pts, N, out) != 0;
    PUBLIC(out, sizeof out);

    /* Jubjub (Sapling's ivk), with and without the cofactor. */
    static const uint64_t jubjub_q[4] = {0xFFFFFFFF00000001ull, 0x53BDA402FFFE5BFEull, 0x3339D80809A1D805ull, 0x73EDA753299D7D48ull};
    static const uint64_t jubjub_d[4] = {0x01065FD6D6343EB1ull, 0x292D7F6D37579D26ull, 0xF5FD9207E6BD7FD4ull, 0x2A9318E74BFA2B48ull};
    satchel_mod52 jubjub;
    uint64_t q4[4], dd[4];
    words(q4, jubjub_q);
    words(dd, jubjub_d);
    satchel_mod52_init(&jubjub, q4);
    satchel_mod52_set_sqrt(&jubjub, 5);
    satchel_mod52_set_edwards(&jubjub, dd);
    decoded(&jubjub, 1, pts, N);
    int8_t k[64];
    digits(k, 64);
    SECRET(k, sizeof k);
    for (int cofactor = 0; cofactor < 2; cofactor++) {
        failures += satchel_edwards_mul_batch(path, &jubjub, k, 64, cofactor, pts, N, out) != 0;
        PUBLIC(out, sizeof out);
    }

    /* secp256k1 (BIP352's scan key): the split of a secret scalar, then the ladder on the plain
     * field (this path's) and the Montgomery one (the IFMA kernels'). The points: G, N times. */
    uint8_t sk[32];
    uint64_t spts[8 * N], gx[8] = {0x59F2815B16F81798ull, 0x029BFCDB2DCE28D9ull, 0x55A06295CE870B07ull, 0x79BE667EF9DCBBACull,
                                   0x9C47D08FFB10D4B8ull, 0xFD17B448A6855419ull, 0x5DA4FBFC0E1108A8ull, 0x483ADA7726A3C465ull};
    for (int i = 0; i < N; i++) memcpy(spts + 8 * i, gx, 64);
    randombytes_buf(sk, sizeof sk);
    sk[0] &= 0x7F;  /* below n */
    sk[31] |= 1;    /* not zero */
    uint8_t sout[33 * N];
    SECRET(sk, sizeof sk);
    failures += satchel_secp256k1_mul_batch(path, sk, spts, N, sout) != 0;
    PUBLIC(sout, sizeof sout);
    int8_t s1[33], s2[33];
    failures += satchel_secp256k1_split(sk, s1, s2) != 0;
    satchel_mod52 k1;
    static const uint64_t beta[4] = {0xC1396C28719501EEull, 0x9CF0497512F58995ull, 0x6E64479EAC3434E9ull, 0x7AE96A2B657C0710ull};
    satchel_secp256k1_field(&k1, 0);
    failures += satchel_glv_batch_sec1(path, &k1, beta, s1, s2, 33, spts, N, sout) != 0;
    PUBLIC(sout, sizeof sout);
    PUBLIC(sk, sizeof sk);

    /* BIP352's (b_scan·input_hash)·A for N transactions: a secret scalar per point. */
    uint8_t ks[32 * N];
    randombytes_buf(ks, sizeof ks);
    for (int i = 0; i < N; i++) { ks[32 * i] &= 0x7F; ks[32 * i + 31] |= 1; }
    for (int plain = 0; plain < 2; plain++) {
        SECRET(ks, sizeof ks);
        failures += satchel_secp256k1_mul_lanes_field(path, plain, ks, spts, N, sout) != 0;
        PUBLIC(sout, sizeof sout);
        PUBLIC(ks, sizeof ks);
    }

    /* BIP352's t_k·G + B_spend for N secret t_k (each lane its own digits), the fixed-base
     * kernel on both fields, with and without a point to add. The table of G is made on the
     * first call, from G alone (public). */
    uint8_t ts[32 * N], gout[33 * N * 2];
    randombytes_buf(ts, sizeof ts);
    for (int i = 0; i < N; i++) { ts[32 * i] &= 0x7F; ts[32 * i + 31] |= 1; }
    uint64_t add[16];
    memcpy(add, gx, 64);
    memcpy(add + 8, spts, 64);
    for (int plain = 0; plain < 2; plain++) {
        SECRET(ts, sizeof ts);
        failures += satchel_secp256k1_gen_batch_field(path, plain, ts, N, add, 2, gout) != 0;
        PUBLIC(gout, sizeof gout);
        SECRET(ts, sizeof ts);
        failures += satchel_secp256k1_gen_batch_field(path, plain, ts, N, NULL, 0, gout) != 0;
        PUBLIC(gout, 33 * N);
        PUBLIC(ts, sizeof ts);
    }
    return failures;
}

int main(void) {
    if (sodium_init() < 0) return 1;
    int failures = 0, paths = 0;
    const enum satchel_simd_path all[] = {SATCHEL_SIMD_PORTABLE, SATCHEL_SIMD_AVX2};
    for (int i = 0; i < 2; i++) {
        if (!satchel_simd_supported(all[i])) {
            printf("ctime: %s not on this CPU (under valgrind: not emulated), skipped\n", satchel_simd_path_name(all[i]));
            continue;
        }
        failures += run(all[i]);
        paths++;
        printf("ctime: %s: x25519, Edwards y, Keccak, Pallas GLV, Jubjub (with and without cofactor), secp256k1 (split, GLV with one key and a key each, t·G + Q, on both fields) run\n", satchel_simd_path_name(all[i]));
    }
    if (satchel_simd_supported(SATCHEL_SIMD_IFMA))
        printf("ctime: ifma is on this CPU and not under valgrind; its kernels are the templates checked above\n");
    return failures || paths == 0;
}
