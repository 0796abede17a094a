// SPDX-License-Identifier: MIT
/*
 * libpto: the swimlane (Chrome Trace Event JSON, opened by Perfetto UI and
 * chrome://tracing) and deps.json of a graph's last run.
 *
 * Lanes: process = device; thread 1 = the scheduler (no lane is thread 0,
 * which parsers read as "no thread"); then one thread per core, AIC_0..
 * then AIV_0...; with the scheduler's records (uapi 6), the doorbell's
 * intakes and the scheduler's completion walks after them. Timestamps are
 * microseconds from the run's first intake or dispatch; otherData gives
 * that moment's CLOCK_MONOTONIC time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pto/pto.h"
#include "graph_internal.h"

#define PTO_TRACE_SCHED_TID 1
/* thread_sort_index of the lanes (Documentation/swimlane.rst). */
#define PTO_TRACE_ORDER_INTAKE 0
#define PTO_TRACE_ORDER_SCHED 1
#define PTO_TRACE_ORDER_RESOLVE 2
#define PTO_TRACE_ORDER_CORES 3

#ifndef PTO_VERSION
#define PTO_VERSION "unknown"
#endif

struct pto_trace_ctx {
	FILE *f;
	const struct pto_graph *g;
	uint64_t t0;
	unsigned int aic;
	/* The scheduler records' lanes (0: the run has none). */
	unsigned int intake_tid, resolve_tid;
	unsigned int pid;
	bool first;
	uint64_t flow_id;
};

static const struct pto_graph_task *task_at(const struct pto_graph *g,
					    size_t i)
{
	return PTO_VEC_AT(&g->tasks, struct pto_graph_task, i);
}

const char *pto_trace_task_name(const struct pto_graph *g, size_t i,
				char *buf, size_t len)
{
	const char *n = pto_graph_name_at(g, task_at(g, i)->name);

	if (n && *n)
		return n;
	snprintf(buf, len, "task %zu", i);
	return buf;
}

/*
 * Length of the well-formed UTF-8 sequence at @s (RFC 3629: no overlong
 * forms, no surrogates, at most U+10FFFF), or 0.
 */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* See graph_internal.h: the file stays valid JSON whatever a task was named. */
void pto_json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		size_t n = utf8_len(s);

		if (!n) {
			fputs("\\ufffd", f);
			s++;
		} else if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s++);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s++);
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
	}
	fputc('"', f);
}

const char *pto_trace_shape_name(const struct pto_graph_task *t)
{
	if (t->kernel[0] && t->kernel[1])
		return "MIX";
	return t->kernel[0] ? "AIV" : "AIC";
}

const char *pto_trace_cmp_name(unsigned int op)
{
	static const char *const n[] = { "EQ", "NE", "GT", "LT", "GE", "LE" };

	return op < 6 ? n[op] : "?";
}

static double us(const struct pto_trace_ctx *c, uint64_t ns)
{
	return ns >= c->t0 ? (double)(ns - c->t0) / 1000.0 : 0.0;
}

static unsigned int lane(const struct pto_trace_ctx *c,
			 const struct pto_block_info *b)
{
	if (b->core_type == PTO_CORE_AIC)
		return PTO_TRACE_SCHED_TID + 1 + b->core;
	return PTO_TRACE_SCHED_TID + 1 + c->aic + b->core;
}

static void sep(struct pto_trace_ctx *c)
{
	fputs(c->first ? "\n" : ",\n", c->f);
	c->first = false;
}

static void meta(struct pto_trace_ctx *c, unsigned int tid, const char *name,
		 unsigned int order)
{
	sep(c);
	fprintf(c->f,
		"{\"ph\":\"M\",\"cat\":\"__metadata\",\"pid\":%u,\"tid\":%u,\"ts\":0,\"name\":\"thread_name\",\"args\":{\"name\":",
		c->pid, tid);
	pto_json_str(c->f, name);
	fputs("}},\n", c->f);
	fprintf(c->f,
		"{\"ph\":\"M\",\"cat\":\"__metadata\",\"pid\":%u,\"tid\":%u,\"ts\":0,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%u}}",
		c->pid, tid, order);
}

static const struct pto_block_info *blocks_of(const struct pto_graph *g,
					      size_t i, unsigned int *n)
{
	const struct pto_graph_task *t = task_at(g, i);

	*n = t->nblocks;
	return g->blocks ? g->blocks + t->block_off : NULL;
}

