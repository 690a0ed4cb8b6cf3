#ifndef SATCHEL_PROCESS_H
#define SATCHEL_PROCESS_H

/// Keeps secrets out of core files and crash reports: RLIMIT_CORE 0, PR_SET_DUMPABLE 0 (prctl
/// is variadic, which Swift cannot call), and the default action for the fatal signals, which
/// replaces the Swift runtime's backtracer (it prints registers and the memory they point at,
/// a phrase included, to stderr). Returns 0, or -1 with errno set.
int satchel_disable_core_dumps(void);

#endif
