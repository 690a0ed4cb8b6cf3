/* SHA256d for Bitcoin's parser, many messages at once: eight lanes of AVX-512VL, or two
 * interleaved SHA-NI streams, or OpenSSL's SHA-256 one message at a time. The vector code is
 * compiled with its own target attributes and only called after cpuid (and, for AVX-512, the
 * OS's saved register state) says the CPU can run it, so the package needs no -march flag. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "satchel_sha256.h"

#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

/* The blocks of a message as SHA-256 pads it: its bytes, 0x80, zeros, its length in bits. */
typedef struct {
    const satchel_sha_message *m;
    int piece, marked, done;
    size_t offset;
    uint64_t total;
} feeder;

static void feeder_init(feeder *f, const satchel_sha_message *m) {
    memset(f, 0, sizeof *f);
    f->m = m;
    for (int i = 0; i < m->count; i++) f->total += m->size[i];
}

/* The next 64-byte block: in place when a piece holds all of it, else copied into `block`;
 * NULL when the message is spent. */
static const uint8_t *next_block(feeder *f, uint8_t block[64]) {
    if (f->done) return NULL;
    if (f->piece < f->m->count && f->m->size[f->piece] - f->offset >= 64) {
        const uint8_t *direct = f->m->data[f->piece] + f->offset;
        f->offset += 64;
        if (f->offset == f->m->size[f->piece]) {
            f->piece++;
            f->offset = 0;
        }
        return direct;
    }
    size_t pos = 0;
    while (pos < 64 && f->piece < f->m->count) {
        size_t left = f->m->size[f->piece] - f->offset, take = left < 64 - pos ? left : 64 - pos;
        if (take) memcpy(block + pos, f->m->data[f->piece] + f->offset, take);
        pos += take;
        f->offset += take;
        if (f->offset == f->m->size[f->piece]) {
            f->piece++;
            f->offset = 0;
        }
    }
    if (pos == 64) return block;
    if (!f->marked) {
        block[pos++] = 0x80;
        f->marked = 1;
    }
    if (pos > 56) {
        memset(block + pos, 0, 64 - pos);
        return block;
    }
    memset(block + pos, 0, 56 - pos);
    uint64_t bits = f->total * 8;
    for (int i = 0; i < 8; i++) block[63 - i] = (uint8_t)(bits >> (8 * i));
    f->done = 1;
    return block;
}

static void digest_out(const uint32_t state[8], uint8_t out[32]) {
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(state[i] >> 24);
        out[4 * i + 1] = (uint8_t)(state[i] >> 16);
        out[4 * i + 2] = (uint8_t)(state[i] >> 8);
        out[4 * i + 3] = (uint8_t)state[i];
    }
}

/* The block SHA256d hashes second: a 32-byte digest, padded. */
static void second_block(const uint32_t state[8], uint8_t block[64]) {
    digest_out(state, block);
    block[32] = 0x80;
    memset(block + 33, 0, 29);
    block[62] = 0x01;  /* 256 bits */
    block[63] = 0x00;
}

/* ---- portable: OpenSSL (which has its own SSSE3/AVX2 code) ---- */

static void portable_one(const satchel_sha_message *m, uint8_t out[32]) {
    SHA256_CTX c;
    uint8_t first[32];
    SHA256_Init(&c);
    for (int i = 0; i < m->count; i++)
        if (m->size[i]) SHA256_Update(&c, m->data[i], m->size[i]);
    SHA256_Final(first, &c);
    SHA256_Init(&c);
    SHA256_Update(&c, first, 32);
    SHA256_Final(out, &c);
}

/* ---- SHA-NI ---- */

#if defined(__x86_64__)
#define SHANI __attribute__((target("sha,sse4.1,ssse3")))