static bool ran_on_core(const struct pto_block_info *b)
{
	return b->core_type && b->ts_start;
}

/* The unit that ends last / starts first: where dependency arrows attach. */
static const struct pto_block_info *edge_unit(const struct pto_graph *g,
					      size_t i, bool last)
{
	const struct pto_block_info *bl, *best = NULL;
	unsigned int n, k;

	bl = blocks_of(g, i, &n);
	for (k = 0; bl && k < n; k++) {
		if (!ran_on_core(&bl[k]))
			continue;
		if (!best || (last ? bl[k].ts_end > best->ts_end :
				     bl[k].ts_start < best->ts_start))
			best = &bl[k];
	}
	return best;
}

/* What a wait is called on its slice. */
static const char *wait_label(uint32_t kind)
{
	switch (kind) {
	case PTO_WAIT_STAGED:
		return "staged";
	case PTO_WAIT_RING_POP:
		return "wait: ring POP";
	case PTO_WAIT_RING_PUSH:
		return "wait: ring PUSH";
	case PTO_WAIT_BARRIER_HARD:
		return "barrier: HARD";
	case PTO_WAIT_BARRIER_SOFT:
		return "barrier: SOFT";
	}
	return "wait";
}

/*
 * A block's waits, each its own slice on the block's lane: a ring or
 * barrier wait inside the block's bar (a child slice: the bar is the run,
 * the child what of it was not work), the staged interval before it.
 */
static void write_waits(struct pto_trace_ctx *c, size_t i, unsigned int k,
			const struct pto_block_info *b,
			const struct pto_block_prof *p)
{
	const struct pto_graph_task *t = task_at(c->g, i);
	unsigned int w, n = p->nwaits < PTO_PROF_WAITS ? p->nwaits :
							 PTO_PROF_WAITS;

	for (w = 0; w < n; w++) {
		const struct pto_wait *x = &p->waits[w];
		uint64_t begin = x->begin, end = x->end;

		/* Inside the bar (rings, barriers) or before it (staged). */
		if (x->kind != PTO_WAIT_STAGED) {
			if (begin < b->ts_start)
				begin = b->ts_start;
			if (end > b->ts_end)
				end = b->ts_end;
		}
		if (end < begin)
			end = begin;
		sep(c);
		fprintf(c->f,
			"{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"name\":\"%s\",\"cat\":\"wait\",\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"task_id\":%" PRIu64
			",\"graph_index\":%zu,\"block\":%u,\"unit\":%u,\"kind\":\"%s\",\"pc\":%u,\"begin_us\":%.3f,\"end_us\":%.3f}}",
			c->pid, lane(c, b), wait_label(x->kind), us(c, begin),
			(double)(end - begin) / 1000.0, t->task_id, i, b->block,
			k, pto_wait_kind_name(x->kind), x->pc, us(c, x->begin),
			us(c, x->end));
	}
}

/* The sanitizer's report on unit @b of task @i, as its bar's arg. */
static void write_hazard_arg(struct pto_trace_ctx *c, size_t i,
			     const struct pto_block_info *b)
{
	unsigned int h, n = pto_graph_hazard_count(c->g);
	char text[400];

	for (h = 0; h < n; h++) {
		const struct pto_graph_hazard *x =
			PTO_VEC_AT(&c->g->hazards, struct pto_graph_hazard, h);

		if (x->task != i || x->cqe.info.block != b->block ||
		    x->cqe.info.core != b->core ||
		    x->cqe.info.core_type != b->core_type)
			continue;
		if (pto_graph_hazard_str(c->g, h, text, sizeof(text)) < 0)
			return;
		fputs(",\"hazard\":", c->f);
		pto_json_str(c->f, text);
		return;
	}
}

