// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: a task's GM history (Documentation/memory-model.rst): the lines
 * its units published, in order, with the sanitizer's record of the lines
 * they hold unpublished; made by the first unit that needs it, bounded by
 * PTO_GM_HIST_MAX, and freed once the task completes (pto_gm_task_retire()),
 * not when its completions are reaped. pto_gm.c composes the units' views
 * from it.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "pto_gm_hist.h"

struct pto_gm_task *pto_gm_task_peek(struct pto_task *t)
{
	/* Pairs with the cmpxchg_release() that published it. */
	return smp_load_acquire(&t->gm);
}

/* The task's history, allocated by its first user. */
struct pto_gm_task *pto_gm_task_get(struct pto_task *t)
{
	struct pto_gm_task *g = pto_gm_task_peek(t), *old;

	if (g)
		return g;
	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		return NULL;
	g->epochs = kcalloc(t->units, sizeof(*g->epochs), GFP_KERNEL_ACCOUNT);
	if (!g->epochs) {
		kfree(g);
		return NULL;
	}
	mutex_init(&g->lock);
	old = cmpxchg_release(&t->gm, NULL, g);
	if (old) {
		mutex_destroy(&g->lock);
		kfree(g->epochs);
		kfree(g);
		return old;
	}
	return g;
}

static void pto_gm_hist_free(struct pto_gm_task *g)
{
	struct pto_gm_pends *ps;
	struct pto_gm_hist *h;
	struct hlist_node *tmp;
	u32 b;

	for (b = 0; b < ARRAY_SIZE(g->hist); b++) {
		hlist_for_each_entry_safe(h, tmp, &g->hist[b], k.node) {
			kfree(h->v);
			kfree(h);
		}
		hlist_for_each_entry_safe(ps, tmp, &g->pend[b], k.node) {
			kfree(ps->p);
			kfree(ps);
		}
		cond_resched();
	}
	mutex_destroy(&g->lock);
	kfree(g->epochs);
	kfree(g);
}

/**
 * pto_gm_task_free - free a task's GM history (no unit of it runs)
 * @t: the task
 */
void pto_gm_task_free(struct pto_task *t)
{
	if (t->gm)
		pto_gm_hist_free(t->gm);
	t->gm = NULL;
}

/*
 * Histories of completed tasks, freed by a work item: up to
 * PTO_GM_HIST_MAX bytes in small pieces, too much to free under the
 * scheduler lock where the task completes.
 */
static LLIST_HEAD(pto_gm_gc);

static void pto_gm_gc_fn(struct work_struct *work)
{
	struct pto_gm_task *g, *tmp;

	llist_for_each_entry_safe(g, tmp, llist_del_all(&pto_gm_gc), gc)
		pto_gm_hist_free(g);
}

static DECLARE_WORK(pto_gm_gc_work, pto_gm_gc_fn);

/**
 * pto_gm_task_retire - a task completed: its history is no longer needed
 * @t: the task, DONE (no unit of it runs; under the scheduler lock)
 *
 * A completed task may wait long for CQ space (held), or for its CQEs to
 * be reaped: what only its units read goes now, not when it is freed.
 */
void pto_gm_task_retire(struct pto_task *t)
{
	struct pto_gm_task *g = t->gm;

	if (!g)
		return;
	t->gm = NULL;
	if (llist_add(&g->gc, &pto_gm_gc))
		queue_work(system_unbound_wq, &pto_gm_gc_work);
}

/**
 * pto_gm_gc_flush - free the retired histories now (module unload)
 */
void pto_gm_gc_flush(void)
{
	flush_work(&pto_gm_gc_work);
}

/*
 * Publications every unit that may still load sees (up to the least
 * epoch, write-backs excepted) become part of the line's first state: a
 * line's history stays as short as the units' invalidations allow.
 */
void pto_gm_fold(struct pto_gm_task *g, struct pto_gm_hist *h)
{
	u32 i, n = 0;

	if (!h->n || h->v[0].seq > g->min_epoch)
		return;
	for (i = 0; i < h->n; i++) {
		struct pto_gm_ver *ver = &h->v[i];

		if (ver->seq != PTO_GM_END && ver->seq <= g->min_epoch)
			pto_gm_merge(h->pre, ver->data, ver->mask);
		else if (n++ != i)
			h->v[n - 1] = *ver;
	}
	h->n = n;
}

/* A unit's epoch changed (@e; U64_MAX: it ended): the least of them. */
void pto_gm_set_epoch(struct pto_gm_task *g, const struct pto_task *t,
		      u32 unit, u64 e)
{
	u64 min = U64_MAX;
	u32 i;

	g->epochs[unit] = e;
	for (i = 0; i < t->units; i++)
		min = min(min, g->epochs[i]);
	g->min_epoch = min;
}

