#ifndef SATCHEL_PROCESS_H
#define SATCHEL_PROCESS_H

/// Keeps secrets out of core files and crash reports: RLIMIT_CORE 0, PR_SET_DUMPABLE 0 (prctl
/// is variadic, which Swift cannot call), and the default action for the fatal signals, which
/// replaces the Swift runtime's backtracer (it prints registers and the memory they point at,
/// a phrase included, to stderr). Returns 0, or -1 with errno set.
int satchel_disable_core_dumps(void);

/// glibc hands allocations over 128 KiB to mmap and gives them back at free: a block scanner
/// then reads every block into fresh, zeroed pages (page faults were a sixth of a blk*.dat
/// scan). Buffers up to 16 MiB come from the heap instead, and up to 512 MiB of freed memory
/// stays in the process for the next batch. Returns 0 (1 where the C library has no mallopt).
int satchel_reuse_large_buffers(void);

#endif
