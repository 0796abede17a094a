// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: GM as the chip's cores see it, and the hazard sanitizer
 * (Documentation/memory-model.rst).
 *
 * On the chip a core reaches GM through caches that nothing keeps
 * coherent: a store is visible to the other cores once the core has
 * flushed it (FENCE, or the end of its block), and a load may be served
 * from a line the core read before until it invalidates (CACHEINVALID, or
 * its block start). On a queue with non-coherent GM each running unit has
 * a view (struct pto_gm_view):
 *
 * - its stores stay in the view, 64-byte lines with a byte mask, until it
 *   publishes them: FENCE publishes them to the other units of its task;
 *   at its end (or when more than PTO_GM_DIRTY_MAX lines are held, an
 *   eviction) they are written back for the tasks that follow, but its
 *   task's other units never see them: nothing orders such a write-back
 *   against them on the chip;
 * - its loads see GM as it was when its task started, plus what the
 *   other units had published before its last CACHEINVALID, plus its own
 *   stores.
 *
 * Deterministic: what a load returns depends on the order of FENCE,
 * CACHEINVALID and SYNCALL in the programs, never on which block ran
 * first or how fast the host is. To that end the task keeps, for each
 * line a unit published, the line as it was before and every
 * publication's bytes in order (struct pto_gm_hist); a FENCE takes the
 * task's next publication number, a write-back PTO_GM_END, and a load
 * composes the publications its unit may see. Only buffers some kernel of
 * the task reads are buffered at all: stores through the others go
 * straight to GM, as no unit of the task could tell.
 *
 * The sanitizer (queues that sanitize) reports, per unit, a load of bytes
 * another unit published after the loader's last invalidation
 * (STALE_READ), or holds unpublished or only wrote back at its end
 * (UNFENCED), with both sides' instruction, tensor and element.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/bitops.h>
#include <linux/hash.h>
#include <linux/llist.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "pto_gm.h"
#include "pto_gm_hist.h"
#include "pto_queue.h"
#include "pto_sched.h"
#include "pto_tensor.h"
#include "pto_trace.h"

/**
 * struct pto_gm_inval - a line a unit invalidated on its own
 * @k: in &pto_gm_view.inval
 * @seq: the task's publication count then
 */
struct pto_gm_inval {
	struct pto_gm_key k;
	u64 seq;
};

/* Bytes @off .. @off + @len - 1 of a line (@len 1..PTO_GM_LINE). */
static u64 pto_gm_mask(size_t off, size_t len)
{
	return (len == PTO_GM_LINE ? ~0ULL : BIT_ULL(len) - 1) << off;
}

/* Element (row * cols + col), in tensor @tensor's view, of GM byte @p. */
static u64 pto_gm_elem(const struct pto_task *t, u32 tensor, const u8 *p)
{
	const struct pto_targ *ta = &t->targs[tensor];

	return pto_targ_elem_index(ta, p - ta->base);
}

/* Tensor arguments whose buffer a kernel of @t reads (pto_gm_view.obs). */
static u16 pto_gm_observed(const struct pto_task *t)
{
	u16 reads = 0, obs = 0;
	u32 i, j;

	for (i = 0; i < PTO_NUM_CIDX; i++)
		if (t->kern[i])
			reads |= t->kern[i]->arg_load;
	for (i = 0; i < t->num_tensors; i++)
		for (j = 0; j < t->num_tensors; j++)
			if ((reads & BIT(j)) && t->targs[j].bo == t->targs[i].bo) {
				obs |= BIT(i);
				break;
			}
	return obs;
}

/* Forget the lines invalidated one by one. */
static void pto_gm_inval_clear(struct pto_gm_view *v)
{
	struct hlist_node *tmp;
	struct pto_gm_key *k;
	u32 b;

	for (b = 0; v->ninval && b < ARRAY_SIZE(v->inval); b++)
		hlist_for_each_entry_safe(k, tmp, &v->inval[b], node) {
			hlist_del(&k->node);
			kfree(k);
		}
	v->ninval = 0;
}

/**
 * pto_gm_view_drop - forget a view without publishing it
 * @v: the view (a unit that will not run again, or none)
 */
