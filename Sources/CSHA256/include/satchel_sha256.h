#ifndef SATCHEL_SHA256_H
#define SATCHEL_SHA256_H
#include <stddef.h>
#include <stdint.h>

/* A message in up to four pieces (a transaction's stripped serialization is three). */
typedef struct {
    const uint8_t *data[4];
    size_t size[4];
    int count;
} satchel_sha_message;

/* SHA256d (SHA-256 twice) of two messages at once: with SHA-NI as two interleaved streams,
 * which keep the unit busy where one stream waits on its own rounds; else one after the other. */
void satchel_sha256d_two(const satchel_sha_message *a, const satchel_sha_message *b, uint8_t out_a[32], uint8_t out_b[32]);

/* SHA256d of n messages, digest i at out + 32 i: with AVX-512VL eight at a time, one per
 * vector lane, each lane taking the next message as soon as its own is done; with SHA-NI two
 * streams the same way; else one after the other. */
void satchel_sha256d_many(const satchel_sha_message *m, size_t n, uint8_t *out);

/* SHA256d of one message. */
void satchel_sha256d_one(const satchel_sha_message *m, uint8_t out[32]);

/* A merkle level: pair i is the 64 bytes at in + 64 i, its SHA256d goes to out + 32 i, for n
 * pairs. out may be in (each pair is read before anything is written over it). */
void satchel_sha256d64(uint8_t *out, const uint8_t *in, size_t n);

/* The code paths: OpenSSL's SHA-256 (which has its own SSSE3/AVX2/SHA-NI code, one message at
 * a time), Satchel's two-stream SHA-NI, Satchel's eight-lane AVX-512VL. */
enum { SATCHEL_SHA_PORTABLE = 0, SATCHEL_SHA_SHANI = 1, SATCHEL_SHA_AVX512 = 2 };

/* 1 when the CPU (and OS) can run `path`. */
int satchel_sha256_has(int path);

/* The path that runs: the one forced, else SATCHEL_SHA's ("portable", "shani" or "avx512")
 * where the CPU has it, else the fastest the CPU has (AVX-512VL, SHA-NI, OpenSSL). */
int satchel_sha256_path(void);

/* Tests and benchmarks: run `path` from now on (-1: back to the choice above); 0 when the
 * CPU lacks it, and nothing changes. */
int satchel_sha256_force(int path);

#endif
