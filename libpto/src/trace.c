// SPDX-License-Identifier: MIT
/*
 * libpto: the swimlane (Chrome Trace Event JSON, opened by Perfetto UI and
 * chrome://tracing) and deps.json of a graph's last run.
 *
 * Lanes: process = device; thread 0 = the scheduler; then one thread per
 * core, AIC_0.. then AIV_0... Timestamps are microseconds from the first
 * dispatch of the run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pto/pto.h"
#include "graph_internal.h"

#define PTO_TRACE_SCHED_TID 0

struct pto_trace_ctx {
	FILE *f;
	const struct pto_graph *g;
	uint64_t t0;
	unsigned int aic;
	unsigned int pid;
	bool first;
	uint64_t flow_id;
};

static const struct pto_graph_task *task_at(const struct pto_graph *g,
					    size_t i)
{
	return PTO_VEC_AT(&g->tasks, struct pto_graph_task, i);
}

static const char *task_name(const struct pto_graph *g, size_t i, char *buf,
			     size_t len)
{
	const char *n = pto_graph_name_at(g, task_at(g, i)->name);

	if (n && *n)
		return n;
	snprintf(buf, len, "task %zu", i);
	return buf;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static const char *shape_name(const struct pto_graph_task *t)
{
	if (t->kernel[0] && t->kernel[1])
		return "MIX";
	return t->kernel[0] ? "AIV" : "AIC";
}

static const char *cmp_name(unsigned int op)
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
		return 1 + b->core;
	return 1 + c->aic + b->core;
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
		"{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":",
		c->pid, tid);
	json_str(c->f, name);
	fputs("}},\n", c->f);
	fprintf(c->f,
		"{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%u}}",
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

static void write_units(struct pto_trace_ctx *c, size_t i)
{
	const struct pto_graph_task *t = task_at(c->g, i);
	const struct pto_block_info *bl;
	const struct pto_block_prof *pr = NULL;
	char nbuf[32];
	const char *name = task_name(c->g, i, nbuf, sizeof(nbuf));
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
		json_str(c->f, name);
		fprintf(c->f,
			",\"cat\":\"%s\",\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"task_id\":%" PRIu64
			",\"graph_index\":%zu,\"block\":%u,\"unit\":%u,\"core\":\"%s_%u\",\"shape\":\"%s\",\"status\":\"%s\",\"staged\":%s,"
			"\"dispatch_us\":%.3f,\"receive_us\":%.3f,\"start_us\":%.3f,\"end_us\":%.3f,\"finish_us\":%.3f",
			staged ? "block,staged" : "block", start,
			end > start ? end - start : 0.001, t->task_id, i,
			b->block, k,
			b->core_type == PTO_CORE_AIC ? "AIC" : "AIV", b->core,
			shape_name(t), pto_status_name(b->status),
			staged ? "true" : "false", us(c, b->ts_dispatch),
			us(c, b->ts_receive), start, end, us(c, b->ts_finish));
		if (staged)
			fprintf(c->f, ",\"release_us\":%.3f", us(c, b->ts_receive));
		if (pr)
			fprintf(c->f, ",\"waits\":%u,\"wait_us\":%.3f",
				pr[k].nwaits, (double)pr[k].wait_ns / 1000.0);
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
			 task_name(c->g, i, nbuf, sizeof(nbuf)));
		json_str(c->f, label);
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
	const uint32_t *deps = PTO_VEC_AT(&c->g->deps, uint32_t, t->dep_off);
	const struct pto_block_info *to = edge_unit(c->g, i, false);
	unsigned int d;

	for (d = 0; to && d < t->num_deps; d++) {
		const struct pto_block_info *from = edge_unit(c->g, deps[d], true);
		double at;

		if (!from)
			continue;
		/* Inside the producer's bar, so viewers bind the arrow to it. */
		at = us(c, from->ts_end) - 0.0005;
		if (at < us(c, from->ts_start))
			at = us(c, from->ts_start);
		c->flow_id++;
		sep(c);
		fprintf(c->f,
			"{\"ph\":\"s\",\"pid\":%u,\"tid\":%u,\"cat\":\"dependency\",\"name\":\"dependency\",\"id\":%" PRIu64
			",\"ts\":%.3f},\n"
			"{\"ph\":\"f\",\"bp\":\"e\",\"pid\":%u,\"tid\":%u,\"cat\":\"dependency\",\"name\":\"dependency\",\"id\":%" PRIu64
			",\"ts\":%.3f}",
			c->pid, lane(c, from), c->flow_id, at, c->pid,
			lane(c, to), c->flow_id, us(c, to->ts_start));
	}
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
	}
	if (c.t0 == UINT64_MAX)
		c.t0 = 0;

	c.f = fopen(path, "w");
	if (!c.f)
		return -errno;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", c.f);
	sep(&c);
	fprintf(c.f,
		"{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_name\",\"args\":{\"name\":\"pto_npu device %u\"}}",
		c.pid, info.device_index);
	meta(&c, PTO_TRACE_SCHED_TID, "scheduler", 0);
	for (k = 0; k < info.aic_cores; k++) {
		snprintf(name, sizeof(name), "AIC_%u", k);
		meta(&c, 1 + k, name, 1 + k);
	}
	for (k = 0; k < info.aiv_cores; k++) {
		snprintf(name, sizeof(name), "AIV_%u", k);
		meta(&c, 1 + info.aic_cores + k, name, 1 + info.aic_cores + k);
	}
	for (i = 0; i < g->tasks.n; i++) {
		write_units(&c, i);
		write_markers(&c, i);
		write_flows(&c, i);
	}
	fputs("\n]}\n", c.f);
	ret = ferror(c.f) ? -EIO : 0;
	if (fclose(c.f) && !ret)
		ret = -errno;
	return ret;
}