static const uint32_t K[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* The state as SHA-NI keeps it: ABEF and CDGH. */
SHANI static inline void state_in(const uint32_t s[8], __m128i *abef, __m128i *cdgh) {
    __m128i dcba = _mm_loadu_si128((const __m128i *)&s[0]), hgfe = _mm_loadu_si128((const __m128i *)&s[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1), efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    *abef = _mm_alignr_epi8(cdab, efgh, 8);
    *cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
}

SHANI static inline void state_out(uint32_t s[8], __m128i abef, __m128i cdgh) {
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B), dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&s[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&s[4], _mm_alignr_epi8(dchg, feba, 8));
}

/* Words 4i..4i+3 of the schedule from the four groups before them. */
#define SCHEDULE(w, i) \
    w[(i) & 3] = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(w[(i) & 3], w[((i) + 1) & 3]), \
                                                    _mm_alignr_epi8(w[((i) + 3) & 3], w[((i) + 2) & 3], 4)), w[((i) + 3) & 3])

/* Four rounds with schedule group w and constants K[4i..]. */
#define ROUNDS(abef, cdgh, w, i)                                                        \
    do {                                                                                \
        __m128i m = _mm_add_epi32(w, _mm_load_si128((const __m128i *)&K[4 * (i)]));     \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, m);                                    \
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(m, 0x0E));           \
    } while (0)

SHANI static void compress_one(uint32_t s[8], const uint8_t *block) {
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i abef, cdgh, w[4];
    state_in(s, &abef, &cdgh);
    __m128i abef0 = abef, cdgh0 = cdgh;
    for (int i = 0; i < 4; i++) {
        w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 16 * i)), swap);
        ROUNDS(abef, cdgh, w[i], i);
    }
#pragma GCC unroll 12
    for (int i = 4; i < 16; i++) {
        SCHEDULE(w, i);
        ROUNDS(abef, cdgh, w[i & 3], i);
    }
    state_out(s, _mm_add_epi32(abef, abef0), _mm_add_epi32(cdgh, cdgh0));
}

/* Two independent blocks, their rounds interleaved. */
SHANI static void compress_two(uint32_t sa[8], const uint8_t *a, uint32_t sb[8], const uint8_t *b) {
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i abefA, cdghA, wa[4], abefB, cdghB, wb[4];
    state_in(sa, &abefA, &cdghA);
    state_in(sb, &abefB, &cdghB);
    __m128i abefA0 = abefA, cdghA0 = cdghA, abefB0 = abefB, cdghB0 = cdghB;
    for (int i = 0; i < 4; i++) {
        wa[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(a + 16 * i)), swap);
        wb[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(b + 16 * i)), swap);
        ROUNDS(abefA, cdghA, wa[i], i);
        ROUNDS(abefB, cdghB, wb[i], i);
    }
#pragma GCC unroll 12
    for (int i = 4; i < 16; i++) {
        SCHEDULE(wa, i);
        SCHEDULE(wb, i);
        ROUNDS(abefA, cdghA, wa[i & 3], i);
        ROUNDS(abefB, cdghB, wb[i & 3], i);
    }
    state_out(sa, _mm_add_epi32(abefA, abefA0), _mm_add_epi32(cdghA, cdghA0));
    state_out(sb, _mm_add_epi32(abefB, abefB0), _mm_add_epi32(cdghB, cdghB0));
}

static void shani_two(const satchel_sha_message *a, const satchel_sha_message *b, uint8_t out_a[32], uint8_t out_b[32]) {
    feeder fa, fb;
    uint32_t sa[8], sb[8];
    uint8_t ba[64], bb[64];
    feeder_init(&fa, a);
    feeder_init(&fb, b);
    memcpy(sa, IV, sizeof IV);
    memcpy(sb, IV, sizeof IV);
    for (;;) {
        const uint8_t *pa = next_block(&fa, ba), *pb = next_block(&fb, bb);
        if (pa && pb) compress_two(sa, pa, sb, pb);
        else if (pa) compress_one(sa, pa);
        else if (pb) compress_one(sb, pb);
        else break;
    }
    second_block(sa, ba);
    second_block(sb, bb);
    memcpy(sa, IV, sizeof IV);
    memcpy(sb, IV, sizeof IV);
    compress_two(sa, ba, sb, bb);
    digest_out(sa, out_a);
    digest_out(sb, out_b);
}