static void write_units(struct pto_trace_ctx *c, size_t i)
{
	const struct pto_graph_task *t = task_at(c->g, i);
	const struct pto_block_info *bl;
	const struct pto_block_prof *pr = NULL;
	char nbuf[32];
	const char *name = pto_trace_task_name(c->g, i, nbuf, sizeof(nbuf));
	unsigned int n, np = 0, k;

	bl = blocks_of(c->g, i, &n);
	if (pto_graph_task_waits(c->g, (unsigned int)i, &pr, &np) || np != n)
		pr = NULL;
	for (k = 0; bl && k < n; k++) {
		const struct pto_block_info *b = &bl[k];
		bool staged = b->flags & PTO_BLOCK_STAGED;
		double start = us(c, b->ts_start), end = us(c, b->ts_end);

		if (!ran_on_core(b))
			continue;
		sep(c);
		fprintf(c->f, "{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"name\":",
			c->pid, lane(c, b));
		pto_json_str(c->f, name);
		fprintf(c->f,
			",\"cat\":\"%s\",\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"task_id\":%" PRIu64
			",\"graph_index\":%zu,\"block\":%u,\"unit\":%u,\"core\":\"%s_%u\",\"shape\":\"%s\",\"status\":\"%s\",\"staged\":%s,"
			"\"dispatch_us\":%.3f,\"receive_us\":%.3f,\"start_us\":%.3f,\"end_us\":%.3f,\"finish_us\":%.3f",
			"block", start,
			end > start ? end - start : 0.001, t->task_id, i,
			b->block, k,
			b->core_type == PTO_CORE_AIC ? "AIC" : "AIV", b->core,
			pto_trace_shape_name(t), pto_status_name(b->status),
			staged ? "true" : "false", us(c, b->ts_dispatch),
			us(c, b->ts_receive), start, end, us(c, b->ts_finish));
		if (staged)
			fprintf(c->f, ",\"release_us\":%.3f", us(c, b->ts_receive));
		if (c->g->replay.on)
			fprintf(c->f, ",\"launch\":%" PRIu64 ",\"graph\":%u",
				c->g->replay.launch, c->g->replay.graph);
		if (pr)
			fprintf(c->f, ",\"waits\":%u,\"wait_us\":%.3f",
				pr[k].nwaits, (double)pr[k].wait_ns / 1000.0);
		if (b->flags & PTO_BLOCK_HAZARD)
			write_hazard_arg(c, i, b);
		fputs("}}", c->f);
		if (pr)
			write_waits(c, i, k, b, &pr[k]);
		/* The [dispatch, start] wait: an async slice, apart from the bars. */
		sep(c);
		fprintf(c->f,
			"{\"ph\":\"b\",\"pid\":%u,\"tid\":%u,\"cat\":\"dispatch\",\"name\":\"dispatch to start\",\"id\":\"d%zu_%u\",\"ts\":%.3f,\"args\":{\"task_id\":%" PRIu64
			",\"block\":%u,\"staged\":%s}},\n"
			"{\"ph\":\"e\",\"pid\":%u,\"tid\":%u,\"cat\":\"dispatch\",\"name\":\"dispatch to start\",\"id\":\"d%zu_%u\",\"ts\":%.3f}",
			c->pid, lane(c, b), i, k, us(c, b->ts_dispatch),
			t->task_id, b->block, staged ? "true" : "false", c->pid,
			lane(c, b), i, k, start);
	}
}

/* Skipped, refused or never-run tasks: a marker on the scheduler lane. */
static void write_markers(struct pto_trace_ctx *c, size_t i)
{
	const struct pto_graph_task *t = task_at(c->g, i);
	const struct pto_block_info *bl;
	unsigned int n, k;
	uint64_t ts = 0;
	char nbuf[32];

	bl = blocks_of(c->g, i, &n);
	for (k = 0; bl && k < n; k++) {
		if (ran_on_core(&bl[k]))
			return;
		if (bl[k].ts_finish > ts)
			ts = bl[k].ts_finish;
	}
	sep(c);
	fprintf(c->f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%u,\"tid\":%u,\"name\":",
		c->pid, PTO_TRACE_SCHED_TID);
	{
		char label[160];

		snprintf(label, sizeof(label), "%s %s",
			 t->status == PTO_STATUS_SKIPPED ? "skip" : "not run",
			 pto_trace_task_name(c->g, i, nbuf, sizeof(nbuf)));
		pto_json_str(c->f, label);
	}
	fprintf(c->f,
		",\"cat\":\"%s\",\"ts\":%.3f,\"args\":{\"task_id\":%" PRIu64
		",\"graph_index\":%zu,\"status\":\"%s\"}}",
		t->status == PTO_STATUS_SKIPPED ? "skip" : "not_run",
		us(c, ts), t->task_id, i, pto_status_name(t->status));
}

