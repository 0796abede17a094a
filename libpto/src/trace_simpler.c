// SPDX-License-Identifier: MIT
/*
 * libpto: a graph's last run as PyPTO/simpler profiling files, so that
 * simpler's own tools (swimlane_converter, critical_path, deps_viewer,
 * sched_overhead_analysis) read it: a directory with
 *
 *   chip_swimlane_records.json   per-unit timing, the scheduler's phases and
 *                                intakes (simpler's level 4 schema)
 *   deps.json                    the graph in simpler's dep_gen schema
 *   name_map_<case>.json         function id -> task name
 *
 * Documentation/profiling-simpler.rst describes the mapping.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pto/pto.h"
#include "graph_internal.h"

/* Device timestamps are CLOCK_MONOTONIC nanoseconds: one cycle = 1 ns. */
#define PTO_SIMPLER_CLOCK_HZ 1000000000ULL
/* With the scheduler's records: its phases and intakes; without, tasks. */
#define PTO_SIMPLER_LEVEL 4
#define PTO_SIMPLER_LEVEL_TASKS 2

/*
 * The AICPU's dispatch of a block, as simpler's records mean it: a
 * pre-staged unit's doorbell (its ts_receive), when it was handed to run;
 * its staging before its producer ended has no simpler counterpart.
 */
static uint64_t st_dispatch(const struct pto_block_info *b)
{
	return (b->flags & PTO_BLOCK_STAGED) && b->ts_receive ? b->ts_receive :
								b->ts_dispatch;
}

static const struct pto_graph_task *st_task(const struct pto_graph *g,
					    size_t i)
{
	return PTO_VEC_AT(&g->tasks, struct pto_graph_task, i);
}

static bool st_ran(const struct pto_block_info *b)
{
	return b->core_type && b->ts_start;
}

/* simpler's core id: AIC_k is k, AIV_k is aic + k (its core_types order). */
static unsigned int st_core(const struct pto_device_info *info,
			    const struct pto_block_info *b)
{
	return b->core_type == PTO_CORE_AIC ? b->core : info->aic_cores + b->core;
}

/*
 * Function ids: simpler names a task after its function, so each distinct
 * task name is one function, numbered in order of first appearance.
 */
struct st_named {
	const char *name;
	size_t idx;
};

