#include "satchel_process.h"
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>

int satchel_disable_core_dumps(void) {
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGQUIT, SIGSYS};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) signal(fatal[i], SIG_DFL);
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int satchel_reuse_large_buffers(void) {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 16 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    return 0;
#else
    return 1;
#endif
}