/*
 * Append a publication of @d (line @idx) to the task's history; a line
 * whose history cannot grow loses it and is coherent from then on.
 */
void pto_gm_hist_add(struct pto_gm_task *g, unsigned long idx,
		     const struct pto_gm_line *d, u64 seq, u32 unit)
{
	struct pto_gm_hist *h = pto_gm_find(g->hist, PTO_GM_TASK_BITS, idx);
	struct pto_gm_ver *ver;

	if (!h) {
		if (g->bytes + sizeof(*h) > PTO_GM_HIST_MAX)
			return;
		h = kzalloc(sizeof(*h), GFP_KERNEL_ACCOUNT);
		if (!h)
			return;
		memcpy(h->pre, pto_gm_line_addr(idx), PTO_GM_LINE);
		pto_gm_insert(g->hist, PTO_GM_TASK_BITS, &h->k, idx);
		g->bytes += sizeof(*h);
	}
	if (h->n == h->cap) {
		u32 cap = max_t(u32, 2, h->cap * 2);

		ver = g->bytes + (cap - h->cap) * sizeof(*ver) > PTO_GM_HIST_MAX ?
		      NULL : krealloc_array(h->v, cap, sizeof(*ver), GFP_KERNEL_ACCOUNT);
		if (!ver) {
			hlist_del(&h->k.node);
			g->bytes -= sizeof(*h) + h->cap * sizeof(*ver);
			kfree(h->v);
			kfree(h);
			return;
		}
		g->bytes += (cap - h->cap) * sizeof(*ver);
		h->v = ver;
		h->cap = cap;
	}
	ver = &h->v[h->n++];
	ver->seq = seq;
	ver->mask = d->mask;
	ver->unit = unit;
	ver->pc = d->pc;
	ver->tensor = d->tensor;
	memcpy(ver->data, d->data, PTO_GM_LINE);
}

/* Sanitizer: @unit no longer holds line @idx unpublished; g->lock held. */
void pto_gm_pend_drop(struct pto_gm_task *g, unsigned long idx,
		      u32 unit)
{
	struct pto_gm_pends *ps = pto_gm_find(g->pend, PTO_GM_TASK_BITS, idx);
	u32 i;

	for (i = 0; ps && i < ps->n; i++) {
		if (ps->p[i].unit != unit)
			continue;
		memmove(&ps->p[i], &ps->p[i + 1],
			(ps->n - i - 1) * sizeof(ps->p[0]));
		if (--ps->n)
			return;
		/* No unit holds the line: its record goes (and its bytes). */
		hlist_del(&ps->k.node);
		g->bytes -= sizeof(*ps) + ps->cap * sizeof(ps->p[0]);
		kfree(ps->p);
		kfree(ps);
		return;
	}
}

/* Sanitizer: the unit holds line @idx unpublished. */
int pto_gm_pend_note(struct pto_gm_view *v, struct pto_gm_task *g,
		     unsigned long idx, const struct pto_gm_line *d)
{
	struct pto_gm_pends *ps;
	struct pto_gm_pend *p;
	int ret = -ENOMEM;
	u32 i;

	mutex_lock(&g->lock);
	ps = pto_gm_find(g->pend, PTO_GM_TASK_BITS, idx);
	if (!ps) {
		/* Within the history's cap, else the line goes unchecked. */
		ret = 0;
		if (g->bytes + sizeof(*ps) > PTO_GM_HIST_MAX)
			goto out;
		ret = -ENOMEM;
		ps = kzalloc(sizeof(*ps), GFP_KERNEL_ACCOUNT);
		if (!ps)
			goto out;
		g->bytes += sizeof(*ps);
		pto_gm_insert(g->pend, PTO_GM_TASK_BITS, &ps->k, idx);
	}
	for (i = 0; i < ps->n && ps->p[i].unit != v->unit; i++)
		;
	if (i == ps->n) {
		if (ps->n == ps->cap) {
			u32 cap = max_t(u32, 2, ps->cap * 2);

			ret = 0;
			if (g->bytes + (cap - ps->cap) * sizeof(*p) >
			    PTO_GM_HIST_MAX)
				goto out;
			ret = -ENOMEM;
			p = krealloc_array(ps->p, cap, sizeof(*p),
					   GFP_KERNEL_ACCOUNT);
			if (!p)
				goto out;
			g->bytes += (cap - ps->cap) * sizeof(*p);
			ps->p = p;
			ps->cap = cap;
		}
		ps->p[ps->n++].unit = v->unit;
	}
	p = &ps->p[i];
	p->mask = d->mask;
	p->pc = d->pc;
	p->tensor = d->tensor;
	ret = 0;
out:
	mutex_unlock(&g->lock);
	return ret;
}