static void write_flows(struct pto_trace_ctx *c, size_t i)
{
	const struct pto_graph_task *t = task_at(c->g, i);
	const struct pto_block_info *to = edge_unit(c->g, i, false);
	unsigned int d;

	for (d = 0; to && d < pto_graph_ndeps(t); d++) {
		const struct pto_block_info *from =
			edge_unit(c->g, pto_graph_dep(c->g, t, d), true);
		if (!from)
			continue;
		/*
		 * Each end at its bar's own ts and cat: viewers bind a flow
		 * event to the slice of its thread it falls in (Perfetto, the
		 * enclosing one) or, DevTools' engine, to the slice with the same
		 * ts and cat. The arrow goes from the producer's bar (the one
		 * that ended last) to the consumer's (the first to start).
		 */
		c->flow_id++;
		sep(c);
		fprintf(c->f,
			"{\"ph\":\"s\",\"pid\":%u,\"tid\":%u,\"cat\":\"block\",\"name\":\"dependency\",\"id\":%" PRIu64
			",\"ts\":%.3f},\n"
			"{\"ph\":\"f\",\"bp\":\"e\",\"pid\":%u,\"tid\":%u,\"cat\":\"block\",\"name\":\"dependency\",\"id\":%" PRIu64
			",\"ts\":%.3f}",
			c->pid, lane(c, from), c->flow_id, us(c, from->ts_start),
			c->pid, lane(c, to), c->flow_id, us(c, to->ts_start));
	}
}

/* Counter series: ready-but-undispatched tasks by shape, busy cores by type. */
enum { CS_READY_AIV, CS_READY_AIC, CS_READY_MIX, CS_BUSY_AIC, CS_BUSY_AIV, CS_N };

struct cnt_ev {
	uint64_t ts;
	int series;
	int delta;
};

static int cnt_cmp(const void *x, const void *y)
{
	const struct cnt_ev *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	/* At one instant, ends before starts: a count never overshoots. */
	return a->delta - b->delta;
}

static int ready_series(const struct pto_graph_task *t)
{
	if (t->kernel[0] && t->kernel[1])
		return CS_READY_MIX;
	return t->kernel[0] ? CS_READY_AIV : CS_READY_AIC;
}

/*
 * When task @i became ready: the scheduler saw its last producer finish
 * (the latest ts_finish among their records) and had taken the task (its
 * intake's end, with scheduler records); a task without either at t0.
 */
static uint64_t ready_at(const struct pto_trace_ctx *c, size_t i)
{
	const struct pto_graph_task *t = task_at(c->g, i);
	const struct pto_sched_rec *s = pto_graph_sched_at(c->g, i, 0);
	uint64_t r = c->t0;
	unsigned int d, n, k;

	/* Not before the device took it (when its records say so). */
	if (s && s->intake_iter && s->intake_end > r)
		r = s->intake_end;
	for (d = 0; d < pto_graph_ndeps(t); d++) {
		const struct pto_block_info *bl =
			blocks_of(c->g, pto_graph_dep(c->g, t, d), &n);

		for (k = 0; bl && k < n; k++)
			if (bl[k].ts_finish > r)
				r = bl[k].ts_finish;
	}
	return r;
}

/*
 * Counter tracks ("ph":"C"), derived from the records, as the runtime's
 * own shared ready-queue counters: tasks ready but not yet dispatched, by
 * shape (from ready_at() to the first dispatch of a unit; a pre-staged
 * task is dispatched before it is ready and never counts), and busy cores
 * by type (each unit from its start to its end).
 */
