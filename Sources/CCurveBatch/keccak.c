#include "satchel_curve_batch.h"
#include "wipe.h"

#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* Keccak-256 (the original padding, 0x01 … 0x80, as Monero and Ethereum use it) of many
 * messages: a scan hashes every transaction for its id and every output for its view tag.
 * The vector paths run Keccak-f[1600] on 8 (AVX-512) or 4 (AVX2) independent states at once;
 * each lane takes the next message when its own is done, so lengths may differ. */

#define RATE 136
#define WORDS (RATE / 8)

static const uint64_t RC[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808AULL, 0x8000000080008000ULL,
    0x000000000000808BULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008AULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000AULL,
    0x000000008000808BULL, 0x800000000000008BULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800AULL, 0x800000008000000AULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL};

/* One round structure for every backend: V is the lane type, with XOR, ANDNOT (~a & b), ROTL
 * (by a literal: vector rotates take immediates) and a broadcast constant. ρ and π are written
 * out: b[i] = rotl(a[src] ^ d[src mod 5], offset). The loops have constant bounds and unroll. */
#define KECCAK_ROUNDS(V, XOR, ANDN, ROTL, CONST)                                              \
    for (int round = 0; round < 24; round++) {                                               \
        V c[5], d[5], b[25];                                                                 \
        for (int x = 0; x < 5; x++) c[x] = XOR(XOR(XOR(a[x], a[x + 5]), XOR(a[x + 10], a[x + 15])), a[x + 20]); \
        for (int x = 0; x < 5; x++) d[x] = XOR(c[(x + 4) % 5], ROTL(c[(x + 1) % 5], 1));     \
        b[0] = XOR(a[0], d[0]);                                                              \
        b[1] = ROTL(XOR(a[6], d[1]), 44);                                                    \
        b[2] = ROTL(XOR(a[12], d[2]), 43);                                                   \
        b[3] = ROTL(XOR(a[18], d[3]), 21);                                                   \
        b[4] = ROTL(XOR(a[24], d[4]), 14);                                                   \
        b[5] = ROTL(XOR(a[3], d[3]), 28);                                                    \
        b[6] = ROTL(XOR(a[9], d[4]), 20);                                                    \
        b[7] = ROTL(XOR(a[10], d[0]), 3);                                                    \
        b[8] = ROTL(XOR(a[16], d[1]), 45);                                                   \
        b[9] = ROTL(XOR(a[22], d[2]), 61);                                                   \
        b[10] = ROTL(XOR(a[1], d[1]), 1);                                                    \
        b[11] = ROTL(XOR(a[7], d[2]), 6);                                                    \
        b[12] = ROTL(XOR(a[13], d[3]), 25);                                                  \
        b[13] = ROTL(XOR(a[19], d[4]), 8);                                                   \
        b[14] = ROTL(XOR(a[20], d[0]), 18);                                                  \
        b[15] = ROTL(XOR(a[4], d[4]), 27);                                                   \
        b[16] = ROTL(XOR(a[5], d[0]), 36);                                                   \
        b[17] = ROTL(XOR(a[11], d[1]), 10);                                                  \
        b[18] = ROTL(XOR(a[17], d[2]), 15);                                                  \
        b[19] = ROTL(XOR(a[23], d[3]), 56);                                                  \
        b[20] = ROTL(XOR(a[2], d[2]), 62);                                                   \
        b[21] = ROTL(XOR(a[8], d[3]), 55);                                                   \
        b[22] = ROTL(XOR(a[14], d[4]), 39);                                                  \
        b[23] = ROTL(XOR(a[15], d[0]), 41);                                                  \
        b[24] = ROTL(XOR(a[21], d[1]), 2);                                                   \
        for (int y = 0; y < 25; y += 5)                                                      \
            for (int x = 0; x < 5; x++) a[y + x] = XOR(b[y + x], ANDN(b[y + (x + 1) % 5], b[y + (x + 2) % 5])); \
        a[0] = XOR(a[0], CONST(RC[round]));                                                  \
    }

#define S_XOR(x, y) ((x) ^ (y))
#define S_ANDN(x, y) (~(x) & (y))
#define S_ROTL(x, n) (((x) << (n)) | ((x) >> (64 - (n))))
#define S_CONST(k) (k)

static void permute1(uint64_t a[25]) {
    KECCAK_ROUNDS(uint64_t, S_XOR, S_ANDN, S_ROTL, S_CONST)
}

/* ---- Lanes: state words limb-major, st[word][lane], as the vector kernels load them. ---- */

#if defined(__x86_64__)
#define AVX512 __attribute__((target("avx512f")))
#define AVX2 __attribute__((target("avx2")))

#define Z_XOR(x, y) _mm512_xor_si512(x, y)
#define Z_ANDN(x, y) _mm512_andnot_si512(x, y)
#define Z_ROTL(x, n) _mm512_rol_epi64(x, n)
#define Z_CONST(k) _mm512_set1_epi64((long long)(k))

