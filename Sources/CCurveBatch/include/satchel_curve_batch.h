#ifndef SATCHEL_CURVE_BATCH_H
#define SATCHEL_CURVE_BATCH_H

#include <stddef.h>
#include <stdint.h>

/* Batched field arithmetic for trial decryption (issue 23): many independent points, one
 * scalar. Elements of a prime field with modulus p < 2^255 are five 52-bit limbs, little-endian;
 * a batch of 8 is stored limb-major (x[limb][lane]) so that one vector register holds one
 * limb of 8 elements. Montgomery form uses R = 2^260.
 *
 * Paths, chosen once per process from cpuid (SATCHEL_SIMD=ifma|avx2|portable forces one, for
 * tests and benchmarks): AVX-512 IFMA 8 lanes, AVX2, portable C. Every path gives the same
 * bits. No branch or memory access depends on an element's value. */

enum satchel_simd_path {
    SATCHEL_SIMD_PORTABLE = 0,
    SATCHEL_SIMD_AVX2 = 1,
    SATCHEL_SIMD_IFMA = 2,
};

/* The path in use: the best this CPU has, or the one SATCHEL_SIMD names (never one the CPU
 * lacks: a forced path the CPU cannot run falls back to the best it can, and
 * satchel_simd_forced_unavailable() says so). */
enum satchel_simd_path satchel_simd_path(void);
const char *satchel_simd_path_name(enum satchel_simd_path path);
/* Whether this CPU can run a path. */
int satchel_simd_supported(enum satchel_simd_path path);
/* 1 when SATCHEL_SIMD named a path this CPU cannot run (or no path at all). */
int satchel_simd_forced_unavailable(void);
/* The choice itself, for a value of SATCHEL_SIMD (NULL or empty: none); *unavailable is set to
 * 1 when it names no path, or one this CPU cannot run. */
enum satchel_simd_path satchel_simd_choose(const char *forced, int *unavailable);

/* Marks n bytes at p, computed from a secret but public by design, as defined for valgrind's
 * memcheck (the constant-time checks); outside valgrind it does nothing. Only for values whose
 * publication is argued where the call is made. */
void satchel_declassify(const void *p, size_t n);
/* The reverse, for the constant-time checks alone: bytes made secret (undefined for memcheck)
 * after they were written, so a test's secret can be a valid key. */
void satchel_classify(const void *p, size_t n);

/* A modulus in radix 2^52, -p^-1 mod 2^52, R and R^2 mod p (R = 2^260), whether it is
 * Pallas-shaped (2^254 + c, c < 2^156: its reduction has shifts for multiplications); for point
 * arithmetic on y^2 = x^3 + b the constants b and 3b in Montgomery form; for square roots,
 * p − 1 = 2^s·t with (t − 1)/2 in 64-bit words and c^t in Montgomery form (c a non-square). */
typedef struct {
    uint64_t p[5];
    uint64_t pinv;
    int sparse;
    /* p = 2^256 − 0x1000003D1 (secp256k1) with plain products, not Montgomery's: R = 1 (one
     * and r2 are 1), reduced by folding 2^260 ≡ 0x1000003D10. The IFMA kernels have no such
     * product: give them the Montgomery field (k1 = 0). */
    int k1;
    uint64_t b[5], b3[5];
    uint64_t one[5];
    uint64_t r2[5];
    int s, c3bits;
    uint64_t c3[4];
    uint64_t c5[5];
    uint64_t d[5], d2[5];  /* a twisted Edwards curve's d and 2d, Montgomery form */
} satchel_mod52;

/* From p as four little-endian 64-bit words (p odd, p < 2^255). */
void satchel_mod52_init(satchel_mod52 *m, const uint64_t p[4]);
/* The curve y^2 = x^3 + b over that field (Pallas: b = 5), for the point functions. */
void satchel_mod52_set_b(satchel_mod52 *m, uint64_t b);
/* The square-root constants, from a non-square of the field (Pallas's p: 5). */
void satchel_mod52_set_sqrt(satchel_mod52 *m, uint64_t nonsquare);
/* The twisted Edwards curve −u^2 + v^2 = 1 + d·u^2·v^2 over that field (Jubjub), d canonical. */
void satchel_mod52_set_edwards(satchel_mod52 *m, const uint64_t d[4]);

