/* Constant weights shared by every session of a model, held once.
 *
 * A backend that prefers its own layout for a matrix product's or a
 * convolution's constant B/W (oneDNN's blocked layouts, Winograd) keeps one
 * packed copy per (value, layout) here, in the root model, instead of one
 * per plan: a session, and a plan of each new input shape, reuses it. The
 * store holds every float initializer of 4 KiB or more that only ever
 * serves as that input ("shared").
 *
 * The initializer's own bytes are then dead weight for as long as no kernel
 * reads them, so a shared value of 1 MiB or more is also "evictable": once a
 * packed copy exists and no live plan reads the raw bytes, its whole pages
 * inside the tensor are given back to the system (madvise MADV_DONTNEED on
 * the model's private anonymous memory: they read as zeros afterwards). A
 * plan whose kernel reads the raw bytes (Kiln's CPU kernels, an in-place
 * oneDNN read) takes a raw reference first, which converts a packed copy
 * back into the same address when the bytes were evicted. A copy that
 * cannot convert back (Winograd's transform) lets the bytes go only when
 * the model was loaded from a file that still holds them: they are read
 * from there again (kn_weight_store_attach_file). The initializer's
 * address never changes, so every pointer plans hold stays valid.
 *
 * Eviction happens right after a packed copy is made or reused, and for
 * every weight nobody reads raw when a plan is complete
 * (kn_weight_store_evict_unused), not when the last raw reference goes: a
 * plan rebuilt for new shapes (or an eager plan, rebuilt every run) drops
 * its references just before taking them again, and evicting in between
 * would convert every weight back on each rebuild. So the raw bytes a
 * destroyed session read stay until the next plan of the model (a tuning
 * candidate's reference, dropped mid-plan, evicts at once). Packed copies
 * stay when their plans go (the next plan reuses them, and they back the
 * evicted bytes) until the model is destroyed, except that a plan needing a
 * new layout of a value first drops that value's copies no plan uses: input
 * shapes changing over time cannot pile up copies beyond those in use.
 *
 * Device backends get constants here too: one upload per (value, layout,
 * device), shared by every session on that device and freed with the model
 * (kn_weight_store_acquire_device). The store exists for every model for
 * that reason, even when it shares no packed weight.
 *
 * The calls kernels make (through kn_kctx.weights) are declared in
 * core/kernel/weights.h; the engine's are here.
 *
 * One mutex per store guards all of it: sessions of one model may be built
 * on several threads at once. Packing and restoring run under it. Nothing
 * here knows oneDNN: the packing kernel passes a conversion function and
 * an opaque key describing both layouts. */
#ifndef KN_WEIGHT_STORE_H
#define KN_WEIGHT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/status.h"
#include "core/engine/model.h"
#include "core/kernel/weights.h"



/* Marks the root graph's shared and evictable initializers (the model is
 * validated and optimized). *out is NULL when there are none. */
int kn_weight_store_create(const kn_model *root, kn_weight_store **out, kn_err *err);
void kn_weight_store_destroy(kn_weight_store *ws); /* NULL-safe */


/* Evicts every weight with a packed copy and no raw reader (NULL-safe);
 * evict_value: only that value's (when it is evictable now). */
void kn_weight_store_evict_unused(kn_weight_store *ws);
void kn_weight_store_evict_value(kn_weight_store *ws, int32_t value);

/* The model was read from a file mapping of `path`, which fd (open for reading)
 * refers to: weights whose bytes are still the file's (spans says where,
 * checked on first use) may be given back even with only a one-way packed
 * copy, and are read from the file again when a kernel needs them. The
 * store owns fd when this returns 1 (some weight is in spans); else the
 * caller keeps it. */
int kn_weight_store_attach_file(kn_weight_store *ws, int fd, const char *path,
                                const kn_file_span *spans);

/* Whether shared `value` is big enough to be evicted (no lock: constant). */
int kn_weight_store_may_evict(const kn_weight_store *ws, int32_t value);


/* What the store holds now (for tests and diagnostics). */
typedef struct kn_weight_store_stats {
    int32_t n_shared;        /* values the store shares */
    int32_t n_evictable;     /* of those, the ones big enough to evict */
    int32_t n_packed;        /* packed copies held */
    int32_t n_packed_values; /* values with at least one packed copy */
    int32_t n_one_way;       /* of those, values with a copy that cannot give the raw
                              * bytes back (oneDNN's Winograd, where the CPU has it) */
    int64_t packed_bytes;    /* their bytes */
    int32_t n_evicted;       /* values whose raw pages are given back now */
    int64_t evicted_bytes;   /* bytes of those pages */
    int64_t restores;        /* packed -> raw conversions so far */
    int32_t n_device;        /* constants uploaded to a device, held now */
    int64_t device_bytes;    /* their bytes */
    int64_t device_uploads;  /* uploads so far (one per value, key and device) */
} kn_weight_store_stats;
void kn_weight_store_get_stats(kn_weight_store *ws, kn_weight_store_stats *out);

#endif
