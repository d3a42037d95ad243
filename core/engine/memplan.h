/* Arena offset assignment from buffer lifetimes. Each request is a buffer
 * that must exist from step `first` to step `last` (inclusive); two requests
 * whose step ranges overlap get disjoint byte ranges, others may share.
 * Placement is greedy best-fit, largest buffers first — the usual heuristic
 * for this NP-hard packing, within a few percent of the lower bound (the
 * largest sum of sizes alive at one step) on CNNs. */
#ifndef KN_MEMPLAN_H
#define KN_MEMPLAN_H

#include <stdint.h>

#define KN_ARENA_ALIGN 64

typedef struct kn_buffer_req {
    int64_t size;   /* bytes; 0-sized requests get offset 0 */
    int32_t first;  /* first step the buffer is written */
    int32_t last;   /* last step it is read */
    int64_t offset; /* result */
} kn_buffer_req;

/* Assigns offsets (multiples of KN_ARENA_ALIGN) and returns the arena size,
 * or -1 if out of memory. Allocates temporary memory (not in a run). */
int64_t kn_memplan_assign(kn_buffer_req *reqs, int32_t n);

/* The lower bound: the largest total (aligned) size alive at any one step. */
int64_t kn_memplan_lower_bound(const kn_buffer_req *reqs, int32_t n);

#endif
