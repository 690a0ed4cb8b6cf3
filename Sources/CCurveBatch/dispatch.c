#include "satchel_curve_batch.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* What this CPU runs, from cpuid and the OS's saved register state (xgetbv): a path needs both
 * the instructions and the kernel saving the registers they use. */
static int detect(enum satchel_simd_path path) {
    if (path == SATCHEL_SIMD_PORTABLE) return 1;
#if defined(__x86_64__)
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27))) return 0;  /* OSXSAVE */
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    int ymm = (lo & 0x6) == 0x6, zmm = (lo & 0xE6) == 0xE6;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    int avx2 = ymm && (ebx & (1u << 5));
    int ifma = zmm && (ebx & (1u << 16)) && (ebx & (1u << 21)) && (ebx & (1u << 31));  /* F, IFMA, VL */
    return path == SATCHEL_SIMD_AVX2 ? avx2 : ifma;
#else
    return 0;
#endif
}

static int support = -1;

/* cpuid once: kernels ask per call. */
int satchel_simd_supported(enum satchel_simd_path path) {
    int bits = __atomic_load_n(&support, __ATOMIC_ACQUIRE);
    if (bits < 0) {
        bits = 1 | detect(SATCHEL_SIMD_AVX2) << 1 | detect(SATCHEL_SIMD_IFMA) << 2;
        __atomic_store_n(&support, bits, __ATOMIC_RELEASE);
    }
    return (bits >> path) & 1;
}

enum satchel_simd_path satchel_simd_choose(const char *forced, int *unavailable) {
    enum satchel_simd_path best = satchel_simd_supported(SATCHEL_SIMD_IFMA) ? SATCHEL_SIMD_IFMA
                                  : satchel_simd_supported(SATCHEL_SIMD_AVX2) ? SATCHEL_SIMD_AVX2 : SATCHEL_SIMD_PORTABLE;
    *unavailable = 0;
    if (!forced || !*forced) return best;
    int want = !strcmp(forced, "ifma") ? SATCHEL_SIMD_IFMA : !strcmp(forced, "avx2") ? SATCHEL_SIMD_AVX2
               : !strcmp(forced, "portable") ? SATCHEL_SIMD_PORTABLE : -1;
    if (want >= 0 && satchel_simd_supported((enum satchel_simd_path)want)) return (enum satchel_simd_path)want;
    *unavailable = 1;
    return best;
}

static int chosen = -1, unavailable = 0;

static void choose(void) {
    int bad;
    int pick = satchel_simd_choose(getenv("SATCHEL_SIMD"), &bad);
    /* Idempotent: two threads that race here store the same values. */
    __atomic_store_n(&unavailable, bad, __ATOMIC_RELAXED);
    __atomic_store_n(&chosen, pick, __ATOMIC_RELEASE);
}

enum satchel_simd_path satchel_simd_path(void) {
    int path = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
    if (path < 0) { choose(); path = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE); }
    return (enum satchel_simd_path)path;
}

int satchel_simd_forced_unavailable(void) {
    (void)satchel_simd_path();
    return __atomic_load_n(&unavailable, __ATOMIC_RELAXED);
}

const char *satchel_simd_path_name(enum satchel_simd_path path) {
    switch (path) {
    case SATCHEL_SIMD_IFMA: return "ifma";
    case SATCHEL_SIMD_AVX2: return "avx2";
    default: return "portable";
    }
}
