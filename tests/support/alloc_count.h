/* Allocation counting for the tests that check steady-state runs allocate
 * nothing: the including executable replaces malloc & co. with wrappers
 * that count calls while `counting` is set. Include it from exactly one
 * file of a test executable. Under AddressSanitizer (which owns malloc)
 * KT_CAN_COUNT_ALLOCS is 0 and nothing is replaced. */
#ifndef KILN_TEST_ALLOC_COUNT_H
#define KILN_TEST_ALLOC_COUNT_H

#include <stdatomic.h>
#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define KT_CAN_COUNT_ALLOCS 0 /* the sanitizer owns malloc */
#else
#define KT_CAN_COUNT_ALLOCS 1
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static atomic_long alloc_calls;
static atomic_int counting;

static void note_alloc(void)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add(&alloc_calls, 1);
}

void *malloc(size_t n)
{
    note_alloc();
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
    note_alloc();
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n)
{
    note_alloc();
    return __libc_realloc(p, n);
}
void *aligned_alloc(size_t align, size_t n)
{
    note_alloc();
    return __libc_memalign(align, n);
}
int posix_memalign(void **out, size_t align, size_t n)
{
    note_alloc();
    *out = __libc_memalign(align, n);
    return *out ? 0 : 12;
}
void free(void *p) { __libc_free(p); }
#endif

#endif
