/* How this CPU executes 512-bit vector arithmetic. */
#ifndef KN_FMA_WIDTH_H
#define KN_FMA_WIDTH_H

/* 1 when a 512-bit FMA costs this core as much issue time as two 256-bit
 * ones (AMD Zen 4 splits each into two halves): a 512-bit kernel then gains
 * nothing from its width, and loses whatever lanes its tiles leave empty.
 * 0 when 512-bit FMAs are native, or when the CPU has no AVX-512 (or is
 * not x86). Read from the CPU's identity (fma_width.c says why not from a
 * timing), so every process on a machine gets the same answer; cached,
 * thread-safe. */
int kn_cpu_splits_512(void);

#endif