static void shani_one(const satchel_sha_message *m, uint8_t out[32]) {
    feeder f;
    uint32_t s[8];
    uint8_t block[64];
    feeder_init(&f, m);
    memcpy(s, IV, sizeof IV);
    for (const uint8_t *p; (p = next_block(&f, block));) compress_one(s, p);
    second_block(s, block);
    memcpy(s, IV, sizeof IV);
    compress_one(s, block);
    digest_out(s, out);
}

/* Which message a lane starts next: the long ones first, so that a long message late in a
 * batch (a block's 100 kB transaction) does not run alone while the other lanes idle. Two
 * cursors over the list, one for long and one for short messages: no sort, no allocation. */
typedef struct {
    const satchel_sha_message *m;
    size_t n, longs, shorts;
    int empty;
} picker;

#define LONG_MESSAGE 1024

static size_t message_size(const satchel_sha_message *m) {
    size_t total = 0;
    for (int i = 0; i < m->count; i++) total += m->size[i];
    return total;
}

static int pick(picker *p, size_t *index) {
    while (p->longs < p->n && message_size(&p->m[p->longs]) < LONG_MESSAGE) p->longs++;
    if (p->longs < p->n) {
        *index = p->longs++;
        return 1;
    }
    while (p->shorts < p->n && message_size(&p->m[p->shorts]) >= LONG_MESSAGE) p->shorts++;
    if (p->shorts < p->n) {
        *index = p->shorts++;
        return 1;
    }
    p->empty = 1;
    return 0;
}

/* One of the two streams of satchel_sha256d_many: a message's blocks, then its second hash. */
typedef struct {
    feeder f;
    uint32_t s[8];
    uint8_t buf[64];
    int phase; /* 0 first hash, 1 second hash, 2 idle */
    size_t index;
} lane;

/* A lane's state lies in eight words `stride` apart: its own s[8] (stride 1) for SHA-NI, a
 * column of the vector state (stride LANES) for AVX-512. */
static void state_get(const uint32_t *s, int stride, uint32_t out[8]) {
    for (int i = 0; i < 8; i++) out[i] = s[i * stride];
}

static void state_reset(uint32_t *s, int stride) {
    for (int i = 0; i < 8; i++) s[i * stride] = IV[i];
}

/* The lane's next block to compress into `s`, starting the next message when its own is
 * done; NULL when no message is left. */
static const uint8_t *lane_next(lane *l, uint32_t *s, int stride, picker *p, uint8_t *out) {
    for (;;) {
        if (l->phase == 0) {
            const uint8_t *b = next_block(&l->f, l->buf);
            if (b) return b;
            uint32_t h[8];
            state_get(s, stride, h);
            second_block(h, l->buf);
            state_reset(s, stride);
            l->phase = 1;
            return l->buf;
        }
        if (l->phase == 1) {
            uint32_t h[8];
            state_get(s, stride, h);
            digest_out(h, out + 32 * l->index);
            l->phase = 2;
        }
        if (!pick(p, &l->index)) return NULL;
        feeder_init(&l->f, &p->m[l->index]);
        state_reset(s, stride);
        l->phase = 0;
    }
}

static void shani_many(const satchel_sha_message *m, size_t n, uint8_t *out) {
    lane a, b;
    a.phase = b.phase = 2;
    picker p = {m, n, 0, 0, 0};
    for (;;) {
        const uint8_t *pa = lane_next(&a, a.s, 1, &p, out), *pb = lane_next(&b, b.s, 1, &p, out);
        if (pa && pb) compress_two(a.s, pa, b.s, pb);
        else if (pa) compress_one(a.s, pa);
        else if (pb) compress_one(b.s, pb);
        else break;
    }
}

