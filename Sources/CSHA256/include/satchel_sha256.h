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

/* SHA256d of n messages, digest i at out + 32 i: with SHA-NI two streams, each taking the
 * next message as soon as its own is done, so that both stay busy however lengths differ. */
void satchel_sha256d_many(const satchel_sha_message *m, size_t n, uint8_t *out);

/* SHA256d of one message. */
void satchel_sha256d_one(const satchel_sha_message *m, uint8_t out[32]);

/* A merkle level: pair i is the 64 bytes at in + 64 i, its SHA256d goes to out + 32 i, for n
 * pairs. out may be in (each pair is read before anything is written over it). */
void satchel_sha256d64(uint8_t *out, const uint8_t *in, size_t n);

/* 1 when the SHA-NI path runs (the CPU has it and SATCHEL_SHA is not "portable"). */
int satchel_sha256_shani(void);

/* Tests and benchmarks: 1 forces the portable path (OpenSSL's SHA-256), 0 lets the CPU decide. */
void satchel_sha256_force_portable(int portable);

#endif
