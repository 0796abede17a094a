// SPDX-License-Identifier: MIT
/*
 * libpto: the device scheduler's phases in a graph's last run, from its
 * scheduler records (pto_graph_task_sched()), for every file that shows
 * them: the swimlane's scheduler lanes (trace.c) and simpler's
 * aicpu_scheduler_phases (trace_simpler.c).
 *
 * The device's scheduler works under one lock, one thread at a time. Its
 * iterations (an intake, or one unit's end, with the placements made
 * then) are numbered from 1 over the run (loop). Per iteration:
 *
 *   complete        a unit's end handled (resolve included): outer
 *   dispatch        a placement pass's units placed: outer
 *   early_dispatch  units pre-staged (allow_early_resolve): outer
 *   resolve         a task's consumers walked at its completion: inner
 *   predicated_skip a task retired inline by a false predicate: inner
 *
 * Phases of one kind merge per iteration (pre-staging: per pass; resolve
 * and skip: per task). Pre-staging happens inside a completion's walk or a
 * placement pass, and outer phases exclude each other: the enclosing phase
 * is cut around it, its count on its first part.
 */
#include <errno.h>
#include <stdlib.h>

#include "pto/pto.h"
#include "graph_internal.h"

const char *const pto_phase_name[PTO_PHASE_KINDS] = {
	[PTO_PHASE_COMPLETE] = "complete", [PTO_PHASE_DISPATCH] = "dispatch",
	[PTO_PHASE_EARLY] = "early_dispatch", [PTO_PHASE_RESOLVE] = "resolve",
	[PTO_PHASE_SKIP] = "predicated_skip",
};

/* A phase as recorded: its iteration, not yet the run's loop number. */
struct ph_raw {
	uint64_t b, e;
	uint32_t iter;
	unsigned int kind;
	size_t n;
	size_t task;
};

static const struct pto_graph_task *ph_task(const struct pto_graph *g,
					    size_t i)
{
	return PTO_VEC_AT(&g->tasks, struct pto_graph_task, i);
}

const struct pto_sched_rec *pto_graph_sched_at(const struct pto_graph *g,
					       size_t i, unsigned int k)
{
	const struct pto_graph_task *t = ph_task(g, i);

	return g->scheds && k < t->nblocks ? &g->scheds[t->block_off + k] :
					     NULL;
}

bool pto_graph_have_sched(const struct pto_graph *g)
{
	size_t i;

	for (i = 0; g->scheds && i < g->total_blocks; i++)
		if (g->scheds[i].intake_iter)
			return true;
	return false;
}