void pto_gm_view_drop(struct pto_gm_view *v)
{
	struct hlist_node *tmp;
	struct pto_gm_key *k;
	u32 b;

	if (!v->live)
		return;
	for (b = 0; v->ndirty && b < ARRAY_SIZE(v->dirty); b++)
		hlist_for_each_entry_safe(k, tmp, &v->dirty[b], node) {
			hlist_del(&k->node);
			kfree(k);
		}
	pto_gm_inval_clear(v);
	v->live = false;
	v->ndirty = 0;
}

/**
 * pto_gm_view_start - the view of a unit at its block start
 * @v: the view (dropped first if a unit left one)
 * @t: the unit's task
 * @unit: the unit
 */
void pto_gm_view_start(struct pto_gm_view *v, struct pto_task *t, u32 unit)
{
	pto_gm_view_drop(v);
	/*
	 * A task of one unit has no other core to see its stores late or to
	 * be seen stale by, and the tasks after it start once it ended: it
	 * is its own view.
	 */
	v->on = t->queue->noncoherent && t->units > 1;
	v->unit = unit;
	v->ndirty = 0;
	v->ninval = 0;
	v->epoch = 0;
	v->rep_work = U64_MAX;
	if (!v->on)
		return;
	v->obs = pto_gm_observed(t);
	v->live = true;
}

/* Record the first hazard of the unit (one per instruction counted). */
static void pto_gm_report(struct pto_gm_view *v, const struct pto_gm_access *a,
			  u32 kind, const u8 *at, u32 ounit, u32 opc,
			  u8 otensor)
{
	struct pto_task *t = a->task;
	struct drm_pto_npu_hazard *h = pto_task_haz(t);
	const struct pto_unit_rec *rec;

	if (!h || v->rep_work == a->work)
		return;
	v->rep_work = a->work;
	h += v->unit;
	if (h->count++)
		return;
	rec = &t->recs[ounit];
	h->kind = kind;
	h->pc = a->pc;
	h->tensor = a->tensor;
	h->elem = pto_gm_elem(t, a->tensor, at);
	h->other_task = t->id;
	h->other_pc = opc;
	h->other_block = ounit / t->nparts;
	h->other_core = rec->core;
	h->other_core_type = rec->core_type;
	h->other_tensor = otensor;
	trace_pto_hazard(t, v->unit, h);
}

/*
 * The bytes @want of line @idx as the unit may see them, composed from
 * the line's history @h into @buf; the first publication it may not see
 * that overlaps @want is a hazard.
 */
static void pto_gm_compose(struct pto_gm_view *v, const struct pto_gm_access *a,
			   struct pto_gm_task *g, struct pto_gm_hist *h,
			   unsigned long idx, u64 want, u8 *buf)
{
	u64 e = v->epoch;
	struct pto_gm_inval *iv;
	bool seen = false;
	u32 i;

	pto_gm_fold(g, h);
	if (v->ninval) {
		iv = pto_gm_find(v->inval, PTO_GM_INVAL_BITS, idx);
		if (iv)
			e = max_t(u64, e, iv->seq);
	}
	memcpy(buf, h->pre, PTO_GM_LINE);
	for (i = 0; i < h->n; i++) {
		const struct pto_gm_ver *ver = &h->v[i];

		if (ver->unit == v->unit || ver->seq <= e) {
			pto_gm_merge(buf, ver->data, ver->mask);
		} else if (!seen && (ver->mask & want) && a->task->sanitized) {
			seen = true;
			pto_gm_report(v, a, ver->seq == PTO_GM_END ?
				      DRM_PTO_NPU_HAZARD_UNFENCED :
				      DRM_PTO_NPU_HAZARD_STALE_READ,
				      pto_gm_line_addr(idx) +
				      __ffs64(ver->mask & want),
				      ver->unit, ver->pc, ver->tensor);
		}
	}
}

/* Bytes another unit holds unpublished in line @idx: a hazard. */
static void pto_gm_check_pend(struct pto_gm_view *v,
			      const struct pto_gm_access *a,
			      struct pto_gm_task *g, unsigned long idx,
			      u64 want)
{
	struct pto_gm_pends *ps = pto_gm_find(g->pend, PTO_GM_TASK_BITS, idx);
	u32 i;

	for (i = 0; ps && i < ps->n; i++) {
		const struct pto_gm_pend *p = &ps->p[i];

		if (p->unit != v->unit && (p->mask & want)) {
			pto_gm_report(v, a, DRM_PTO_NPU_HAZARD_UNFENCED,
				      pto_gm_line_addr(idx) +
				      __ffs64(p->mask & want),
				      p->unit, p->pc, p->tensor);
			return;
		}
	}
}