/* [k]P (or [k]([8]P) when `cofactor`) on that Edwards curve for n points given as u then v in
 * canonical 64-bit words (8 words a point, on the curve), k as `windows` signed 4-bit digits in
 * [−8, 8], least significant first: out gets each result's encoding, v little-endian with u's
 * parity in bit 255 (Jubjub's repr_J). IFMA runs 8 points per ladder; one inversion per call
 * (IFMA: per lane). No branch or memory access depends on a digit. Returns 0, or −2. */
int satchel_edwards_mul_batch(enum satchel_simd_path path, const satchel_mod52 *m, const int8_t *digits, size_t windows,
                              int cofactor, const uint64_t *points, size_t n, uint8_t *out);

/* Decodes n encodings of that Edwards curve's points (v little-endian, u's parity in bit 255;
 * the square root set up): ok[i] = 1 and points[8i ..< 8i + 8] = u then v (canonical words)
 * where v < p, u^2 = (v^2 − 1)/(d·v^2 + 1) has a root, and not u = 0 with the sign bit set
 * (ZIP 216); else ok[i] = 0 and zero words. Encodings are public; their checks may branch. */
void satchel_edwards_decode_batch(enum satchel_simd_path path, const satchel_mod52 *m, const uint8_t *encodings,
                                  size_t n, uint64_t *points, uint8_t *ok);

/* Decodes n encodings of points of y^2 = x^3 + b (32 bytes each: x little-endian, y's parity
 * in bit 255; the curve and the square root set up above): where x < p and x^3 + b is a
 * square, ok[i] = 1 and points[8i ..< 8i + 8] = x then y in canonical little-endian 64-bit
 * words; elsewhere ok[i] = 0 and the words are zero. The all-zero encoding (the identity's)
 * is not decoded here: ok = 0. IFMA decodes 8 per vector. Encodings are public (no secret
 * flows through this), so their checks may branch. */
void satchel_weierstrass_decode_batch(enum satchel_simd_path path, const satchel_mod52 *m, const uint8_t *encodings,
                                      size_t n, uint64_t *points, uint8_t *ok);

/* 8 points in projective coordinates (X : Y : Z), each coordinate in Montgomery form (x·2^260
 * mod p), limb-major as above; the identity is (0 : R : 0). */
typedef struct {
    uint64_t x[5][8], y[5][8], z[5][8];
} satchel_point8;

/* r = a + b and r = 2a, lane by lane, by the complete formulas for a = 0 (Renes–Costello–
 * Batina, algorithms 7 and 9): no lane's case depends on its points. r may alias a or b. */
void satchel_point52_add8(enum satchel_simd_path path, const satchel_mod52 *m, satchel_point8 *r,
                          const satchel_point8 *a, const satchel_point8 *b);
void satchel_point52_double8(enum satchel_simd_path path, const satchel_mod52 *m, satchel_point8 *r,
                             const satchel_point8 *a);

/* GLV scalar multiplication on y^2 = x^3 + b (the curve set with satchel_mod52_set_b) with
 * the endomorphism φ(x, y) = (ζx, y) = [λ](x, y): for each of n affine points P_i, given as
 * x then y in canonical little-endian 64-bit words (8 words a point, each coordinate < p, the
 * point on the curve), the encoding of [k1]P_i + [k2]φ(P_i): x little-endian with y's parity
 * in bit 255 (Pallas's repr_P; p < 2^255), 32 zero bytes for the identity. k1 and k2 are the
 * halves of a scalar k = k1 + k2·λ, each given as `windows` signed 4-bit digits in [−8, 8],
 * least significant first; ζ is canonical. IFMA runs 8 points per ladder; every path shares
 * one inversion among all n (IFMA: one per lane). No branch or memory access depends on a
 * digit. Returns 0, or −2 when memory ran out. */
int satchel_glv_batch(enum satchel_simd_path path, const satchel_mod52 *m, const uint64_t zeta[4],
                      const int8_t *digits1, const int8_t *digits2, size_t windows,
                      const uint64_t *points, size_t n, uint8_t *out);