static int st_cmp_named(const void *a, const void *b)
{
	const struct st_named *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* fid[i]: task i's function id; *nfid: how many. */
static int st_function_ids(const struct pto_graph *g, size_t **fid_out,
			   size_t *nfid)
{
	size_t n = g->tasks.n, i, k;
	struct st_named *order;
	char (*unnamed)[32];
	size_t *fid, *rank;

	*fid_out = NULL;
	*nfid = 0;
	if (!n)
		return 0;
	order = calloc(n, sizeof(*order));
	unnamed = calloc(n, sizeof(*unnamed));
	fid = calloc(n, sizeof(*fid));
	rank = calloc(n, sizeof(*rank));
	if (!order || !unnamed || !fid || !rank) {
		free(order);
		free(unnamed);
		free(fid);
		free(rank);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		order[i].name = pto_trace_task_name(g, i, unnamed[i], sizeof(unnamed[i]));
		order[i].idx = i;
	}
	qsort(order, n, sizeof(*order), st_cmp_named);
	/* fid[i]: the first task of its name, for now. */
	for (i = 0; i < n; i++)
		fid[order[i].idx] = i && !strcmp(order[i - 1].name, order[i].name) ?
					    fid[order[i - 1].idx] :
					    order[i].idx;
	for (i = 0, k = 0; i < n; i++) {
		rank[i] = k;
		k += fid[i] == i;
	}
	for (i = 0; i < n; i++)
		fid[i] = rank[fid[i]];
	*nfid = k;
	*fid_out = fid;
	free(order);
	free(unnamed);
	free(rank);
	return 0;
}

static bool st_close(FILE *f, int *ret)
{
	int r = ferror(f) ? -EIO : 0;

	if (fclose(f) && !r)
		r = -errno;
	if (r && !*ret)
		*ret = r;
	return !*ret;
}

/* ------------------------------------------------ chip_swimlane_records */

/*
 * Scheduler phases (level 3 and up): sched_phases.c's, the device
 * scheduler's phases, as simpler's scheduler thread 0 (its iterations are
 * simpler's loop iterations, renumbered from 1 over this run).
 */
static int st_write_phases(const struct pto_graph *g, FILE *f)
{
	struct pto_phase *ph;
	size_t n, i;
	int ret;

	ret = pto_graph_phases(g, &ph, &n);
	if (ret)
		return ret;
	fputs("\n],\n\"aicpu_scheduler_phases\": [[", f);
	for (i = 0; i < n; i++) {
		fprintf(f,
			"%s\n  {\"kind\": \"%s\", \"start_cycles\": %" PRIu64 ", \"end_cycles\": %" PRIu64
			", \"loop_iter\": %zu, \"tasks_processed\": %zu",
			i ? "," : "", pto_phase_name[ph[i].kind], ph[i].b,
			ph[i].e, ph[i].loop, ph[i].n);
		if (ph[i].kind == PTO_PHASE_SKIP)
			fprintf(f, ", \"task_id\": %zu", ph[i].task);
		fputc('}', f);
	}
	fputs("\n]]", f);
	free(ph);
	return 0;
}

/*
 * The device's intake of each task (level 4): simpler's orchestrator
 * submits, one thread, in intake order. The doorbell takes the entry,
 * resolves its arguments and links its dependencies, as submit_task()
 * does on the AICPU.
 */
static int st_write_intake(const struct pto_graph *g, FILE *f)
{
	struct pto_phase *ph;
	size_t n, i;
	int ret = pto_graph_intakes(g, &ph, &n);

	if (ret)
		return ret;
	fputs(",\n\"aicpu_orchestrator_phases\": [[", f);
	for (i = 0; i < n; i++)
		fprintf(f,
			"%s\n  {\"submit_idx\": %zu, \"task_id\": %zu, \"start_cycles\": %" PRIu64
			", \"end_cycles\": %" PRIu64 "}",
			i ? "," : "", i, ph[i].task, ph[i].b, ph[i].e);
	fputs("\n]]", f);
	free(ph);
	return 0;
}

static int st_write_records(const struct pto_graph *g,
			    const struct pto_device_info *info,
			    const char *path)
{
	unsigned int ncores = info->aic_cores + info->aiv_cores, c;
	uint64_t t0 = 0;
	size_t i;
	bool first, sched = pto_graph_have_sched(g);
	FILE *f;
	int ret = 0;

	f = fopen(path, "w");
	if (!f)
		return -errno;
	for (i = 0; g->blocks && i < g->total_blocks; i++) {
		uint64_t ts = st_dispatch(&g->blocks[i]) ?
			      st_dispatch(&g->blocks[i]) : g->blocks[i].ts_finish;

		if (ts && (!t0 || ts < t0))
			t0 = ts;
	}
	fprintf(f, "{\n\"chip_swimlane_level\": %d,\n\"metadata\": {\"clock_freq_hz\": %llu, \"num_cores\": %u, \"core_types\": [",
		sched ? PTO_SIMPLER_LEVEL : PTO_SIMPLER_LEVEL_TASKS,
		PTO_SIMPLER_CLOCK_HZ, ncores);
	for (c = 0; c < ncores; c++)
		fprintf(f, "%s\"%s\"", c ? ", " : "",
			c < info->aic_cores ? "aic" : "aiv");
	/* One emulated scheduler: every core is retired by thread 0. */
	fputs("], \"core_to_thread\": [", f);
	for (c = 0; c < ncores; c++)
		fprintf(f, "%s0", c ? ", " : "");
	fprintf(f,
		"], \"platform\": \"pto-npu\", \"clock\": \"CLOCK_MONOTONIC\", \"device_index\": %u, \"aic_cores\": %u, \"aiv_cores\": %u, \"t0_ns\": %" PRIu64
		", \"tasks\": %zu, \"graph\": ",
		info->device_index, info->aic_cores, info->aiv_cores, t0,
		g->tasks.n);
	pto_json_str(f, g->name);
	fputs("},\n", f);

	/* [core_id, task_id, reg_task_id, start, end, receive_to_start] */
	fputs("\"aicore_tasks\": [", f);
	first = true;
	for (i = 0; g->blocks && i < g->tasks.n; i++) {
		const struct pto_graph_task *t = st_task(g, i);
		unsigned int k;

		for (k = 0; k < t->nblocks; k++) {
			const struct pto_block_info *b = &g->blocks[t->block_off + k];
			uint64_t recv = b->ts_receive;

			if (!st_ran(b))
				continue;
			if (recv < st_dispatch(b))
				recv = st_dispatch(b);
			if (!recv || recv > b->ts_start)
				recv = b->ts_start;
			fprintf(f, "%s\n  [%u, %zu, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 "]",
				first ? "" : ",", st_core(info, b), i,
				t->block_off + k, b->ts_start,
				b->ts_end > b->ts_start ? b->ts_end : b->ts_start,
				b->ts_start - recv);
			first = false;
		}
	}
	/* [core_id, reg_task_id, dispatch, finish] */
	fputs("\n],\n\"aicpu_tasks\": [", f);
	first = true;
	for (i = 0; g->blocks && i < g->tasks.n; i++) {
		const struct pto_graph_task *t = st_task(g, i);
		unsigned int k;

		for (k = 0; k < t->nblocks; k++) {
			const struct pto_block_info *b = &g->blocks[t->block_off + k];

			if (!st_ran(b))
				continue;
			fprintf(f, "%s\n  [%u, %" PRIu64 ", %" PRIu64 ", %" PRIu64 "]",
				first ? "" : ",", st_core(info, b),
				t->block_off + k, st_dispatch(b), b->ts_finish);
			first = false;
		}
	}
	if (sched) {
		ret = st_write_phases(g, f);
		if (!ret)
			ret = st_write_intake(g, f);
	} else {
		fputs("\n]", f);
	}
	fputs("\n}\n", f);
	st_close(f, &ret);
	return ret;
}

