/* The C reference for `make bench`: secp256k1_ecdsa_sign_recoverable (RFC 6979) with one key
 * over distinct 32-byte hashes, plus the compact serialization, in a plain loop.
 * Prints seconds per signature (best of three rounds). */
#include <secp256k1.h>
#include <secp256k1_recovery.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    if (sodium_init() < 0) return 1;
    secp256k1_context *ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    unsigned char key[32] = {0};
    key[31] = 1;
    unsigned char (*hashes)[32] = malloc((size_t)n * 32);
    for (int i = 0; i < n; i++) {
        char text[16];
        int len = snprintf(text, sizeof text, "%d", i);
        crypto_hash_sha256(hashes[i], (unsigned char *)text, len);
    }
    unsigned long sink = 0;
    double best = 1e9;
    for (int round = 0; round < 3; round++) {
        double start = now();
        for (int i = 0; i < n; i++) {
            secp256k1_ecdsa_recoverable_signature sig;
            unsigned char out[64];
            int recid;
            if (!secp256k1_ecdsa_sign_recoverable(ctx, &sig, hashes[i], key, NULL, NULL)) return 1;
            secp256k1_ecdsa_recoverable_signature_serialize_compact(ctx, out, &recid, &sig);
            sink += out[0] + recid;
        }
        double t = (now() - start) / n;
        if (t < best) best = t;
    }
    printf("%.9f %lu\n", best, sink & 1);
    free(hashes);
    secp256k1_context_destroy(ctx);
    return 0;
}
