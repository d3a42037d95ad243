/* What a kernel may ask of its model's shared weight store (kn_kctx.weights,
 * implemented in core/engine/weight_store.c, which says how the store
 * works): whether it shares a constant, its raw bytes made resident, or
 * one packed copy of it shared by every session. Only KN_OP_PACKS_WEIGHTS
 * kernels use these. */
#ifndef KN_WEIGHTS_H
#define KN_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/status.h"

typedef struct kn_weight_store kn_weight_store;

/* Converts a weight between the initializer's layout and a packed one as
 * described by key: raw -> packed when to_packed, else packed -> raw (which
 * must reproduce the initializer's bytes exactly). */
typedef int (*kn_weight_convert_fn)(const void *key, size_t key_len, int to_packed,
                                    const void *src, void *dst, int32_t threads, kn_err *err);

/* Whether the store shares root-graph value `value` (constant after
 * create: no lock). ws may be NULL. */
int kn_weight_store_shares(const kn_weight_store *ws, int32_t value);

/* Makes the raw bytes of shared `value` resident (converting a packed
 * copy back when evicted) and counts a reader; release when done. */
int kn_weight_store_acquire_raw(kn_weight_store *ws, int32_t value, int32_t threads, kn_err *err);
void kn_weight_store_release_raw(kn_weight_store *ws, int32_t value);

/* The packed copy of shared `value` for this key, made with convert
 * from the raw bytes when none exists yet (packed_bytes long, 64-byte
 * aligned). Valid until kn_weight_store_release_packed(ws, *packed).
 * one_way: convert cannot reproduce the raw bytes from this copy (a
 * Winograd transform); the copy is shared all the same, but the raw bytes
 * are given back only while a copy that can restore them exists. */
int kn_weight_store_acquire_packed(kn_weight_store *ws, int32_t value, const void *key,
                                   size_t key_len, size_t packed_bytes,
                                   kn_weight_convert_fn convert, int one_way, int32_t threads,
                                   const void **packed, kn_err *err);
void kn_weight_store_release_packed(kn_weight_store *ws, const void *packed);

struct kn_backend_memory; /* core/kernel/backend.h */

/* A device backend's copy of constant `value` (node input of the kernel
 * asking), packed on the host by convert (NULL: the raw bytes as they are)
 * and uploaded once per (model, device, key) through memory's hooks on
 * device context `device`: every session's plan gets the same device
 * pointer. Valid until kn_weight_store_release_device(ws, *device_ptr). */
int kn_weight_store_acquire_device(kn_weight_store *ws, int32_t value, const void *key,
                                   size_t key_len, size_t packed_bytes,
                                   kn_weight_convert_fn convert,
                                   const struct kn_backend_memory *memory, void *device,
                                   int32_t threads, void **device_ptr, kn_err *err);
void kn_weight_store_release_device(kn_weight_store *ws, const void *device_ptr);

#endif