/* ---- AVX-512VL: eight messages at once, one per 32-bit lane of a ymm register ----
 * SHA-NI works on one block at a time (two interleaved), its unit shared by both streams;
 * vector code computes eight blocks with ordinary ALU instructions. With AVX-512VL's rotate
 * (vprord) and three-input logic (vpternlogd) a round is about 17 instructions for 8 lanes,
 * which measured faster than SHA-NI here. ymm, not zmm: on this machine 16 lanes ran no
 * faster per block than 8, and 8 lanes leave fewer idle at the end of a batch. */
#define AVX512VL __attribute__((target("avx512f,avx512vl,avx2")))
#define LANES 8

#define ror(x, n) _mm256_ror_epi32(x, n)
#define XOR3(a, b, c) _mm256_ternarylogic_epi32(a, b, c, 0x96)
#define CH(e, f, g) _mm256_ternarylogic_epi32(e, f, g, 0xCA)
#define MAJ(a, b, c) _mm256_ternarylogic_epi32(a, b, c, 0xE8)
#define BIG_S0(a) XOR3(ror(a, 2), ror(a, 13), ror(a, 22))
#define BIG_S1(e) XOR3(ror(e, 6), ror(e, 11), ror(e, 25))
#define SMALL_S0(x) XOR3(ror(x, 7), ror(x, 18), _mm256_srli_epi32(x, 3))
#define SMALL_S1(x) XOR3(ror(x, 17), ror(x, 19), _mm256_srli_epi32(x, 10))

/* The state of eight hashes, word-major: s[i][lane]. */
typedef struct {
    uint32_t s[8][LANES] __attribute__((aligned(32)));
} vstate;

/* 64 rounds added into the state: over schedule words w[0..15] (overwritten), or where `wk`
 * is given, over its words, each already the schedule word plus its constant (a block every
 * lane shares and that is known before: SHA256d's padding of a 64-byte message). */
AVX512VL static inline __attribute__((always_inline)) void rounds8_with(vstate *v, __m256i w[16], const uint32_t *wk) {
    __m256i a = _mm256_load_si256((const __m256i *)v->s[0]), b = _mm256_load_si256((const __m256i *)v->s[1]);
    __m256i c = _mm256_load_si256((const __m256i *)v->s[2]), d = _mm256_load_si256((const __m256i *)v->s[3]);
    __m256i e = _mm256_load_si256((const __m256i *)v->s[4]), f = _mm256_load_si256((const __m256i *)v->s[5]);
    __m256i g = _mm256_load_si256((const __m256i *)v->s[6]), h = _mm256_load_si256((const __m256i *)v->s[7]);
#pragma clang loop unroll(full)
    for (int i = 0; i < 64; i++) {
        __m256i wki;
        if (wk) wki = _mm256_set1_epi32((int)wk[i]);
        else {
            __m256i wi;
            if (i < 16) wi = w[i];
            else {
                wi = _mm256_add_epi32(_mm256_add_epi32(SMALL_S1(w[(i - 2) & 15]), w[(i - 7) & 15]),
                                      _mm256_add_epi32(SMALL_S0(w[(i - 15) & 15]), w[i & 15]));
                w[i & 15] = wi;
            }
            wki = _mm256_add_epi32(wi, _mm256_set1_epi32((int)K[i]));
        }
        __m256i t1 = _mm256_add_epi32(_mm256_add_epi32(h, BIG_S1(e)), _mm256_add_epi32(CH(e, f, g), wki));
        __m256i t2 = _mm256_add_epi32(BIG_S0(a), MAJ(a, b, c));
        h = g;
        g = f;
        f = e;
        e = _mm256_add_epi32(d, t1);
        d = c;
        c = b;
        b = a;
        a = _mm256_add_epi32(t1, t2);
    }
    __m256i x[8] = {a, b, c, d, e, f, g, h};
    for (int i = 0; i < 8; i++)
        _mm256_store_si256((__m256i *)v->s[i], _mm256_add_epi32(_mm256_load_si256((const __m256i *)v->s[i]), x[i]));
}

AVX512VL static void rounds8(vstate *v, __m256i w[16]) { rounds8_with(v, w, NULL); }
AVX512VL static void rounds8_known(vstate *v, const uint32_t wk[64]) { rounds8_with(v, NULL, wk); }