PTO_API int pto_graph_write_deps(const struct pto_graph *g, const char *path)
{
	FILE *f;
	size_t i, nt = 0, ne = 0;
	char nbuf[32];
	int ret;

	if (!g || !path)
		return -EINVAL;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs("{\n\"tasks\": [", f);
	for (i = 0; i < g->tasks.n; i++) {
		const struct pto_graph_task *t = task_at(g, i);
		unsigned int k;

		fprintf(f, "%s\n  {\"id\": %zu, \"task_id\": %" PRIu64 ", \"name\": ",
			i ? "," : "", i, t->task_id);
		json_str(f, task_name(g, i, nbuf, sizeof(nbuf)));
		fprintf(f,
			", \"kernels\": {\"aiv\": %u, \"aic\": %u}, \"block_num\": %u, \"shape\": \"%s\", \"status\": \"%s\", \"flags\": {\"early_resolve\": %s, \"sync_start\": %s, \"predicate\": ",
			t->kernel[0], t->kernel[1], t->block_num, shape_name(t),
			pto_status_name(t->status),
			(t->flags & PTO_TASK_EARLY_RESOLVE) ? "true" : "false",
			(t->flags & PTO_TASK_SYNC_START) ? "true" : "false");
		if (t->flags & DRM_PTO_NPU_TASK_F_PREDICATE) {
			const struct drm_pto_npu_predicate *p =
				PTO_VEC_AT(&g->preds, struct drm_pto_npu_predicate,
					   t->pred);

			fprintf(f,
				"{\"operand\": {\"tensor\": %zu, \"index\": [%u, %u]}, \"op\": \"%s\", \"literal\": %" PRId64 "}",
				(size_t)t->tensor_off + p->tensor, p->row, p->col,
				cmp_name(p->op), (int64_t)p->literal);
		} else {
			fputs("null", f);
		}
		fprintf(f, "}, \"split_mode\": \"%s\", \"tensors\": [",
			t->kernel[0] && t->kernel[1] ?
			(t->split_mode ? "UP_DOWN" : "NONE") : "none");
		for (k = 0; k < t->num_tensors; k++)
			fprintf(f, "%s%u", k ? ", " : "", t->tensor_off + k);
		fputs("]}", f);
		nt++;
	}
	fputs("\n],\n\"tensors\": [", f);
	for (i = 0; i < g->tensors.n; i++) {
		const struct drm_pto_npu_tensor_arg *a =
			PTO_VEC_AT(&g->tensors, struct drm_pto_npu_tensor_arg, i);
		unsigned int k;

		fprintf(f,
			"%s\n  {\"id\": %zu, \"buffer\": %u, \"offset\": %" PRIu64 ", \"dtype\": \"%s\", \"shape\": [",
			i ? "," : "", i, a->handle, (uint64_t)a->offset,
			pto_dtype_name((enum pto_dtype)a->dtype));
		for (k = 0; k < a->ndim; k++)
			fprintf(f, "%s%u", k ? ", " : "", a->shape[k]);
		fputs("]}", f);
	}
	fputs("\n],\n\"edges\": [", f);
	for (i = 0; i < g->tasks.n; i++) {
		const struct pto_graph_task *t = task_at(g, i);
		const uint32_t *deps = PTO_VEC_AT(&g->deps, uint32_t, t->dep_off);
		unsigned int d;

		for (d = 0; d < t->num_deps; d++)
			fprintf(f, "%s\n  {\"pred\": %u, \"succ\": %zu}",
				ne++ ? "," : "", deps[d], i);
	}
	fprintf(f, "\n]\n}\n");
	(void)nt;
	ret = ferror(f) ? -EIO : 0;
	if (fclose(f) && !ret)
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