static int ph_cmp_iter(const void *a, const void *b)
{
	const struct ph_raw *x = a, *y = b;

	if (x->iter != y->iter)
		return x->iter < y->iter ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	/* Pre-staging passes of one iteration apart; all else merges. */
	if (x->kind == PTO_PHASE_EARLY && x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->kind >= PTO_PHASE_RESOLVE && x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return 0;
}

static int ph_cmp_start(const void *a, const void *b)
{
	const struct ph_raw *x = a, *y = b;

	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->e != y->e)
		return x->e > y->e ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static int ph_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void ph_add(struct ph_raw *ph, size_t *n, uint64_t b, uint64_t e,
		   uint32_t iter, unsigned int kind, size_t cnt, size_t task)
{
	if (!iter || !e || e < b)
		return;
	ph[(*n)++] = (struct ph_raw){ b, e, iter, kind, cnt, task };
}

/* The phases of the run, one per kind and iteration (and pass), merged. */
static size_t ph_collect(const struct pto_graph *g, struct ph_raw *ph)
{
	size_t n = 0, i, j, m;

	for (i = 0; i < g->tasks.n; i++) {
		const struct pto_graph_task *t = ph_task(g, i);
		const struct pto_sched_rec *r = pto_graph_sched_at(g, i, 0);
		unsigned int k;

		if (!r)
			continue;
		ph_add(ph, &n, r->resolve_begin, r->resolve_end,
		       r->resolve_iter, PTO_PHASE_RESOLVE, r->resolved, i);
		if (t->status == PTO_STATUS_SKIPPED)
			ph_add(ph, &n, g->blocks[t->block_off].ts_finish,
			       r->resolve_end, r->resolve_iter, PTO_PHASE_SKIP,
			       1, i);
		for (k = 0; (r = pto_graph_sched_at(g, i, k)); k++) {
			ph_add(ph, &n, r->complete_begin, r->complete_end,
			       r->complete_iter, PTO_PHASE_COMPLETE, 1, i);
			ph_add(ph, &n, r->dispatch_begin, r->dispatch_end,
			       r->dispatch_iter,
			       r->flags & PTO_SCHED_STAGED ? PTO_PHASE_EARLY :
							     PTO_PHASE_DISPATCH,
			       1, i);
		}
	}
	qsort(ph, n, sizeof(*ph), ph_cmp_iter);
	for (i = 0, m = 0; i < n; i = j) {
		ph[m] = ph[i];
		for (j = i + 1; j < n && !ph_cmp_iter(&ph[i], &ph[j]); j++) {
			if (ph[j].b < ph[m].b)
				ph[m].b = ph[j].b;
			if (ph[j].e > ph[m].e)
				ph[m].e = ph[j].e;
			ph[m].n += ph[j].n;
		}
		m++;
	}
	return m;
}

static void ph_put(struct pto_phase *out, size_t *no, const struct ph_raw *p,
		   uint64_t b, uint64_t e, size_t loop, size_t n)
{
	out[(*no)++] = (struct pto_phase){ b, e, loop, p->kind, n, p->task };
}

/* The phase of @ph[0..@n) that owns the instant @at: the innermost. */
static size_t ph_owner(const struct ph_raw *ph, size_t n, uint64_t at)
{
	size_t i, o = n;

	for (i = 0; i < n; i++)
		if (ph[i].b < ph[i].e && ph[i].b <= at && at < ph[i].e &&
		    (o == n || ph[i].b > ph[o].b ||
		     (ph[i].b == ph[o].b && ph[i].e < ph[o].e)))
			o = i;
	return o;
}

/*
 * The outer phases of one iteration, @ph[0..@n) sorted by start: each
 * instant goes to the innermost phase covering it (the latest to begin),
 * so that none overlaps another; a phase cut in parts has its count on
 * the first. @pt, @counted: room for 2 @n points and @n flags.
 */
static void ph_put_outer(struct pto_phase *out, size_t *no,
			 const struct ph_raw *ph, size_t n, size_t loop,
			 uint64_t *pt, bool *counted)
{
	size_t np = 0, m = 0, i, o, prev = n;
	uint64_t from = 0;

	for (i = 0; i < n; i++) {
		counted[i] = false;
		if (ph[i].b == ph[i].e) {
			/* An instant: overlaps nothing. */
			ph_put(out, no, &ph[i], ph[i].b, ph[i].e, loop,
			       ph[i].n);
			continue;
		}
		pt[np++] = ph[i].b;
		pt[np++] = ph[i].e;
	}
	qsort(pt, np, sizeof(*pt), ph_cmp_u64);
	for (i = 0; i < np; i++)
		if (!m || pt[i] != pt[m - 1])
			pt[m++] = pt[i];
	/* Each point starts a segment (the last: none) with one owner. */
	for (i = 0; i < m; i++) {
		o = i + 1 < m ? ph_owner(ph, n, pt[i]) : n;
		if (o == prev)
			continue;
		if (prev < n) {
			ph_put(out, no, &ph[prev], from, pt[i], loop,
			       counted[prev] ? 0 : ph[prev].n);
			counted[prev] = true;
		}
		prev = o;
		from = pt[i];
	}
}

int pto_graph_phases(const struct pto_graph *g, struct pto_phase **phases,
		     size_t *count)
{
	size_t cap = 3 * g->total_blocks + 2 * g->tasks.n + 1;
	struct ph_raw *ph = calloc(cap, sizeof(*ph));
	/* Cutting: n outer phases become at most 2n - 1 parts. */
	struct pto_phase *out = calloc(2 * cap, sizeof(*out));
	uint64_t *pt = calloc(2 * cap, sizeof(*pt));
	bool *counted = calloc(cap, sizeof(*counted));
	size_t n, i, j, no = 0, loop = 0;

	*phases = NULL;
	*count = 0;
	if (!ph || !out || !pt || !counted) {
		free(ph);
		free(out);
		free(pt);
		free(counted);
		return -ENOMEM;
	}
	n = ph_collect(g, ph);
	for (i = 0; i < n; i = j) {
		size_t outer = 0;

		/* loop: the run's iterations, in order, from 1. */
		loop++;
		for (j = i; j < n && ph[j].iter == ph[i].iter; j++)
			;
		/* Sorted by kind: the outer phases come first. */
		while (i + outer < j && ph[i + outer].kind < PTO_PHASE_RESOLVE)
			outer++;
		qsort(&ph[i], outer, sizeof(*ph), ph_cmp_start);
		ph_put_outer(out, &no, &ph[i], outer, loop, pt, counted);
		for (i += outer; i < j; i++)
			ph_put(out, &no, &ph[i], ph[i].b, ph[i].e, loop,
			       ph[i].n);
	}
	free(ph);
	free(pt);
	free(counted);
	*phases = out;
	*count = no;
	return 0;
}

static int ph_cmp_intake(const void *a, const void *b)
{
	const struct pto_phase *x = a, *y = b;

	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

int pto_graph_intakes(const struct pto_graph *g, struct pto_phase **intakes,
		      size_t *count)
{
	struct pto_phase *in = calloc(g->tasks.n + 1, sizeof(*in));
	size_t n = 0, i;

	*intakes = NULL;
	*count = 0;
	if (!in)
		return -ENOMEM;
	for (i = 0; i < g->tasks.n; i++) {
		const struct pto_sched_rec *r = pto_graph_sched_at(g, i, 0);

		if (r && r->intake_iter && r->intake_end &&
		    r->intake_begin <= r->intake_end)
			in[n++] = (struct pto_phase){ .b = r->intake_begin,
						      .e = r->intake_end,
						      .task = i };
	}
	qsort(in, n, sizeof(*in), ph_cmp_intake);
	*intakes = in;
	*count = n;
	return 0;
}