/* satchel_glv_batch with SEC1's compressed encoding out: 33 bytes a point, 0x02 or 0x03 by y's
 * parity then x big-endian (33 zero bytes for the identity); for a field up to 2^256. */
int satchel_glv_batch_sec1(enum satchel_simd_path path, const satchel_mod52 *m, const uint64_t zeta[4],
                           const int8_t *digits1, const int8_t *digits2, size_t windows,
                           const uint64_t *points, size_t n, uint8_t *out);
/* The same with a scalar per point: digits1 and digits2 hold `windows` (at most 64) digits for
 * each point, point after point; each lane picks by its own digits. Returns 0, or −2. */
int satchel_glv_lanes_batch_sec1(enum satchel_simd_path path, const satchel_mod52 *m, const uint64_t zeta[4],
                                 const int8_t *digits1, const int8_t *digits2, size_t windows,
                                 const uint64_t *points, size_t n, uint8_t *out);

/* Fixed-base multiplication on y^2 = x^3 + b (the curve set with satchel_mod52_set_b): the table
 * of a public base B for `windows` signed 4-bit digits, table[w][j − 1] = j·16^w·B (j = 1 … 8)
 * as affine x and y in the field's form (m's: Montgomery or plain), B given as x then y in
 * canonical little-endian 64-bit words. */
void satchel_fixed_table(const satchel_mod52 *m, const uint64_t base[8], size_t windows, uint64_t (*table)[8][2][5]);
/* t_i·B + Q_j for n secret scalars t_i, each as `windows` signed 4-bit digits in [−8, 8] (least
 * significant first; digits[windows·i + w]), and `count` public affine points Q_j (8 words each,
 * as B; addends NULL: t_i·B alone, count taken as 1). out[33·(n·j + i)] gets SEC1's compressed
 * encoding of t_i·B + Q_j, 33 zero bytes for the identity; one inversion per Q_j (IFMA: per
 * lane). 8 scalars a block on the vector paths, each lane its own digits; no branch or memory
 * access depends on a digit. Returns 0, or −2 (out of memory). */
int satchel_fixed_batch(enum satchel_simd_path path, const satchel_mod52 *m, const uint64_t (*table)[8][2][5], size_t windows,
                        const int8_t *digits, size_t n, const uint64_t *addends, size_t count, uint8_t *out);

/* secp256k1's field (y^2 = x^3 + 7) for the calls above: with plain products (`k1`, for the
 * portable and AVX2 paths) or Montgomery's (any path; the IFMA one needs it). */
void satchel_secp256k1_field(satchel_mod52 *m, int plain);
/* The GLV halves of a secp256k1 scalar k (32 bytes big-endian) as 33 signed 4-bit digits each,
 * for satchel_glv_batch with ζ = β: k ≡ k1 + k2·λ (mod n). Constant-time in k. Returns 0, −1
 * when k is 0 or not below n. */
int satchel_secp256k1_split(const uint8_t k[32], int8_t digits1[33], int8_t digits2[33]);
/* k·P_i on secp256k1 for one secret k (32 bytes big-endian, in [1, n)) and n affine points
 * (x then y, canonical little-endian 64-bit words, on the curve): each result's SEC1 compressed
 * encoding (ser_P, 33 bytes) — BIP352's shared secrets b_scan·(input_hash·A). 8 points per
 * ladder on the vector paths; one inversion for all. No branch or memory access depends on k.
 * Returns 0, −1 for a k out of range, −2 when memory ran out. */
int satchel_secp256k1_mul_batch(enum satchel_simd_path path, const uint8_t k[32], const uint64_t *points, size_t n,
                                uint8_t *out);
/* k_i·P_i for n secret scalars k_i (32 bytes big-endian each, in [1, n)) and n affine points, as
 * satchel_secp256k1_mul_batch but each point its own scalar (BIP352's (b_scan·input_hash)·A for
 * a block's transactions, one ladder instead of two): each lane picks by its own digits. Returns
 * 0, −1 (a scalar is no key), −3 (the split's bound; never for a key) or −2. */
