/* satchel_declassify: a value computed from a secret that is public by design (a bound that
 * holds for every key, checked as an assertion) is told so to valgrind's memcheck, which the
 * constant-time checks run under (make ctime, make ctime-swift), as libsecp256k1 declassifies
 * in its ctime tests. Where the build finds valgrind's header, the client request is a few
 * register rotations that do nothing outside valgrind; without it the call does nothing. */
#include "satchel_curve_batch.h"

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define SATCHEL_HAVE_MEMCHECK 1
#endif
#endif

#ifdef SATCHEL_HAVE_MEMCHECK
void satchel_classify(const void *p, size_t n) { (void)VALGRIND_MAKE_MEM_UNDEFINED(p, n); }
void satchel_declassify(const void *p, size_t n) { (void)VALGRIND_MAKE_MEM_DEFINED(p, n); }
#else
void satchel_classify(const void *p, size_t n) { (void)p, (void)n; }
void satchel_declassify(const void *p, size_t n) { (void)p, (void)n; }
#endif
