/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pto_npu: a task's GM history, shared by pto_gm.c (the units' views) and
 * pto_gm_hist.c (the history itself); not for other files.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#ifndef __PTO_GM_HIST_H__
#define __PTO_GM_HIST_H__

#include <linux/hash.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "pto_gm.h"

/* The publication number of a write-back: never visible to the task. */
#define PTO_GM_END U64_MAX
/* Lines a unit holds before it writes them back (an eviction). */
#define PTO_GM_DIRTY_MAX 4096
/*
 * Bytes of history a task keeps; lines published past it become
 * coherent (their history is dropped) rather than wrong.
 */
#define PTO_GM_HIST_MAX (16u << 20)

/* Buckets of a task's line histories and of its units' unpublished lines. */
#define PTO_GM_TASK_BITS 8

/**
 * struct pto_gm_line - a line a unit stored to and has not published
 * @k: in the unit's &pto_gm_view.dirty
 * @mask: bytes stored
 * @pc: the last store's instruction
 * @tensor: its tensor argument
 * @data: the bytes
 */
struct pto_gm_line {
	struct pto_gm_key k;
	u64 mask;
	u32 pc;
	u8 tensor;
	u8 data[PTO_GM_LINE];
};

/**
 * struct pto_gm_ver - one publication of a line
 * @seq: the task's publication number, PTO_GM_END for a write-back
 * @mask: bytes published
 * @unit: the unit that published
 * @pc: its last store to the line
 * @tensor: its tensor argument
 * @data: the bytes
 */
struct pto_gm_ver {
	u64 seq;
	u64 mask;
	u32 unit;
	u32 pc;
	u8 tensor;
	u8 data[PTO_GM_LINE];
};

/**
 * struct pto_gm_hist - what a task's units published to one line
 * @k: in &pto_gm_task.hist
 * @n: publications
 * @cap: room in @v
 * @v: the publications, in the order they reached GM
 * @pre: the line before the first of them
 */
struct pto_gm_hist {
	struct pto_gm_key k;
	u32 n;
	u32 cap;
	struct pto_gm_ver *v;
	u8 pre[PTO_GM_LINE];
};

/**
 * struct pto_gm_pend - what one unit holds unpublished in a line (sanitizer)
 * @mask: bytes it stored
 * @unit: the unit
 * @pc: its last store
 * @tensor: its tensor argument
 */
struct pto_gm_pend {
	u64 mask;
	u32 unit;
	u32 pc;
	u8 tensor;
};

/**
 * struct pto_gm_pends - the units holding one line unpublished
 * @k: in &pto_gm_task.pend
 * @n: entries
 * @cap: room in @p
 * @p: one per unit, in the order they first stored
 */
struct pto_gm_pends {
	struct pto_gm_key k;
	u32 n;
	u32 cap;
	struct pto_gm_pend *p;
};

/**
 * struct pto_gm_task - a task's GM history
 * @lock: everything below; taken by units of the task only
 * @seq: publications (FENCE) so far
 * @hist: struct pto_gm_hist by line
 * @pend: struct pto_gm_pends by line (sanitizer)
 * @bytes: memory of @hist and @pend, at most PTO_GM_HIST_MAX
 * @epochs: per unit, the publication count at its last CACHEINVALID of the
 *          whole GM (0 before, U64_MAX once it ended)
 * @min_epoch: the least of @epochs: publications up to it are seen by
 *             every unit that may still load, and fold into the lines
 * @gc: on pto_gm_gc once its task has completed (pto_gm_task_retire())
 */
struct pto_gm_task {
	struct llist_node gc;
	struct mutex lock;	/* the fields below */
	u64 seq;
	struct hlist_head hist[1 << PTO_GM_TASK_BITS];
	struct hlist_head pend[1 << PTO_GM_TASK_BITS];
	size_t bytes;
	u64 *epochs;
	u64 min_epoch;
};

static inline unsigned long pto_gm_idx(const u8 *p)
{
	return (unsigned long)p / PTO_GM_LINE;
}

static inline u8 *pto_gm_line_addr(unsigned long idx)
{
	return (u8 *)(idx * PTO_GM_LINE);
}

/* The entry of line @key in a table of 1 << @bits buckets, or NULL. */
static inline void *pto_gm_find(struct hlist_head *tbl, u32 bits, unsigned long key)
{
	struct pto_gm_key *k;

	hlist_for_each_entry(k, &tbl[hash_long(key, bits)], node)
		if (k->key == key)
			return k;
	return NULL;
}

static inline void pto_gm_insert(struct hlist_head *tbl, u32 bits,
				 struct pto_gm_key *k, unsigned long key)
{
	k->key = key;
	hlist_add_head(&k->node, &tbl[hash_long(key, bits)]);
}

/* @dst's bytes in @mask = @src's. */
static inline void pto_gm_merge(u8 *dst, const u8 *src, u64 mask)
{
	if (mask == ~0ULL) {
		memcpy(dst, src, PTO_GM_LINE);
		return;
	}
	while (mask) {
		u32 b = __ffs64(mask);

		dst[b] = src[b];
		mask &= mask - 1;
	}
}

struct pto_gm_task *pto_gm_task_peek(struct pto_task *t);
struct pto_gm_task *pto_gm_task_get(struct pto_task *t);
void pto_gm_fold(struct pto_gm_task *g, struct pto_gm_hist *h);
void pto_gm_set_epoch(struct pto_gm_task *g, const struct pto_task *t,
		      u32 unit, u64 e);
void pto_gm_hist_add(struct pto_gm_task *g, unsigned long idx,
		     const struct pto_gm_line *d, u64 seq, u32 unit);
void pto_gm_pend_drop(struct pto_gm_task *g, unsigned long idx,
		      u32 unit);
int pto_gm_pend_note(struct pto_gm_view *v, struct pto_gm_task *g,
		     unsigned long idx, const struct pto_gm_line *d);

#endif /* __PTO_GM_HIST_H__ */