/* Load @n bytes at @gm (offset @off in line @idx) into @dst. */
static void pto_gm_load_line(struct pto_gm_view *v,
			     const struct pto_gm_access *a,
			     struct pto_gm_task *g, unsigned long idx,
			     const u8 *gm, size_t off, size_t n, u8 *dst)
{
	u64 want = pto_gm_mask(off, n), own = 0;
	struct pto_gm_line *d = NULL;
	struct pto_gm_hist *h;
	u8 buf[PTO_GM_LINE];

	if (v->ndirty) {
		d = pto_gm_find(v->dirty, PTO_GM_VIEW_BITS, idx);
		own = d ? d->mask & want : 0;
	}
	if (own == want) {
		memcpy(dst, d->data + off, n);
		return;
	}
	h = g ? pto_gm_find(g->hist, PTO_GM_TASK_BITS, idx) : NULL;
	if (h) {
		pto_gm_compose(v, a, g, h, idx, want & ~own, buf);
		memcpy(dst, buf + off, n);
	} else {
		memcpy(dst, gm, n);
	}
	if (g && a->task->sanitized)
		pto_gm_check_pend(v, a, g, idx, want & ~own);
	while (own) {
		u32 b = __ffs64(own);

		dst[b - off] = d->data[b];
		own &= own - 1;
	}
}

/**
 * pto_gm_load - a unit loads GM through its view
 * @v: the unit's view
 * @a: the access (task, tensor, instruction)
 * @gm: the first byte, inside the tensor's view
 * @dst: where the bytes go
 * @len: bytes
 */
void pto_gm_load(struct pto_gm_view *v, const struct pto_gm_access *a,
		 const u8 *gm, u8 *dst, size_t len)
{
	struct pto_gm_task *g;

	if (!v->on) {
		memcpy(dst, gm, len);
		return;
	}
	g = pto_gm_task_peek(a->task);
	if (!g && !v->ndirty) {
		/* Nothing published, nothing held: GM is the unit's view. */
		memcpy(dst, gm, len);
		return;
	}
	if (g)
		mutex_lock(&g->lock);
	while (len) {
		size_t off = (unsigned long)gm % PTO_GM_LINE;
		size_t n = min_t(size_t, len, PTO_GM_LINE - off);

		pto_gm_load_line(v, a, g, pto_gm_idx(gm), gm, off, n, dst);
		gm += n;
		dst += n;
		len -= n;
	}
	if (g)
		mutex_unlock(&g->lock);
}

/* Publish (or write back) line @idx of the view; g->lock held. */
static void pto_gm_publish_line(struct pto_gm_view *v, struct pto_task *t,
				struct pto_gm_task *g, unsigned long idx,
				struct pto_gm_line *d, u64 seq)
{
	pto_gm_hist_add(g, idx, d, seq, v->unit);
	pto_gm_merge(pto_gm_line_addr(idx), d->data, d->mask);
	if (t->sanitized)
		pto_gm_pend_drop(g, idx, v->unit);
	hlist_del(&d->k.node);
	kfree(d);
	v->ndirty--;
}

/*
 * Publish every line the view holds: @fence, to the task's other units
 * (the next publication number), else a write-back only later tasks see.
 */
static int pto_gm_publish(struct pto_gm_view *v, struct pto_task *t,
			  bool fence)
{
	struct pto_gm_task *g;
	struct pto_gm_line *d;
	struct hlist_node *tmp;
	u64 seq;
	u32 b;

	if (!v->ndirty)
		return 0;
	g = pto_gm_task_get(t);
	if (!g)
		return -ENOMEM;
	mutex_lock(&g->lock);
	seq = fence ? ++g->seq : PTO_GM_END;
	for (b = 0; v->ndirty && b < ARRAY_SIZE(v->dirty); b++)
		hlist_for_each_entry_safe(d, tmp, &v->dirty[b], k.node)
			pto_gm_publish_line(v, t, g, d->k.key, d, seq);
	mutex_unlock(&g->lock);
	return 0;
}

