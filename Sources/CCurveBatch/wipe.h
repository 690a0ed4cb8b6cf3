#ifndef SATCHEL_WIPE_H
#define SATCHEL_WIPE_H
#include <stddef.h>
#include <stdint.h>

/* Secrets are wiped through a volatile pointer, which the compiler cannot drop as dead stores. */
static inline void wipe(void *p, size_t n) {
    volatile uint8_t *b = p;
    while (n--) *b++ = 0;
}
#endif