static int write_counters(struct pto_trace_ctx *c)
{
	static const char *const series[CS_N] = { "AIV", "AIC", "MIX", "AIC", "AIV" };
	const struct pto_graph *g = c->g;
	struct cnt_ev *ev;
	size_t n = 0, cap = 0, i, j;
	int val[CS_N] = { 0 };

	for (i = 0; g->blocks && i < g->tasks.n; i++)
		cap += 2 + 2 * (size_t)task_at(g, i)->nblocks;
	ev = calloc(cap ? cap : 1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (i = 0; g->blocks && i < g->tasks.n; i++) {
		const struct pto_block_info *bl;
		uint64_t first = UINT64_MAX, ready;
		unsigned int nb, k;

		bl = blocks_of(g, i, &nb);
		for (k = 0; k < nb; k++) {
			if (bl[k].ts_dispatch && bl[k].ts_dispatch < first)
				first = bl[k].ts_dispatch;
			if (!ran_on_core(&bl[k]))
				continue;
			j = bl[k].core_type == PTO_CORE_AIC ? CS_BUSY_AIC : CS_BUSY_AIV;
			ev[n++] = (struct cnt_ev){ bl[k].ts_start, (int)j, 1 };
			ev[n++] = (struct cnt_ev){ bl[k].ts_end, (int)j, -1 };
		}
		ready = ready_at(c, i);
		if (first != UINT64_MAX && ready < first) {
			ev[n++] = (struct cnt_ev){ ready, ready_series(task_at(g, i)), 1 };
			ev[n++] = (struct cnt_ev){ first, ready_series(task_at(g, i)), -1 };
		}
	}
	qsort(ev, n, sizeof(*ev), cnt_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && ev[j].ts == ev[i].ts; j++)
			val[ev[j].series] += ev[j].delta;
		sep(c);
		fprintf(c->f,
			"{\"ph\":\"C\",\"cat\":\"counter\",\"pid\":%u,\"tid\":%u,\"name\":\"ready tasks\",\"ts\":%.3f,\"args\":{\"%s\":%d,\"%s\":%d,\"%s\":%d}},\n"
			"{\"ph\":\"C\",\"cat\":\"counter\",\"pid\":%u,\"tid\":%u,\"name\":\"busy cores\",\"ts\":%.3f,\"args\":{\"%s\":%d,\"%s\":%d}}",
			c->pid, PTO_TRACE_SCHED_TID, us(c, ev[i].ts),
			series[CS_READY_AIV], val[CS_READY_AIV],
			series[CS_READY_AIC], val[CS_READY_AIC],
			series[CS_READY_MIX], val[CS_READY_MIX], c->pid,
			PTO_TRACE_SCHED_TID, us(c, ev[i].ts),
			series[CS_BUSY_AIC], val[CS_BUSY_AIC],
			series[CS_BUSY_AIV], val[CS_BUSY_AIV]);
	}
	free(ev);
	return 0;
}

/* @ns on the file's time base, in us, exactly (3 decimals: 1 ns). */
static void put_us(struct pto_trace_ctx *c, const char *key, uint64_t ns)
{
	ns = ns >= c->t0 ? ns - c->t0 : 0;
	fprintf(c->f, "\"%s\":%" PRIu64 ".%03u", key, ns / 1000,
		(unsigned int)(ns % 1000));
}

/* A scheduler slice [@b, @e] on lane @tid; its args follow, then "}}". */
static void sched_slice(struct pto_trace_ctx *c, unsigned int tid,
			const char *name, size_t i, uint64_t b, uint64_t e)
{
	char nbuf[32], label[160];

	if (b < c->t0)
		b = c->t0;
	if (e < b)
		e = b;
	sep(c);
	fprintf(c->f, "{\"ph\":\"X\",\"cat\":\"sched\",\"pid\":%u,\"tid\":%u,\"name\":",
		c->pid, tid);
	if (i != SIZE_MAX) {
		snprintf(label, sizeof(label), "%s %s", name,
			 pto_trace_task_name(c->g, i, nbuf, sizeof(nbuf)));
		pto_json_str(c->f, label);
	} else {
		pto_json_str(c->f, name);
	}
	fputc(',', c->f);
	put_us(c, "ts", b);
	fprintf(c->f, ",\"dur\":%" PRIu64 ".%03u,\"args\":{",
		(e - b) / 1000, (unsigned int)((e - b) % 1000));
}

/*
 * The device scheduler's own work, from its records (uapi 6): each task's
 * intake on the doorbell lane; the outer phases of each iteration
 * (complete, dispatch, early_dispatch: sched_phases.c, cut so that none
 * overlaps another) on the scheduler lane; each completion's walk over
 * its consumers (resolve) on a lane of its own. Timestamps are exact in
 * ns, so that slices of one lane never overlap in a parser's integers.
 */