/**
 * pto_gm_store - a unit stores to GM through its view
 * @v: the unit's view
 * @a: the access
 * @gm: the first byte, inside the tensor's view
 * @src: the bytes
 * @len: how many
 *
 * Return: 0, or -ENOMEM (the unit faults with STATUS_NOMEM).
 */
int pto_gm_store(struct pto_gm_view *v, const struct pto_gm_access *a,
		 u8 *gm, const u8 *src, size_t len)
{
	struct pto_task *t = a->task;
	struct pto_gm_task *g = NULL;
	int ret;

	if (!v->on || !(v->obs & BIT(a->tensor))) {
		memcpy(gm, src, len);
		return 0;
	}
	if (t->sanitized) {
		g = pto_gm_task_get(t);
		if (!g)
			return -ENOMEM;
	}
	while (len) {
		size_t off = (unsigned long)gm % PTO_GM_LINE;
		size_t n = min_t(size_t, len, PTO_GM_LINE - off);
		unsigned long idx = pto_gm_idx(gm);
		struct pto_gm_line *d = v->ndirty ?
			pto_gm_find(v->dirty, PTO_GM_VIEW_BITS, idx) : NULL;

		if (!d) {
			if (v->ndirty >= PTO_GM_DIRTY_MAX) {
				ret = pto_gm_publish(v, t, false);
				if (ret)
					return ret;
			}
			d = kmalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);
			if (!d)
				return -ENOMEM;
			d->mask = 0;
			pto_gm_insert(v->dirty, PTO_GM_VIEW_BITS, &d->k, idx);
			v->ndirty++;
		}
		memcpy(d->data + off, src, n);
		d->mask |= pto_gm_mask(off, n);
		d->pc = a->pc;
		d->tensor = a->tensor;
		if (g) {
			ret = pto_gm_pend_note(v, g, idx, d);
			if (ret)
				return ret;
		}
		gm += n;
		src += n;
		len -= n;
	}
	return 0;
}

static int pto_gm_xfer(struct pto_gm_view *v, const struct pto_gm_access *a,
		       u8 *gm, u8 *lb, size_t n, bool load)
{
	if (!load)
		return pto_gm_store(v, a, gm, lb, n);
	pto_gm_load(v, a, gm, lb, n);
	return 0;
}

/**
 * pto_gm_copy_tile - TLOAD or TSTORE through a unit's view
 * @v: the unit's view
 * @a: the access (its tensor holds the window)
 * @row: first row of the window, which lies within the view
 * @col: its first column
 * @tl: the tile's layout
 * @tile: the tile's local memory
 * @load: GM to the tile, else the tile to GM
 *
 * As pto_targ_copy_tile(), a run of GM at a time.
 *
 * Return: 0, or -ENOMEM.
 */
int pto_gm_copy_tile(struct pto_gm_view *v, const struct pto_gm_access *a,
		     u64 row, u64 col, const struct pto_tile_layout *tl,
		     u8 *tile, bool load)
{
	const struct pto_targ *t = &a->task->targs[a->tensor];
	size_t rowbytes = (size_t)tl->cols * tl->esize;
	int ret = 0;
	u32 i, j;

	for (i = 0; i < tl->rows && !ret; i++) {
		u8 *gm = t->base + pto_targ_offset(t, row + i, col) * t->esize;
		u8 *lb = tile + i * rowbytes;

		if (t->col_stride == 1) {
			ret = pto_gm_xfer(v, a, gm, lb, rowbytes, load);
			continue;
		}
		for (j = 0; j < tl->cols && !ret; j++)
			ret = pto_gm_xfer(v, a,
					  gm + (u64)j * t->col_stride * t->esize,
					  lb + j * tl->esize, tl->esize, load);
	}
	return ret;
}

/**
 * pto_gm_fence - FENCE: publish the unit's stores to its task
 * @v: the unit's view
 * @t: its task
 *
 * Return: 0, or -ENOMEM.
 */
int pto_gm_fence(struct pto_gm_view *v, struct pto_task *t)
{
	/* This core's GM writes before anything it does next. */
	smp_mb();
	return v->on ? pto_gm_publish(v, t, true) : 0;
}