int satchel_secp256k1_mul_lanes(enum satchel_simd_path path, const uint8_t *scalars, const uint64_t *points, size_t n, uint8_t *out);
/* The same in the field form given (plain: 1, Montgomery: 0; the IFMA kernels take Montgomery
 * only): the tests and the oracle run the Montgomery field on every path. */
int satchel_secp256k1_mul_lanes_field(enum satchel_simd_path path, int plain, const uint8_t *scalars, const uint64_t *points, size_t n,
                                      uint8_t *out);
/* t_i·G + Q_j on secp256k1 for n secret scalars t_i (32 bytes big-endian each, in [1, n)) and
 * `count` public affine points Q_j (x then y, little-endian 64-bit words; NULL: t_i·G alone),
 * by satchel_fixed_batch over a table of G made once per process: BIP352's P_k = B_spend + t_k·G
 * (and + label·G) for many transactions, one inversion per Q_j. Returns 0, −1 when a scalar is
 * 0 or not below the group order (which is public: a hash output there has probability
 * 2^-128), or −2. */
int satchel_secp256k1_gen_batch(enum satchel_simd_path path, const uint8_t *scalars, size_t n, const uint64_t *addends, size_t count,
                                uint8_t *out);
/* The same in the field form given (plain: 1; Montgomery: 0, what the IFMA kernels run, which
 * take no other): the tests and the oracle run the Montgomery field on every path. */
int satchel_secp256k1_gen_batch_field(enum satchel_simd_path path, int plain, const uint8_t *scalars, size_t n, const uint64_t *addends,
                                      size_t count, uint8_t *out);

/* r = a * b * 2^-260 mod p for 8 lanes, each limb < 2^52 and each element < p; r may alias a
 * or b. `path` is what satchel_simd_path() gave, or any supported path (tests). */
void satchel_fe52_mul8(enum satchel_simd_path path, const satchel_mod52 *m, uint64_t r[5][8],
                       const uint64_t a[5][8], const uint64_t b[5][8]);

/* X25519 (RFC 7748, the scalar clamped as it says) of one scalar with n u-coordinates of 32
 * bytes each, back to back: out's i-th 32 bytes are u(k·P_i), all zero for a point of small
 * order (where libsodium's crypto_scalarmult_curve25519 answers −1). The vector paths run 8
 * (IFMA, radix 2^51) or 4 (AVX2, radix 2^25.5) points per ladder and share one inversion
 * among all n; the portable path is libsodium's ladder, one point at a time. Returns 0, or
 * −2 when memory ran out. */
int satchel_x25519_batch(enum satchel_simd_path path, uint8_t *out, const uint8_t scalar[32],
                         const uint8_t *points, size_t n);
/* 1 when `path` has a ladder of its own on this CPU (0: libsodium's runs). */
int satchel_x25519_batch_native(enum satchel_simd_path path);

/* For Edwards points given by their y (32 bytes each, the sign bit ignored): the y of k·P
 * (k clamped as above) through the Montgomery u = (1 + y)/(1 − y) and the same ladder, both
 * conversions sharing one inversion each among all n. k·P's x sign is lost with u, so a caller
 * that needs the point tries both. ok[i] = 0 where y is not canonical or k·P is the identity
 * or of order 2 (the ladder's u is 0 or −1); out[i] is then meaningless. Monero's view-tag
 * filter: D = 8·a·R. Returns 0, or −2 when memory ran out. */
int satchel_edwards_y_batch(enum satchel_simd_path path, uint8_t *out, uint8_t *ok, const uint8_t scalar[32],
                            const uint8_t *ys, size_t n);

/* Keccak-256 (the original padding, as Monero and Ethereum use it) of n messages: message i
 * is data[offsets[i] ..< offsets[i + 1]] (offsets has n + 1 entries); its hash goes to
 * out[32i ..< 32i + 32]. AVX-512 hashes 8 messages at a time, AVX2 4; lengths may differ. */
void satchel_keccak256_batch(enum satchel_simd_path path, uint8_t *out, const uint8_t *data, const size_t *offsets, size_t n);

#endif