static int write_sched(struct pto_trace_ctx *c)
{
	const struct pto_graph *g = c->g;
	struct pto_phase *ph, *in;
	size_t n, i, ni;
	uint64_t last = 0;
	int ret;

	if (!c->intake_tid)
		return 0;
	ret = pto_graph_phases(g, &ph, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		const struct pto_phase *p = &ph[i];

		if (p->kind == PTO_PHASE_SKIP)
			continue;	/* the scheduler lane's skip marker */
		if (p->kind == PTO_PHASE_RESOLVE) {
			sched_slice(c, c->resolve_tid, "resolve", p->task, p->b,
				    p->e);
			fprintf(c->f,
				"\"task_id\":%" PRIu64 ",\"graph_index\":%zu,\"loop\":%zu,\"consumers\":%zu}}",
				task_at(g, p->task)->task_id, p->task, p->loop,
				p->n);
			continue;
		}
		sched_slice(c, PTO_TRACE_SCHED_TID, pto_phase_name[p->kind],
			    SIZE_MAX, p->b, p->e);
		fprintf(c->f, "\"loop\":%zu,\"units\":%zu}}", p->loop, p->n);
	}
	free(ph);

	ret = pto_graph_intakes(g, &in, &ni);
	if (ret)
		return ret;
	for (i = 0; i < ni; i++) {
		/* One doorbell takes one entry at a time. */
		uint64_t b = in[i].b > last ? in[i].b : last;
		uint64_t e = in[i].e > b ? in[i].e : b;

		sched_slice(c, c->intake_tid, "intake", in[i].task, b, e);
		fprintf(c->f, "\"task_id\":%" PRIu64 ",\"graph_index\":%zu}}",
			task_at(g, in[i].task)->task_id, in[i].task);
		last = e;
	}
	free(in);
	return 0;
}

/* The DRM client id of @fd (fdinfo drm-client-id: the tracepoints' ctx), or 0. */
/* A replayed run: the launch, first dispatch to retire, on the scheduler
 * lane as an async slice (it spans the lane's own slices). */
static void write_launch(struct pto_trace_ctx *c)
{
	const struct pto_graph *g = c->g;
	const struct pto_block_info *b = &g->replay.cqe.info;
	uint64_t from = b->ts_dispatch ? b->ts_dispatch : b->ts_finish;

	if (!g->replay.on || !g->replay.launch || !from)
		return;
	sep(c);
	fprintf(c->f,
		"{\"ph\":\"b\",\"pid\":%u,\"tid\":%u,\"cat\":\"launch\",\"name\":\"graph launch\",\"id\":\"L%" PRIu64
		"\",\"ts\":%.3f,\"args\":{\"task_id\":%" PRIu64
		",\"graph\":%u,\"nodes\":%zu,\"status\":\"%s\",\"failed_node\":%u}},\n"
		"{\"ph\":\"e\",\"pid\":%u,\"tid\":%u,\"cat\":\"launch\",\"name\":\"graph launch\",\"id\":\"L%" PRIu64
		"\",\"ts\":%.3f}",
		c->pid, PTO_TRACE_SCHED_TID, g->replay.launch, us(c, from),
		g->replay.launch, g->replay.graph, g->tasks.n,
		pto_status_name(b->status), b->block, c->pid,
		PTO_TRACE_SCHED_TID, g->replay.launch,
		us(c, b->ts_finish > from ? b->ts_finish : from));
}

static uint64_t drm_client_id(int fd)
{
	char path[64], line[128];
	uint64_t id = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "drm-client-id: %" SCNu64, &id) == 1)
			break;
	fclose(f);
	return id;
}

