/* SHA256d for Bitcoin's parser: two messages at a time on SHA-NI, OpenSSL's SHA-256 otherwise.
 * The SHA-NI code is compiled with its own target attribute and only called after cpuid says
 * the CPU has the extension, so the package needs no -march flag. */
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

/* One of the two streams of satchel_sha256d_many: a message's blocks, then its second hash. */
typedef struct {
    feeder f;
    uint32_t s[8];
    uint8_t buf[64];
    int phase; /* 0 first hash, 1 second hash, 2 idle */
    size_t index;
} lane;

/* The lane's next block to compress, starting the next message when its own is done; 0 when
 * no message is left. */
static int lane_next(lane *l, const satchel_sha_message *m, size_t n, size_t *next, uint8_t *out, const uint8_t **block) {
    for (;;) {
        if (l->phase == 0) {
            const uint8_t *p = next_block(&l->f, l->buf);
            if (p) {
                *block = p;
                return 1;
            }
            second_block(l->s, l->buf);
            memcpy(l->s, IV, sizeof IV);
            l->phase = 1;
            *block = l->buf;
            return 1;
        }
        if (l->phase == 1) {
            digest_out(l->s, out + 32 * l->index);
            l->phase = 2;
        }
        if (*next >= n) return 0;
        l->index = (*next)++;
        feeder_init(&l->f, &m[l->index]);
        memcpy(l->s, IV, sizeof IV);
        l->phase = 0;
    }
}

static void shani_many(const satchel_sha_message *m, size_t n, uint8_t *out) {
    lane a, b;
    a.phase = b.phase = 2;
    size_t next = 0;
    for (;;) {
        const uint8_t *pa = NULL, *pb = NULL;
        int ha = lane_next(&a, m, n, &next, out, &pa), hb = lane_next(&b, m, n, &next, out, &pb);
        if (ha && hb) compress_two(a.s, pa, b.s, pb);
        else if (ha) compress_one(a.s, pa);
        else if (hb) compress_one(b.s, pb);
        else break;
    }
}

static int cpu_has_shani(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 19)) || !(ecx & (1u << 9))) return 0;  /* SSE4.1, SSSE3 */
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx >> 29) & 1;
}
#else
static int cpu_has_shani(void) { return 0; }
#endif

static int shani = -1, forced_portable = 0;

int satchel_sha256_shani(void) {
    int s = __atomic_load_n(&shani, __ATOMIC_ACQUIRE);
    if (s < 0) {
        const char *want = getenv("SATCHEL_SHA");
        s = cpu_has_shani() && !(want && !strcmp(want, "portable"));
        __atomic_store_n(&shani, s, __ATOMIC_RELEASE);
    }
    return s && !__atomic_load_n(&forced_portable, __ATOMIC_RELAXED);
}

void satchel_sha256_force_portable(int portable) { __atomic_store_n(&forced_portable, portable, __ATOMIC_RELAXED); }

void satchel_sha256d_two(const satchel_sha_message *a, const satchel_sha_message *b, uint8_t out_a[32], uint8_t out_b[32]) {
#if defined(__x86_64__)
    if (satchel_sha256_shani()) return shani_two(a, b, out_a, out_b);
#endif
    portable_one(a, out_a);
    portable_one(b, out_b);
}

void satchel_sha256d_one(const satchel_sha_message *m, uint8_t out[32]) {
#if defined(__x86_64__)
    if (satchel_sha256_shani()) return shani_one(m, out);
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
    if (satchel_sha256_shani()) return shani_many(m, n, out);
#endif
    for (size_t i = 0; i < n; i++) portable_one(&m[i], out + 32 * i);
}

void satchel_sha256d64(uint8_t *out, const uint8_t *in, size_t n) {
#if defined(__x86_64__)
    if (satchel_sha256_shani()) return shani_d64(out, in, n);
#endif
    size_t i = 0;
    for (; i + 1 < n; i += 2) {
        /* Both pairs are copied out before either digest is written (out may be in). */
        uint8_t a[64], b[64];
        memcpy(a, in + 64 * i, 64);
        memcpy(b, in + 64 * (i + 1), 64);
        satchel_sha_message ma = {{a}, {64}, 1}, mb = {{b}, {64}, 1};
        satchel_sha256d_two(&ma, &mb, out + 32 * i, out + 32 * (i + 1));
    }
    if (i < n) {
        uint8_t a[64];
        memcpy(a, in + 64 * i, 64);
        satchel_sha_message ma = {{a}, {64}, 1};
        satchel_sha256d_one(&ma, out + 32 * i);
    }
}