/**
 * pto_gm_invalidate - CACHEINVALID: see what the task's units published
 * @v: the unit's view
 * @t: its task
 * @gm: NULL for the whole GM, else an address whose line alone is
 *      invalidated (the tensor form: its view's base)
 *
 * Return: 0, or -ENOMEM.
 */
int pto_gm_invalidate(struct pto_gm_view *v, struct pto_task *t,
		      const u8 *gm)
{
	struct pto_gm_inval *iv;
	struct pto_gm_task *g;
	u64 seq;

	/* Pairs with FENCE on the writer: see its writes after this. */
	smp_rmb();
	if (!v->on)
		return 0;
	g = pto_gm_task_peek(t);
	if (!g) {
		seq = 0;
	} else if (gm) {
		seq = READ_ONCE(g->seq);
	} else {
		mutex_lock(&g->lock);
		seq = g->seq;
		pto_gm_set_epoch(g, t, v->unit, seq);
		mutex_unlock(&g->lock);
	}
	if (!gm) {
		v->epoch = seq;
		pto_gm_inval_clear(v);
		return 0;
	}
	iv = pto_gm_find(v->inval, PTO_GM_INVAL_BITS, pto_gm_idx(gm));
	if (!iv) {
		iv = kmalloc(sizeof(*iv), GFP_KERNEL_ACCOUNT);
		if (!iv)
			return -ENOMEM;
		pto_gm_insert(v->inval, PTO_GM_INVAL_BITS, &iv->k,
			      pto_gm_idx(gm));
		v->ninval++;
	}
	iv->seq = seq;
	return 0;
}

/**
 * pto_gm_view_end - the unit has ended: write its stores back
 * @v: its view
 * @t: its task
 *
 * Return: 0, or -ENOMEM (the stores are then lost: the unit fails).
 */
int pto_gm_view_end(struct pto_gm_view *v, struct pto_task *t)
{
	struct pto_gm_task *g;
	int ret = 0;

	if (v->live) {
		ret = pto_gm_publish(v, t, false);
		g = pto_gm_task_peek(t);
		if (g) {
			mutex_lock(&g->lock);
			pto_gm_set_epoch(g, t, v->unit, U64_MAX);
			mutex_unlock(&g->lock);
		}
	}
	pto_gm_view_drop(v);
	return ret;
}

/**
 * pto_gm_atomic_add - ATOMIC_ADD, performed at GM (coherent, as the
 * chip's atomics are performed beside it)
 * @v: the unit's view
 * @a: the access
 * @gm: the int32 element
 * @add: what to add
 * @old: out: the value before
 *
 * The unit's own unpublished bytes of the line are written back first. The
 * task's other units see the new value at their next CACHEINVALID once
 * the line has a history (someone published to it), else at once.
 *
 * Return: 0, or -ENOMEM.
 */
int pto_gm_atomic_add(struct pto_gm_view *v, const struct pto_gm_access *a,
		      u8 *gm, s32 add, s32 *old)
{
	unsigned long idx = pto_gm_idx(gm);
	struct pto_task *t = a->task;
	struct pto_gm_task *g = NULL;
	struct pto_gm_line *d;
	struct pto_gm_hist *h;

	if (v->on) {
		d = v->ndirty ? pto_gm_find(v->dirty, PTO_GM_VIEW_BITS, idx) :
				NULL;
		g = d ? pto_gm_task_get(t) : pto_gm_task_peek(t);
		if (d && !g)
			return -ENOMEM;
	}
	if (g)
		mutex_lock(&g->lock);
	if (v->on && v->ndirty) {
		d = pto_gm_find(v->dirty, PTO_GM_VIEW_BITS, idx);
		if (d)
			pto_gm_publish_line(v, t, g, idx, d, PTO_GM_END);
	}
	*old = atomic_fetch_add(add, (atomic_t *)gm);
	h = g ? pto_gm_find(g->hist, PTO_GM_TASK_BITS, idx) : NULL;
	if (h) {
		struct pto_gm_line l = {
			.mask = pto_gm_mask((unsigned long)gm % PTO_GM_LINE, 4),
			.pc = a->pc,
			.tensor = a->tensor,
		};

		memcpy(l.data, pto_gm_line_addr(idx), PTO_GM_LINE);
		pto_gm_hist_add(g, idx, &l, ++g->seq, v->unit);
	}
	if (g)
		mutex_unlock(&g->lock);
	return 0;
}