/* --------------------------------------------------------------- deps.json */

static const char *st_dtype(unsigned int dtype)
{
	static const char *const n[] = {
		[PTO_DTYPE_F32] = "FLOAT32", [PTO_DTYPE_I8] = "INT8",
		[PTO_DTYPE_I16] = "INT16",   [PTO_DTYPE_I32] = "INT32",
		[PTO_DTYPE_I64] = "INT64",   [PTO_DTYPE_U8] = "UINT8",
		[PTO_DTYPE_U16] = "UINT16",  [PTO_DTYPE_U32] = "UINT32",
		[PTO_DTYPE_U64] = "UINT64",
	};

	return dtype < sizeof(n) / sizeof(n[0]) && n[dtype] ? n[dtype] :
							       "UNKNOWN";
}

static size_t st_dsize(unsigned int dtype)
{
	size_t s = pto_dtype_size((enum pto_dtype)dtype);

	return s ? s : 1;
}

/* Element strides, row-major when the argument gives none. */
static void st_strides(const struct drm_pto_npu_tensor_arg *a, uint64_t *st)
{
	unsigned int k;
	bool given = false;

	for (k = 0; k < a->ndim; k++)
		given |= a->strides[k] != 0;
	if (given) {
		for (k = 0; k < a->ndim; k++)
			st[k] = a->strides[k];
		return;
	}
	for (k = a->ndim; k-- > 0;)
		st[k] = k + 1 < a->ndim ? st[k + 1] * a->shape[k + 1] : 1;
}

/* Bytes from the buffer's start to past the argument's last element. */
static uint64_t st_end_byte(const struct drm_pto_npu_tensor_arg *a)
{
	uint64_t st[4], last = 0;
	unsigned int k;

	st_strides(a, st);
	for (k = 0; k < a->ndim; k++)
		last += (uint64_t)(a->shape[k] ? a->shape[k] - 1 : 0) * st[k];
	return a->offset + (last + 1) * st_dsize(a->dtype);
}

static int st_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * simpler's tensors are buffers: one entry per GM buffer the graph names,
 * its id the handle; buffer_addr keeps each buffer's bytes apart.
 */