/* A block's schedule plus constants, for rounds8_known. */
static void schedule_known(const uint8_t block[64], uint32_t wk[64]) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++) w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 | (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t x = w[i - 15], y = w[i - 2];
        uint32_t s0 = (x >> 7 | x << 25) ^ (x >> 18 | x << 14) ^ (x >> 3), s1 = (y >> 17 | y << 15) ^ (y >> 19 | y << 13) ^ (y >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    for (int i = 0; i < 64; i++) wk[i] = w[i] + K[i];
}

/* Eight rows of eight words, transposed: out[i] holds word i of every row. */
AVX512VL static inline void transpose8(__m256i r[8]) {
    __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    __m256i t4 = _mm256_unpacklo_epi32(r[4], r[5]), t5 = _mm256_unpackhi_epi32(r[4], r[5]);
    __m256i t6 = _mm256_unpacklo_epi32(r[6], r[7]), t7 = _mm256_unpackhi_epi32(r[6], r[7]);
    __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
    __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
    __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
    __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
    r[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
    r[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
    r[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
    r[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
    r[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
    r[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
    r[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
    r[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

/* One block per lane, added into the state. */
AVX512VL static void compress8(vstate *v, const uint8_t *const block[LANES]) {
    const __m256i swap = _mm256_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL, 0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m256i w[16];
    for (int half = 0; half < 2; half++) {
        __m256i *r = w + 8 * half;
        for (int l = 0; l < LANES; l++) r[l] = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(block[l] + 32 * half)), swap);
        transpose8(r);
    }
    rounds8(v, w);
}

/* One block into a single state, for the last messages of a batch when too few are left to
 * fill the lanes: OpenSSL's block function (SHA-NI or SSSE3/AVX2 as the CPU has). */
static void compress_scalar(uint32_t s[8], const uint8_t *block) {
    SHA256_CTX c;
    SHA256_Init(&c);
    memcpy(c.h, s, 32);
    SHA256_Transform(&c, block);
    memcpy(s, c.h, 32);
}

/* Below this many busy lanes, with no message left to start, the rest is finished one
 * message at a time: a long last message would otherwise run with seven lanes idle. */
#define TAIL 3

AVX512VL static void avx512_many(const satchel_sha_message *m, size_t n, uint8_t *out) {
    static const uint8_t idle[64];
    vstate v;
    lane ln[LANES];
    picker p = {m, n, 0, 0, 0};
    for (int l = 0; l < LANES; l++) {
        ln[l].phase = 2;
        state_reset(&v.s[0][l], LANES);
    }
    const uint8_t *block[LANES];
    for (;;) {
        int busy = 0;
        for (int l = 0; l < LANES; l++) {
            /* Most blocks lie whole in a piece of the message: taken in place, here. */
            feeder *f = &ln[l].f;
            if (ln[l].phase == 0 && f->piece < f->m->count && f->m->size[f->piece] - f->offset >= 64) {
                block[l] = f->m->data[f->piece] + f->offset;
                f->offset += 64;
                if (f->offset == f->m->size[f->piece]) {
                    f->piece++;
                    f->offset = 0;
                }
                busy++;
                continue;
            }
            block[l] = lane_next(&ln[l], &v.s[0][l], LANES, &p, out);
            if (block[l]) busy++;
            else block[l] = idle;
        }
        if (busy == 0) return;
        if (busy < TAIL && p.empty) break;
        compress8(&v, block);
    }
    /* The tail: each busy lane's pending block, then the rest of its message. */
    for (int l = 0; l < LANES; l++) {
        if (block[l] == idle) continue;
        uint32_t s[8];
        state_get(&v.s[0][l], LANES, s);
        compress_scalar(s, block[l]);
        if (ln[l].phase == 0) {
            for (const uint8_t *p; (p = next_block(&ln[l].f, ln[l].buf));) compress_scalar(s, p);
            second_block(s, ln[l].buf);
            memcpy(s, IV, sizeof IV);
            compress_scalar(s, ln[l].buf);
        }
        digest_out(s, out + 32 * ln[l].index);
    }
}

/* 64-byte messages eight at a time: the data, the padding every such message shares, then
 * the second hash, whose first eight words are the state as it stands (no transpose). */
AVX512VL static void avx512_d64(uint8_t *out, const uint8_t *in, size_t n) {
    static const uint8_t pad[64] = {0x80, [62] = 0x02}; /* 512 bits */
    const __m256i swap = _mm256_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL, 0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    uint32_t padwk[64];
    schedule_known(pad, padwk);
    size_t i = 0;
    for (; i + LANES <= n; i += LANES) {
        vstate v;
        const uint8_t *block[LANES];
        for (int l = 0; l < LANES; l++) {
            state_reset(&v.s[0][l], LANES);
            block[l] = in + 64 * (i + l);
        }
        compress8(&v, block);
        rounds8_known(&v, padwk);
        __m256i w[16];
        for (int k = 0; k < 8; k++) w[k] = _mm256_load_si256((const __m256i *)v.s[k]);
        w[8] = _mm256_set1_epi32((int)0x80000000u);
        for (int k = 9; k < 15; k++) w[k] = _mm256_setzero_si256();
        w[15] = _mm256_set1_epi32(256);
        for (int l = 0; l < LANES; l++) state_reset(&v.s[0][l], LANES);
        rounds8(&v, w);
        /* Rows again: digest l is word k of lane l, big-endian. */
        __m256i r[8];
        for (int k = 0; k < 8; k++) r[k] = _mm256_load_si256((const __m256i *)v.s[k]);
        transpose8(r);
        for (int l = 0; l < LANES; l++) _mm256_storeu_si256((__m256i *)(out + 32 * (i + l)), _mm256_shuffle_epi8(r[l], swap));
    }
    for (; i < n; i++) {
        /* The pair is copied out before its digest is written (out may be in). */
        uint8_t a[64];
        memcpy(a, in + 64 * i, 64);
        satchel_sha_message ma = {{a}, {64}, 1};
        satchel_sha256d_one(&ma, out + 32 * i);
    }
}

static int cpu_has_shani(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 19)) || !(ecx & (1u << 9))) return 0;  /* SSE4.1, SSSE3 */
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx >> 29) & 1;
}

/* AVX-512F and VL, and an OS that saves their registers (XCR0: SSE, AVX, opmask, upper ZMM). */
static int cpu_has_avx512vl(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27))) return 0;  /* OSXSAVE */
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 0xE6) != 0xE6) return 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx >> 16 & 1) && (ebx >> 31 & 1);
}
#else
static int cpu_has_shani(void) { return 0; }
static int cpu_has_avx512vl(void) { return 0; }
#endif

