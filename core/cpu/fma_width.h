/* How this CPU executes 512-bit vector arithmetic, measured once. */
#ifndef KN_FMA_WIDTH_H
#define KN_FMA_WIDTH_H

/* 1 when a 512-bit FMA costs this core as much issue time as two 256-bit
 * ones (AMD Zen 4 splits each into two halves; Intel parts with a single
 * 512-bit FMA unit issue half as many): a 512-bit kernel then gains
 * nothing from its width, and loses whatever lanes its tiles leave empty.
 * 0 when 512-bit FMAs issue as fast as 256-bit ones, or when the CPU has
 * no AVX-512 (or is not x86). Measured on the first call (~0.14 ms: both
 * widths timed on independent FMA chains, median ratio of 15 tries), then
 * cached; thread-safe. */
int kn_cpu_splits_512(void);

#endif
