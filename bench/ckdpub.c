/* The C reference for `make bench`: BIP32 CKDpub from one parent, the point work of a
 * watch-only address (HMAC-SHA512 of serP(parent) || i, pubkey tweak-add, serialize), in a
 * plain loop over libsecp256k1 and libsodium. Prints seconds per child. */
#include <secp256k1.h>
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
    unsigned char chain[32], parent_ser[33], seckey[32];
    memset(chain, 7, 32);
    memset(seckey, 1, 32);
    secp256k1_pubkey parent;
    if (!secp256k1_ec_pubkey_create(ctx, &parent, seckey)) return 1;
    size_t len = 33;
    secp256k1_ec_pubkey_serialize(ctx, parent_ser, &len, &parent, SECP256K1_EC_COMPRESSED);
    unsigned long sink = 0;
    double best = 1e9;
    for (int round = 0; round < 3; round++) {
        double start = now();
        for (int i = 0; i < n; i++) {
            unsigned char data[37], I[64], out[33];
            memcpy(data, parent_ser, 33);
            data[33] = i >> 24; data[34] = i >> 16; data[35] = i >> 8; data[36] = i;
            crypto_auth_hmacsha512_state st;
            crypto_auth_hmacsha512_init(&st, chain, 32);
            crypto_auth_hmacsha512_update(&st, data, 37);
            crypto_auth_hmacsha512_final(&st, I);
            secp256k1_pubkey child = parent;
            if (!secp256k1_ec_pubkey_tweak_add(ctx, &child, I)) continue;
            size_t olen = 33;
            secp256k1_ec_pubkey_serialize(ctx, out, &olen, &child, SECP256K1_EC_COMPRESSED);
            sink += out[1];
        }
        double t = (now() - start) / n;
        if (t < best) best = t;
    }
    printf("%.9f %lu\n", best, sink & 1);
    secp256k1_context_destroy(ctx);
    return 0;
}