AVX512 static void permute8(uint64_t st[25][8]) {
    __m512i a[25];
    for (int i = 0; i < 25; i++) a[i] = _mm512_loadu_si512((const void *)st[i]);
    KECCAK_ROUNDS(__m512i, Z_XOR, Z_ANDN, Z_ROTL, Z_CONST)
    for (int i = 0; i < 25; i++) _mm512_storeu_si512((void *)st[i], a[i]);
}

#define Y_XOR(x, y) _mm256_xor_si256(x, y)
#define Y_ANDN(x, y) _mm256_andnot_si256(x, y)
#define Y_ROTL(x, n) _mm256_or_si256(_mm256_slli_epi64(x, n), _mm256_srli_epi64(x, 64 - (n)))
#define Y_CONST(k) _mm256_set1_epi64x((long long)(k))

AVX2 static void permute4(uint64_t st[25][8]) {
    __m256i a[25];
    for (int i = 0; i < 25; i++) a[i] = _mm256_loadu_si256((const __m256i *)st[i]);
    KECCAK_ROUNDS(__m256i, Y_XOR, Y_ANDN, Y_ROTL, Y_CONST)
    for (int i = 0; i < 25; i++) _mm256_storeu_si256((__m256i *)st[i], a[i]);
}
#endif

static uint64_t load64(const uint8_t *p) {
    uint64_t v = 0;
    for (int b = 7; b >= 0; b--) v = v << 8 | p[b];
    return v;
}

static void store_hash(uint8_t *out, const uint64_t *words, size_t stride) {
    for (int w = 0; w < 4; w++)
        for (int b = 0; b < 8; b++) out[8 * w + b] = (uint8_t)(words[w * stride] >> (8 * b));
}

/* The last block of a message with `left` < RATE bytes: padded 0x01 … 0x80. */
static void final_block(uint8_t block[RATE], const uint8_t *p, size_t left) {
    memset(block, 0, RATE);
    memcpy(block, p, left);
    block[left] ^= 0x01;
    block[RATE - 1] ^= 0x80;
}

static void hash1(uint8_t out[32], const uint8_t *p, size_t len) {
    uint64_t a[25] = {0};
    for (; len >= RATE; p += RATE, len -= RATE) {
        for (int w = 0; w < WORDS; w++) a[w] ^= load64(p + 8 * w);
        permute1(a);
    }
    uint8_t block[RATE];
    final_block(block, p, len);
    for (int w = 0; w < WORDS; w++) a[w] ^= load64(block + 8 * w);
    permute1(a);
    store_hash(out, a, 1);
    wipe(a, sizeof a);
    wipe(block, sizeof block);
}

#if defined(__x86_64__)
/* Every lane absorbs one block of its message per permutation; a lane whose message ended
 * writes its hash, clears its state and takes the next message. */
static void hash_lanes(int lanes, void (*permute)(uint64_t st[25][8]), uint8_t *out, const uint8_t *data,
                       const size_t *offsets, size_t n) {
    uint64_t st[25][8];
    memset(st, 0, sizeof st);
    size_t msg[8], pos[8];
    int active[8];
    size_t next = 0;
    for (int l = 0; l < lanes; l++) {
        active[l] = next < n;
        if (active[l]) { msg[l] = next++; pos[l] = offsets[msg[l]]; }
    }
    for (;;) {
        int any = 0, last[8] = {0};
        for (int l = 0; l < lanes; l++) {
            if (!active[l]) continue;
            any = 1;
            size_t left = offsets[msg[l] + 1] - pos[l];
            const uint8_t *p = data + pos[l];
            uint8_t block[RATE];
            if (left >= RATE) {
                pos[l] += RATE;
            } else {
                final_block(block, p, left);
                p = block;
                last[l] = 1;
            }
            for (int w = 0; w < WORDS; w++) st[w][l] ^= load64(p + 8 * w);
            if (last[l]) wipe(block, sizeof block);
        }
        if (!any) break;
        permute(st);
        for (int l = 0; l < lanes; l++) {
            if (!last[l]) continue;
            store_hash(out + 32 * msg[l], &st[0][l], 8);
            for (int w = 0; w < 25; w++) st[w][l] = 0;
            active[l] = next < n;
            if (active[l]) { msg[l] = next++; pos[l] = offsets[msg[l]]; }
        }
    }
    wipe(st, sizeof st);
}
#endif

void satchel_keccak256_batch(enum satchel_simd_path path, uint8_t *out, const uint8_t *data, const size_t *offsets, size_t n) {
#if defined(__x86_64__)
    /* Every AVX-512 IFMA CPU has AVX-512F, which is all this kernel needs. */
    if (path == SATCHEL_SIMD_IFMA && satchel_simd_supported(SATCHEL_SIMD_IFMA)) { hash_lanes(8, permute8, out, data, offsets, n); return; }
    if (path == SATCHEL_SIMD_AVX2 && satchel_simd_supported(SATCHEL_SIMD_AVX2)) { hash_lanes(4, permute4, out, data, offsets, n); return; }
#else
    (void)path;
#endif
    for (size_t i = 0; i < n; i++) hash1(out + 32 * i, data + offsets[i], offsets[i + 1] - offsets[i]);
}