static int st_write_deps(const struct pto_graph *g, const size_t *fid,
			 const char *path)
{
	size_t nt = g->tensors.n, nb = 0, i;
	uint32_t *handles = NULL;
	uint64_t *end = NULL;
	unsigned int *dtype = NULL;
	bool first;
	FILE *f;
	int ret = 0;

	if (nt) {
		handles = calloc(nt, sizeof(*handles));
		end = calloc(nt, sizeof(*end));
		dtype = calloc(nt, sizeof(*dtype));
		if (!handles || !end || !dtype) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < nt; i++)
		handles[i] = PTO_VEC_AT(&g->tensors, struct drm_pto_npu_tensor_arg,
					i)->handle;
	qsort(handles, nt, sizeof(*handles), st_cmp_u32);
	for (i = 0; i < nt; i++)
		if (!nb || handles[nb - 1] != handles[i])
			handles[nb++] = handles[i];
	/* Each buffer's extent and dtype (of its first use, in graph order). */
	for (i = 0; i < nt; i++) {
		const struct drm_pto_npu_tensor_arg *a =
			PTO_VEC_AT(&g->tensors, struct drm_pto_npu_tensor_arg, i);
		uint32_t *h = bsearch(&a->handle, handles, nb, sizeof(*handles),
				      st_cmp_u32);
		size_t b = (size_t)(h - handles);

		if (!dtype[b])
			dtype[b] = a->dtype;
		if (st_end_byte(a) > end[b])
			end[b] = st_end_byte(a);
	}

	f = fopen(path, "w");
	if (!f) {
		ret = -errno;
		goto out;
	}
	fputs("{\n\"tasks\": [", f);
	for (i = 0; i < g->tasks.n; i++) {
		const struct pto_graph_task *t = st_task(g, i);
		unsigned int k, aiv_units = 0, parts;
		long long aic = -1, aiv0 = -1, aiv1 = -1;
		char nbuf[32];

		/* [aic, aiv0, aiv1]: the slots the task's units occupy. */
		if (t->kernel[1])
			aic = (long long)fid[i];
		if (t->kernel[0]) {
			parts = t->kernel[1] ? (t->split_mode ? 3 : 2) : 1;
			aiv_units = t->kernel[1] ? parts - 1 : 1;
			aiv0 = (long long)fid[i];
			if (aiv_units > 1)
				aiv1 = (long long)fid[i];
		}
		fprintf(f,
			"%s\n  {\"task_id\": \"%zu\", \"scope\": \"auto\", \"kernel_ids\": [%lld, %lld, %lld], \"block_num\": %u, \"name\": ",
			i ? "," : "", i, aic, aiv0, aiv1, t->block_num);
		pto_json_str(f, pto_trace_task_name(g, i, nbuf, sizeof(nbuf)));
		fprintf(f,
			", \"device_task_id\": \"%" PRIu64 "\", \"status\": \"%s\", \"pto_kernels\": {\"aiv\": %u, \"aic\": %u}, \"args\": [",
			t->task_id, pto_status_name(t->status), t->kernel[0],
			t->kernel[1]);
		for (k = 0; k < t->num_tensors; k++) {
			const struct drm_pto_npu_tensor_arg *a = PTO_VEC_AT(
				&g->tensors, struct drm_pto_npu_tensor_arg,
				t->tensor_off + k);
			uint8_t use = *PTO_VEC_AT(&g->tensor_use, uint8_t,
						  t->tensor_off + k);
			const char *type = "NO_DEP";
			uint64_t st[4];
			unsigned int d;

			if ((use & PTO_ARG_READ) && (use & PTO_ARG_WRITTEN))
				type = "INOUT";
			else if (use & PTO_ARG_WRITTEN)
				type = "OUTPUT_EXISTING";
			else if (use & PTO_ARG_READ)
				type = "INPUT";
			st_strides(a, st);
			fprintf(f,
				"%s\n    {\"idx\": %u, \"type\": \"%s\", \"tensor_id\": \"%u\", \"dtype\": \"%s\", \"shape\": [",
				k ? "," : "", k, type, a->handle, st_dtype(a->dtype));
			for (d = 0; d < a->ndim; d++)
				fprintf(f, "%s%u", d ? ", " : "", a->shape[d]);
			fprintf(f, "], \"start_offset\": \"%" PRIu64 "\", \"strides\": [",
				(uint64_t)a->offset / st_dsize(a->dtype));
			for (d = 0; d < a->ndim; d++)
				fprintf(f, "%s%" PRIu64, d ? ", " : "", st[d]);
			fputs("]}", f);
		}
		fputs(t->num_tensors ? "\n  ]}" : "]}", f);
	}
	fputs("\n],\n\"tensors\": [", f);
	for (i = 0; i < nb; i++)
		fprintf(f,
			"%s\n  {\"tensor_id\": \"%u\", \"buffer_addr\": \"%" PRIu64 "\", \"version\": 0, \"dtype\": \"%s\", \"buffer_numel\": \"%" PRIu64 "\"}",
			i ? "," : "", handles[i], (uint64_t)handles[i] << 32,
			st_dtype(dtype[i]),
			(end[i] + st_dsize(dtype[i]) - 1) / st_dsize(dtype[i]));
	/* Named by the caller: explicit; from tensor directions: inferred. */
	fputs("\n],\n\"edges\": [", f);
	first = true;
	for (i = 0; i < g->tasks.n; i++) {
		const struct pto_graph_task *t = st_task(g, i);
		unsigned int d;

		for (d = 0; d < pto_graph_ndeps(t); d++) {
			fprintf(f,
				"%s\n  {\"pred\": \"%u\", \"succ\": \"%zu\", \"arg\": -1, \"source\": \"%s\", \"flags\": [\"wait\", \"retain\"]}",
				first ? "" : ",", pto_graph_dep(g, t, d), i,
				d < t->num_deps ? "explicit" : "inferred");
			first = false;
		}
	}
	fputs("\n]\n}\n", f);
	st_close(f, &ret);
out:
	free(handles);
	free(end);
	free(dtype);
	return ret;
}