/* ---- dispatch ---- */

static int cpu_paths = -1, forced = -1, chosen = -1;

int satchel_sha256_has(int path) {
    int p = __atomic_load_n(&cpu_paths, __ATOMIC_ACQUIRE);
    if (p < 0) {
        p = 1 << SATCHEL_SHA_PORTABLE | cpu_has_shani() << SATCHEL_SHA_SHANI | cpu_has_avx512vl() << SATCHEL_SHA_AVX512;
        __atomic_store_n(&cpu_paths, p, __ATOMIC_RELEASE);
    }
    return path >= 0 && path <= SATCHEL_SHA_AVX512 && (p >> path & 1);
}

int satchel_sha256_path(void) {
    int f = __atomic_load_n(&forced, __ATOMIC_RELAXED);
    if (f >= 0) return f;
    int c = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
    if (c < 0) {
        const char *want = getenv("SATCHEL_SHA");
        int best = satchel_sha256_has(SATCHEL_SHA_AVX512) ? SATCHEL_SHA_AVX512 : satchel_sha256_has(SATCHEL_SHA_SHANI) ? SATCHEL_SHA_SHANI : SATCHEL_SHA_PORTABLE;
        if (want && !strcmp(want, "portable")) c = SATCHEL_SHA_PORTABLE;
        else if (want && !strcmp(want, "shani") && satchel_sha256_has(SATCHEL_SHA_SHANI)) c = SATCHEL_SHA_SHANI;
        else if (want && !strcmp(want, "avx512") && satchel_sha256_has(SATCHEL_SHA_AVX512)) c = SATCHEL_SHA_AVX512;
        else c = best;
        __atomic_store_n(&chosen, c, __ATOMIC_RELEASE);
    }
    return c;
}