PTO_API int pto_graph_write_swimlane(const struct pto_graph *g,
				     const char *path)
{
	struct pto_trace_ctx c = { .g = g, .first = true, .t0 = UINT64_MAX };
	struct pto_device_info info;
	char name[32];
	size_t i;
	unsigned int k;
	int ret;

	if (!g || !path)
		return -EINVAL;
	ret = pto_device_query_info(g->dev, &info);
	if (ret)
		return ret;
	c.aic = info.aic_cores;
	c.pid = info.device_index + 1;
	for (i = 0; g->blocks && i < g->tasks.n; i++) {
		const struct pto_block_info *bl;
		unsigned int n;

		bl = blocks_of(g, i, &n);
		for (k = 0; k < n; k++) {
			uint64_t ts = bl[k].ts_dispatch ? bl[k].ts_dispatch :
							  bl[k].ts_finish;

			if (ts && ts < c.t0)
				c.t0 = ts;
		}
		/* The scheduler records' first moment: an intake. */
		{
			const struct pto_sched_rec *r =
				pto_graph_sched_at(g, i, 0);

			if (r && r->intake_iter && r->intake_begin &&
			    r->intake_begin < c.t0)
				c.t0 = r->intake_begin;
		}
	}
	if (c.t0 == UINT64_MAX)
		c.t0 = 0;

	c.f = fopen(path, "w");
	if (!c.f)
		return -errno;
	/*
	 * otherData: what lines this file up with others of the same run
	 * (trace-cmd's CLOCK_MONOTONIC events, the tracepoints' dev and ctx).
	 */
	fprintf(c.f,
		"{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"pto-npu\",\"version\":\"%s\",\"clock\":\"CLOCK_MONOTONIC\",\"t0_ns\":%" PRIu64
		",\"device_index\":%u,\"context_id\":%" PRIu64 ",\"graph\":",
		PTO_VERSION, c.t0, info.device_index,
		drm_client_id(pto_device_fd(g->dev)));
	pto_json_str(c.f, g->name);
	if (g->replay.on)
		fprintf(c.f,
			",\"replay\":{\"graph\":%u,\"launch\":%" PRIu64
			",\"nodes\":%zu}",
			g->replay.graph, g->replay.launch, g->tasks.n);
	fputs("},\"traceEvents\":[", c.f);
	sep(&c);
	fprintf(c.f,
		"{\"ph\":\"M\",\"cat\":\"__metadata\",\"pid\":%u,\"ts\":0,\"name\":\"process_name\",\"args\":{\"name\":\"pto_npu device %u\"}},\n"
		"{\"ph\":\"M\",\"cat\":\"__metadata\",\"pid\":%u,\"ts\":0,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%u}}",
		c.pid, info.device_index, c.pid, info.device_index);
	/*
	 * Lanes in display order: the doorbell's intakes, the scheduler, its
	 * completion walks, then the cores. The tids of the first two kinds
	 * follow the cores', so that those of a run without records match.
	 */
	if (pto_graph_have_sched(g)) {
		c.intake_tid = PTO_TRACE_SCHED_TID + 1 + info.aic_cores +
			       info.aiv_cores;
		c.resolve_tid = c.intake_tid + 1;
		meta(&c, c.intake_tid, "doorbell", PTO_TRACE_ORDER_INTAKE);
	}
	meta(&c, PTO_TRACE_SCHED_TID, "scheduler", PTO_TRACE_ORDER_SCHED);
	if (c.resolve_tid)
		meta(&c, c.resolve_tid, "scheduler: resolve",
		     PTO_TRACE_ORDER_RESOLVE);
	for (k = 0; k < info.aic_cores; k++) {
		snprintf(name, sizeof(name), "AIC_%u", k);
		meta(&c, PTO_TRACE_SCHED_TID + 1 + k, name,
		     PTO_TRACE_ORDER_CORES + k);
	}
	for (k = 0; k < info.aiv_cores; k++) {
		snprintf(name, sizeof(name), "AIV_%u", k);
		meta(&c, PTO_TRACE_SCHED_TID + 1 + info.aic_cores + k, name,
		     PTO_TRACE_ORDER_CORES + info.aic_cores + k);
	}
	for (i = 0; i < g->tasks.n; i++) {
		write_units(&c, i);
		write_markers(&c, i);
		write_flows(&c, i);
	}
	write_launch(&c);
	ret = write_sched(&c);
	if (!ret)
		ret = write_counters(&c);
	fputs("\n]}\n", c.f);
	if (!ret && ferror(c.f))
		ret = -EIO;
	if (fclose(c.f) && !ret)
		ret = -errno;
	return ret;
}

/* PTO_TRACE_DIR set: write <dir>/<name>.trace.json and .deps.json. */
void pto_trace_export(struct pto_graph *g)
{
	const char *dir = getenv("PTO_TRACE_DIR");
	const char *kind = getenv("PTO_TRACE_KIND");
	char base[512], path[600];

	if (!dir || !*dir)
		return;
	/* "deps": only deps.json; "trace" or unset: both. */
	if (g->name[0])
		snprintf(base, sizeof(base), "%s/%s", dir, g->name);
	else
		snprintf(base, sizeof(base), "%s/graph-%d-%u", dir, (int)getpid(),
			 g->runs);
	snprintf(path, sizeof(path), "%s.trace.json", base);
	if ((!kind || strcmp(kind, "deps")) && pto_graph_write_swimlane(g, path))
		fprintf(stderr, "libpto: cannot write %s\n", path);
	snprintf(path, sizeof(path), "%s.deps.json", base);
	if (pto_graph_write_deps(g, path))
		fprintf(stderr, "libpto: cannot write %s\n", path);
	pto_trace_export_simpler(g);
}