/* ------------------------------------------------------------- name map */

static int st_write_name_map(const struct pto_graph *g, const size_t *fid,
			     size_t nfid, const char *path)
{
	size_t i, next = 0;
	char nbuf[32];
	FILE *f;
	int ret = 0;

	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs("{\n\"level\": 2,\n\"orchestrator_name\": ", f);
	if (g->name[0])
		pto_json_str(f, g->name);
	else
		fputs("null", f);
	fputs(",\n\"callable_id_to_name\": {", f);
	/* Function ids are numbered in order of first appearance. */
	for (i = 0; i < g->tasks.n && next < nfid; i++) {
		if (fid[i] != next)
			continue;
		fprintf(f, "%s\n  \"%zu\": ", next ? "," : "", next);
		pto_json_str(f, pto_trace_task_name(g, i, nbuf, sizeof(nbuf)));
		next++;
	}
	fputs("\n}\n}\n", f);
	st_close(f, &ret);
	return ret;
}

/* name_map_<case>.json: the graph's name, [A-Za-z0-9._-] kept. */
static void st_case_name(const struct pto_graph *g, char *buf, size_t len)
{
	const char *s = g->name[0] ? g->name : "graph";
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++) {
		char c = s[i];

		buf[i] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '-' ||
			  c == '_') ? c : '_';
	}
	buf[i] = '\0';
}

static int st_write(const struct pto_graph *g, const char *dir, bool records)
{
	struct pto_device_info info;
	char path[4096], cname[PTO_GRAPH_NAME_SIZE];
	size_t *fid = NULL, nfid = 0;
	int ret, r;

	if (!g || !dir || !*dir)
		return -EINVAL;
	ret = pto_device_query_info(g->dev, &info);
	if (ret)
		return ret;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	ret = st_function_ids(g, &fid, &nfid);
	if (ret)
		return ret;
	if (records) {
		snprintf(path, sizeof(path), "%s/chip_swimlane_records.json", dir);
		ret = st_write_records(g, &info, path);
	}
	snprintf(path, sizeof(path), "%s/deps.json", dir);
	r = st_write_deps(g, fid, path);
	if (r && !ret)
		ret = r;
	st_case_name(g, cname, sizeof(cname));
	snprintf(path, sizeof(path), "%s/name_map_%s.json", dir, cname);
	r = st_write_name_map(g, fid, nfid, path);
	if (r && !ret)
		ret = r;
	free(fid);
	return ret;
}

PTO_API int pto_graph_write_simpler(const struct pto_graph *g, const char *dir)
{
	return st_write(g, dir, true);
}

/*
 * PTO_TRACE_FORMAT=simpler (with PTO_TRACE_DIR): also write
 * <dir>/<name>/, beside <name>.trace.json and <name>.deps.json.
 * PTO_TRACE_KIND=deps: deps.json and the name map only.
 */
void pto_trace_export_simpler(struct pto_graph *g)
{
	const char *dir = getenv("PTO_TRACE_DIR");
	const char *fmt = getenv("PTO_TRACE_FORMAT");
	const char *kind = getenv("PTO_TRACE_KIND");
	char sub[600];

	if (!dir || !*dir || !fmt || strcmp(fmt, "simpler"))
		return;
	if (g->name[0])
		snprintf(sub, sizeof(sub), "%s/%s", dir, g->name);
	else
		snprintf(sub, sizeof(sub), "%s/graph-%d-%u", dir, (int)getpid(),
			 g->runs);
	if (st_write(g, sub, !kind || strcmp(kind, "deps")))
		fprintf(stderr, "libpto: cannot write %s/\n", sub);
}