int satchel_sha256_force(int path) {
    if (path >= 0 && !satchel_sha256_has(path)) return 0;
    __atomic_store_n(&forced, path, __ATOMIC_RELAXED);
    return 1;
}

void satchel_sha256d_two(const satchel_sha_message *a, const satchel_sha_message *b, uint8_t out_a[32], uint8_t out_b[32]) {
#if defined(__x86_64__)
    if (satchel_sha256_path() != SATCHEL_SHA_PORTABLE && satchel_sha256_has(SATCHEL_SHA_SHANI)) return shani_two(a, b, out_a, out_b);
#endif
    portable_one(a, out_a);
    portable_one(b, out_b);
}

void satchel_sha256d_one(const satchel_sha_message *m, uint8_t out[32]) {
#if defined(__x86_64__)
    if (satchel_sha256_path() != SATCHEL_SHA_PORTABLE && satchel_sha256_has(SATCHEL_SHA_SHANI)) return shani_one(m, out);
#endif
    portable_one(m, out);
}

#if defined(__x86_64__)
/* 64-byte messages two at a time: the data block, then the padding block every 64-byte
 * message shares, then the second hash. Outputs are written after both inputs are read. */
static void shani_d64(uint8_t *out, const uint8_t *in, size_t n) {
    static const uint8_t pad[64] = {0x80, [62] = 0x02};  /* 512 bits */
    size_t i = 0;
    for (; i + 1 < n; i += 2) {
        uint32_t sa[8], sb[8];
        uint8_t ba[64], bb[64];
        memcpy(sa, IV, sizeof IV);
        memcpy(sb, IV, sizeof IV);
        compress_two(sa, in + 64 * i, sb, in + 64 * (i + 1));
        compress_two(sa, pad, sb, pad);
        second_block(sa, ba);
        second_block(sb, bb);
        memcpy(sa, IV, sizeof IV);
        memcpy(sb, IV, sizeof IV);
        compress_two(sa, ba, sb, bb);
        digest_out(sa, out + 32 * i);
        digest_out(sb, out + 32 * (i + 1));
    }
    if (i < n) {
        uint8_t a[64];
        memcpy(a, in + 64 * i, 64);
        satchel_sha_message ma = {{a}, {64}, 1};
        shani_one(&ma, out + 32 * i);
    }
}
#endif

void satchel_sha256d_many(const satchel_sha_message *m, size_t n, uint8_t *out) {
#if defined(__x86_64__)
    switch (satchel_sha256_path()) {
    case SATCHEL_SHA_AVX512: return avx512_many(m, n, out);
    case SATCHEL_SHA_SHANI: return shani_many(m, n, out);
    }
#endif
    for (size_t i = 0; i < n; i++) portable_one(&m[i], out + 32 * i);
}

void satchel_sha256d64(uint8_t *out, const uint8_t *in, size_t n) {
#if defined(__x86_64__)
    switch (satchel_sha256_path()) {
    case SATCHEL_SHA_AVX512: return avx512_d64(out, in, n);
    case SATCHEL_SHA_SHANI: return shani_d64(out, in, n);
    }
#endif
    size_t i = 0;
    for (; i < n; i++) {
        /* Each pair is copied out before its digest is written (out may be in). */
        uint8_t a[64];
        memcpy(a, in + 64 * i, 64);
        satchel_sha_message ma = {{a}, {64}, 1};
        portable_one(&ma, out + 32 * i);
    }
}
