/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Large blocks of fresh memory, mapped in bulk.  Where a page fault is dear
 * (on this project's VM, a paravirtualised guest, a fault on a fresh
 * anonymous page costs ~10 us), mapping a range with MADV_POPULATE_WRITE
 * and reading a byte of each page costs a quarter of that; elsewhere about
 * what the faults would.  Internal to model/.
 */
#ifndef RSP_MODEL_MEM_H
#define RSP_MODEL_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Blocks from this size up are mapped in bulk. */
#define RSP_WARM_MIN (256u << 10)

/* Map the whole pages inside [@p, @p + @n) in bulk; best effort. */
void _rsp_warm(void *p, size_t n);
/* Read a byte of each page of [@p, @p + @n). */
void _rsp_touch_pages(const void *p, size_t n);
/* malloc(@n), mapped in bulk when large. */
void *_rsp_malloc_warm(size_t n);
/*
 * Room for element @n of the large array *@v (vec.h): map the next step of
 * its capacity, or move it into a block twice as large, mapped up to a step
 * past @n.  A step is an eighth of what is in use, at least RSP_WARM_MIN.
 */
bool _rsp_vec_grow_warm(void **v, size_t *cap, size_t *warm, size_t n, size_t elem);
/* The same for a plain array: grow *@v (@n elements in use) to @ncap, mapped in bulk. */
bool _rsp_grow_warm(void **v, size_t *cap, size_t ncap, size_t n, size_t elem);

/*
 * Give back the whole pages inside [@p, @p + @n) of a large block whose
 * start is done with (a consumed prefix of an array): they read as zeros
 * after.  Best effort.
 */
void _rsp_release(void *p, size_t n);

/*
 * How large a reservation of address space (virtual only) may be: @want, or
 * a @share-th of what the process's address-space limit (ulimit -v,
 * RLIMIT_AS) leaves free now, whichever is less, so that a reservation
 * sized to the machine does not take all a limited process may map and
 * leave nothing for the rest (thread stacks, malloc's arenas, the model).
 */
uint64_t _rsp_reserve_cap(uint64_t want, unsigned share);

#endif /* RSP_MODEL_MEM_H */
