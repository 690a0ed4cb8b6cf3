/* What libsodium's subgroup check costs in the Monero scan's one expensive step.
 * crypto_scalarmult_ed25519_noclamp (what 8·a·R uses) decodes the point, checks that it is in
 * the prime-order subgroup (a multiplication by the group order), then multiplies.
 * crypto_core_ed25519_is_valid_point does the decode and the check alone, so the difference is
 * the multiplication itself. Prints one JSON line; run by bench/monero_scan.py. */
#include <sodium.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void) {
    if (sodium_init() < 0) return 1;
    enum { N = 20000 };
    unsigned char scalar[32], point[32], out[32], acc = 0;
    crypto_core_ed25519_scalar_random(scalar);
    crypto_core_ed25519_random(point);
    double t = now();
    for (int i = 0; i < N; i++) { scalar[0] ^= (unsigned char)i; acc ^= (unsigned char)crypto_scalarmult_ed25519_noclamp(out, scalar, point); acc ^= out[0]; }
    double mult = (now() - t) / N;
    t = now();
    for (int i = 0; i < N; i++) { point[31] ^= 0; acc ^= (unsigned char)crypto_core_ed25519_is_valid_point(point); }
    double check = (now() - t) / N;
    printf("{\"scalarmult_noclamp_s\":%.3e,\"decode_and_subgroup_check_s\":%.3e,\"check_share\":%.3f,\"sink\":%d}\n",
           mult, check, check / mult, acc);
    return 0;
}
