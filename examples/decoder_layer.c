// SPDX-License-Identifier: MIT
/*
 * Graph replay (issue #30; Documentation/techniques/graph-replay.rst): a
 * model runs the same graph of tasks once per token, so record it once
 * and launch it with one SQ entry per token, binding what changes.
 *
 * One "decoder layer" of 32 tasks over a 64x64 f32 activation, each step
 * an elementwise kernel the CPU model below repeats with the same f32
 * operations (so the device must match it bit for bit):
 *
 *   embed      SPMD, 4 blocks:       h = x * 0.5 + 0.25
 *   router     1 block:              gate[0, 0] = token % 2,
 *                                    gate[0, 1] = token % 3
 *   step_0..25 1 block each, a chain (the first 25 flagged
 *              PTO_TASK_EARLY_RESOLVE, so each consumer may be
 *              pre-staged): h = h * 0.875 + 0.125
 *   expert_0   SPMD, predicated on gate[0, 0] > 0: h = h * -1 + 2
 *   expert_1   SPMD, predicated on gate[0, 1] > 0: h = h * 0.5 - 0.75
 *   mix        SPMD, SYNC_START, a SOFT syncall: each block stores its
 *              slice a = h * 1.5 into h2, meets the others (cacheinvalid,
 *              fence, syncall, cacheinvalid), then y[slice] = a + the
 *              next block's slice of h2
 *   residual   SPMD:                 y = y + x
 *
 * x and y are the layer's parameters, the token (the router's scalar) its
 * scalar parameter. 100 tokens, two ways, each token's y checked against
 * the CPU model:
 *  - slow: per token, the graph built and run with pto_graph_run() (every
 *    task an SQ entry, parsed and validated), its input copied into x;
 *  - replay: the graph recorded once (pto_graph_record()), then per token
 *    one pto_graph_replay(): one entry binding the token and one of three
 *    (x, y) pairs, views at different offsets of two buffers, in turn.
 * An expert whose gate is 0 must be SKIPPED (slow; replay on a profiling
 * queue, which reports every node: on another a launch that succeeded
 * reports every task OK). Both forms' checksums must agree. The wall time
 * per token of each and their ratio are printed, never held against the
 * run; on a profiling queue also what a launch saves, the host's and
 * intake's time per token (the wall time less the makespan), and with
 * PTO_TRACE_DIR set each token's wall time and makespan go to
 * decoder_layer.timing.json (make demo's graph replay row).
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <string.h>
#include <time.h>

#include "example.h"

#define BLOCKS 4
#define TILE_ROWS 16
#define ROWS (BLOCKS * TILE_ROWS)
#define COLS 64
#define ELEMS ((size_t)ROWS * COLS)
#define BYTES (ELEMS * sizeof(float))
#define CHAIN 26
#define TOKENS 100
/*
 * Tokens each form runs: TOKENS, or PTO_EXAMPLE_TOKENS (1..TOKENS; make
 * check's debug kernel runs every example on one slow vCPU and asks for
 * fewer: 12 still bind each (x, y) pair and each gate value).
 */
static int n_tokens = TOKENS;
#define PAIRS 3
#define SENTINEL 12345.0f

/* Task indexes in the layer's graph. */
enum {
	T_EMBED = 0,
	T_ROUTER = 1,
	T_STEP0 = 2,
	T_EXPERT0 = T_STEP0 + CHAIN,
	T_EXPERT1,
	T_MIX,
	T_RESIDUAL,
	T_COUNT
};

/* Each affine task: v = v * mul + add. */
#define EMBED_MUL 0.5f
#define EMBED_ADD 0.25f
#define STEP_MUL 0.875f
#define STEP_ADD 0.125f
#define E0_MUL (-1.0f)
#define E0_ADD 2.0f
#define E1_MUL 0.5f
#define E1_ADD (-0.75f)
#define MIX_MUL 1.5f

/* Mix's tensor arguments. */
enum { MIX_H, MIX_H2, MIX_Y, MIX_WS };

struct layer {
	struct pto_kernel *embed, *router, *step, *expert0, *expert1, *mix,
		*residual;
	struct pto_tensor *h, *h2, *gate, *ws;
	struct pto_buffer *xbuf, *ybuf;
	/* Views of xbuf and ybuf, one pair per PAIRS. */
	struct pto_tensor *xs[PAIRS], *ys[PAIRS];
};

/*
 * arg1[tile] = arg0[tile] * mul + bias over a rows x COLS tile: the whole
 * tensor (rows == ROWS) or the block's slice (SPMD).
 */
static struct pto_kernel *build_affine(struct pto_device *dev, uint32_t rows,
				       float mul, float bias, const char *what)
{
	struct pto_kb *kb;
	int t;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	t = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, rows, COLS);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, rows);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, t, 0, 0, 1);
	pto_kb_tbinsf(kb, PTO_TBIN_MUL, t, t, mul);
	pto_kb_tbinsf(kb, PTO_TBIN_ADD, t, t, bias);
	pto_kb_tstore(kb, t, 1, 0, 1);
	pto_kb_end(kb);
	return ex_finish(kb, what);
}

/* gate[0, 0] = token % 2, gate[0, 1] = token % 3; the token is scalar 0. */
static struct pto_kernel *build_router(struct pto_device *dev)
{
	struct pto_kb *kb;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	pto_kb_arg(kb, 0, 0);
	pto_kb_alui(kb, PTO_ALU_MOD, 1, 0, 2);
	pto_kb_alui(kb, PTO_ALU_MOD, 2, 0, 3);
	pto_kb_ldi(kb, 3, 0);
	pto_kb_ldi(kb, 4, 1);
	pto_kb_gst(kb, 0, 3, 3, 1);
	pto_kb_gst(kb, 0, 3, 4, 2);
	pto_kb_end(kb);
	return ex_finish(kb, "router");
}

/*
 * Block b: a = h[b] * MIX_MUL into h2[b]; the documented pattern around a
 * SOFT syncall (s12 = used_cores, scalar 0); y[b] = a + h2[(b + 1) % B].
 */
static struct pto_kernel *build_mix(struct pto_device *dev)
{
	struct pto_kb *kb;
	int ta, tn;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, TILE_ROWS, COLS);
	tn = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, TILE_ROWS, COLS);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 2, 0, TILE_ROWS);	/* s2: own rows */
	pto_kb_alui(kb, PTO_ALU_ADD, 4, 0, 1);
	pto_kb_alui(kb, PTO_ALU_MOD, 4, 4, BLOCKS);
	pto_kb_alui(kb, PTO_ALU_MUL, 4, 4, TILE_ROWS);	/* s4: next's */
	pto_kb_ldi(kb, 3, 0);
	pto_kb_tload(kb, ta, MIX_H, 2, 3);
	pto_kb_tbinsf(kb, PTO_TBIN_MUL, ta, ta, MIX_MUL);
	pto_kb_tstore(kb, ta, MIX_H2, 2, 3);
	pto_kb_cacheinvalid(kb);
	pto_kb_fence(kb);
	pto_kb_arg(kb, 12, 0);
	pto_kb_syncall_soft(kb, MIX_WS, 12);
	pto_kb_cacheinvalid(kb);
	pto_kb_tload(kb, tn, MIX_H2, 4, 3);
	pto_kb_tbin(kb, PTO_TBIN_ADD, ta, ta, tn);
	pto_kb_tstore(kb, ta, MIX_Y, 2, 3);
	pto_kb_end(kb);
	return ex_finish(kb, "mix");
}

/* y[b] = y[b] + x[b]: x is argument 0, y argument 1. */
static struct pto_kernel *build_residual(struct pto_device *dev)
{
	struct pto_kb *kb;
	int tx, ty;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	tx = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, TILE_ROWS, COLS);
	ty = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, TILE_ROWS, COLS);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, TILE_ROWS);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, tx, 0, 0, 1);
	pto_kb_tload(kb, ty, 1, 0, 1);
	pto_kb_tbin(kb, PTO_TBIN_ADD, ty, ty, tx);
	pto_kb_tstore(kb, ty, 1, 0, 1);
	pto_kb_end(kb);
	return ex_finish(kb, "residual");
}

static void layer_alloc(struct pto_device *dev, struct layer *L)
{
	const int64_t shape[2] = { ROWS, COLS };
	int k;

	memset(L, 0, sizeof(*L));
	L->embed = build_affine(dev, TILE_ROWS, EMBED_MUL, EMBED_ADD, "embed");
	L->router = build_router(dev);
	L->step = build_affine(dev, ROWS, STEP_MUL, STEP_ADD, "step");
	L->expert0 = build_affine(dev, TILE_ROWS, E0_MUL, E0_ADD, "expert_0");
	L->expert1 = build_affine(dev, TILE_ROWS, E1_MUL, E1_ADD, "expert_1");
	L->mix = build_mix(dev);
	L->residual = build_residual(dev);
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, shape, &L->h),
		 "tensor h");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_F32, 2, shape, &L->h2),
		 "tensor h2");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_I32, 2,
				  (const int64_t[]){ 1, 2 }, &L->gate),
		 "tensor gate");
	/* The SOFT syncall's counter: zero, then whole rounds only. */
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_I32, 2,
				  (const int64_t[]){ 1, PTO_SOFT_WS_ELEMS },
				  &L->ws),
		 "tensor workspace");
	ex_check(pto_buffer_alloc(dev, PAIRS * BYTES, &L->xbuf), "buffer x");
	ex_check(pto_buffer_alloc(dev, PAIRS * BYTES, &L->ybuf), "buffer y");
	for (k = 0; k < PAIRS; k++) {
		ex_check(pto_tensor_view(L->xbuf, k * BYTES, PTO_DTYPE_F32, 2,
					 shape, NULL, &L->xs[k]),
			 "view x");
		ex_check(pto_tensor_view(L->ybuf, k * BYTES, PTO_DTYPE_F32, 2,
					 shape, NULL, &L->ys[k]),
			 "view y");
	}
}

static void layer_free(struct layer *L)
{
	int k;

	for (k = 0; k < PAIRS; k++) {
		pto_tensor_free(L->ys[k]);
		pto_tensor_free(L->xs[k]);
	}
	pto_buffer_free(L->ybuf);
	pto_buffer_free(L->xbuf);
	pto_tensor_free(L->ws);
	pto_tensor_free(L->gate);
	pto_tensor_free(L->h2);
	pto_tensor_free(L->h);
	pto_kernel_free(L->residual);
	pto_kernel_free(L->mix);
	pto_kernel_free(L->expert1);
	pto_kernel_free(L->expert0);
	pto_kernel_free(L->step);
	pto_kernel_free(L->router);
	pto_kernel_free(L->embed);
}

/* One task of the layer: @scalar its one scalar argument, or NULL. */
static void add_task(struct pto_graph *g, const char *name,
		     struct pto_kernel *k, uint32_t blocks, uint32_t flags,
		     struct pto_tensor *const *args, uint32_t nargs,
		     const int64_t *scalar, const int64_t *deps, uint32_t ndeps,
		     const struct pto_predicate *pred)
{
	ex_add(g, &(struct pto_task_desc){
			  .name = name,
			  .kernel_aiv = k,
			  .block_num = blocks,
			  .flags = flags,
			  .tensors = args,
			  .num_tensors = nargs,
			  .scalars = scalar,
			  .num_scalars = scalar ? 1 : 0,
			  .deps = deps,
			  .num_deps = ndeps,
			  .predicate = pred,
		  });
}

/* The layer's graph for input @x, output @y and token @token. */
static struct pto_graph *build_graph(struct pto_device *dev,
				     const struct layer *L,
				     struct pto_tensor *x, struct pto_tensor *y,
				     int64_t token)
{
	static const struct pto_predicate p0 = { .tensor = 2, .op = PTO_CMP_GT,
						 .row = 0, .col = 0 };
	static const struct pto_predicate p1 = { .tensor = 2, .op = PTO_CMP_GT,
						 .row = 0, .col = 1 };
	static const int64_t used = BLOCKS;
	struct pto_tensor *xh[2] = { x, L->h }, *xy[2] = { x, y };
	struct pto_tensor *hh[3] = { L->h, L->h, L->gate };
	struct pto_tensor *mix[4] = { L->h, L->h2, y, L->ws };
	int64_t deps[2];
	struct pto_graph *g;
	int i;

	ex_check(pto_graph_new(dev, &g), "graph");
	add_task(g, "embed", L->embed, BLOCKS, 0, xh, 2, NULL, NULL, 0, NULL);
	add_task(g, "router", L->router, 1, 0, &L->gate, 1, &token, NULL, 0,
		 NULL);
	for (i = 0; i < CHAIN; i++) {
		char name[32];

		snprintf(name, sizeof(name), "step_%d", i);
		deps[0] = i ? T_STEP0 + i - 1 : T_EMBED;
		/* Flagged when its consumer is the next step. */
		add_task(g, name, L->step, 1,
			 i + 1 < CHAIN ? PTO_TASK_EARLY_RESOLVE : 0, hh, 2,
			 NULL, deps, 1, NULL);
	}
	deps[0] = T_ROUTER;
	deps[1] = T_EXPERT0 - 1;
	add_task(g, "expert_0", L->expert0, BLOCKS, 0, hh, 3, NULL, deps, 2,
		 &p0);
	deps[1] = T_EXPERT0;
	add_task(g, "expert_1", L->expert1, BLOCKS, 0, hh, 3, NULL, deps, 2,
		 &p1);
	deps[0] = T_EXPERT1;
	add_task(g, "mix", L->mix, BLOCKS, PTO_TASK_SYNC_START, mix, 4, &used,
		 deps, 1, NULL);
	deps[0] = T_MIX;
	add_task(g, "residual", L->residual, BLOCKS, 0, xy, 2, NULL, deps, 1,
		 NULL);
	if (pto_graph_task_count(g) != T_COUNT)
		ex_fail("the layer has %u tasks, want %d",
			pto_graph_task_count(g), T_COUNT);
	return g;
}

/* Token @token's input. */
static void make_input(float *x, int token)
{
	size_t i;

	for (i = 0; i < ELEMS; i++)
		x[i] = (float)((i * 7 + (size_t)token * 13) % 101) / 32.0f -
		       1.5f;
}

static float affine(float v, float mul, float bias)
{
	float t = v * mul;

	return t + bias;
}

/* The CPU model of the layer: the device's f32 operations in its order. */
static void model(const float *x, int token, float *y)
{
	static float h[ELEMS], a[ELEMS];
	size_t i, slice = (size_t)TILE_ROWS * COLS;
	int s;

	for (i = 0; i < ELEMS; i++) {
		h[i] = affine(x[i], EMBED_MUL, EMBED_ADD);
		for (s = 0; s < CHAIN; s++)
			h[i] = affine(h[i], STEP_MUL, STEP_ADD);
		if (token % 2)
			h[i] = affine(h[i], E0_MUL, E0_ADD);
		if (token % 3)
			h[i] = affine(h[i], E1_MUL, E1_ADD);
		a[i] = h[i] * MIX_MUL;
	}
	for (i = 0; i < ELEMS; i++) {
		float m = a[i] + a[(i + slice) % ELEMS];

		y[i] = m + x[i];
	}
}

/* y against the model, bit for bit; returns its checksum. */
static double check_y(const float *y, const float *want, const char *form,
		      int token)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < ELEMS; i++) {
		if (y[i] != want[i])
			ex_fail("%s, token %d: y[%zu][%zu] = %.9g, want %.9g",
				form, token, i / COLS, i % COLS, y[i],
				want[i]);
		sum += y[i];
	}
	return sum;
}

/*
 * The experts' statuses: SKIPPED when their gate is 0, else OK (@strict);
 * otherwise (a replay on a queue that does not profile reports every
 * task of a launch that succeeded as OK) every task OK.
 */
static void check_status(const struct pto_graph *g, const char *form,
			 int token, bool strict)
{
	unsigned int i;

	for (i = 0; i < T_COUNT; i++) {
		int want = PTO_STATUS_OK;
		int st = pto_graph_task_status(g, i, NULL, NULL);

		if (strict && ((i == T_EXPERT0 && !(token % 2)) ||
			       (i == T_EXPERT1 && !(token % 3))))
			want = PTO_STATUS_SKIPPED;
		if (st != want)
			ex_fail("%s, token %d: task %u '%s' is %s, want %s",
				form, token, i, pto_graph_task_name(g, i),
				pto_status_name(st), pto_status_name(want));
	}
}

static void fill(float *p, float v)
{
	size_t i;

	for (i = 0; i < ELEMS; i++)
		p[i] = v;
}

/*
 * PTO_TRACE_DIR (make demo, ptoctl trace): libpto writes a graph's traces
 * after each of its runs; here only the last token's are kept, so the
 * time per token is the runs', not the trace writer's.
 */
static void trace_token(int token)
{
	ex_trace_on(token == n_tokens - 1);
}

/* Per token: build the graph, run it (every task an entry), check y. */
static double run_slow(struct pto_device *dev, const struct layer *L,
		       struct pto_queue *q, struct ex_timed *timed,
		       double *us, double *build_us)
{
	static float want[ELEMS];
	float *px = pto_tensor_data(L->xs[0]), *py = pto_tensor_data(L->ys[0]);
	double sum = 0, t0, t1, total = 0, build = 0;
	uint64_t makespan = 0;
	unsigned int ran = 0;
	int token;

	for (token = 0; token < n_tokens; token++) {
		struct pto_graph *g;

		make_input(px, token);
		fill(py, SENTINEL);
		model(px, token, want);
		t0 = ex_now_us();
		g = build_graph(dev, L, L->xs[0], L->ys[0], token);
		t1 = ex_now_us();
		trace_token(token);
		ex_run(g, q, "slow");
		t1 -= t0;
		t0 = ex_now_us() - t0;
		total += t0;
		build += t1;
		ex_timed_add(timed, g, t0);
		sum += check_y(py, want, "slow", token);
		check_status(g, "slow", token, true);
		if (token == n_tokens - 1)
			ex_run_figures(g, &ran, &makespan);
		pto_graph_free(g);
	}
	*us = total / n_tokens;
	*build_us = build / n_tokens;
	printf("  slow: %d tokens, %d tasks each, built and run (pto_graph_run()): %.1f us/token (%.1f of it building the graph); last run: %u tasks reached a core, makespan %.1f us\n",
	       n_tokens, T_COUNT, *us, *build_us, ran, makespan / 1e3);
	return sum;
}

/* One launch of @x for @token with pair @k bound; fails on an error. */
static void replay(struct pto_graph *g, struct pto_graph_exec *x,
		   struct pto_queue *q, const struct layer *L, int k,
		   int token)
{
	const struct pto_tensor *tensors[2] = { L->xs[k], L->ys[k] };
	const int64_t scalars[1] = { token };
	int ret = pto_graph_replay(g, x, q, tensors, scalars, EX_TIMEOUT_NS);

	if (ret)
		ex_fail("replay, token %d: %s: %s", token, pto_strerror(ret),
			pto_graph_error(g));
	if (pto_graph_hazard_count(g)) {
		char text[400];

		pto_graph_hazard_str(g, 0, text, sizeof(text));
		ex_fail("replay, token %d: %u GM hazards, the first: %s",
			token, pto_graph_hazard_count(g), text);
	}
}

/* Record the layer once, then one launch per token, the pairs in turn. */
static double run_replay(struct pto_device *dev, const struct layer *L,
			 struct pto_queue *q, struct ex_timed *timed,
			 double *us)
{
	static float want[ELEMS];
	const struct pto_tensor *params[2] = { L->xs[0], L->ys[0] };
	const struct pto_graph_scalar_param sp = { .task = T_ROUTER,
						   .scalar = 0 };
	bool strict = pto_queue_profiling(q);
	struct pto_graph_exec *x;
	struct pto_graph *g;
	double sum = 0, t0, total = 0;
	int token, ret;

	g = build_graph(dev, L, L->xs[0], L->ys[0], 0);
	ex_name_graph(g, "replay");
	ret = pto_graph_record(g, params, 2, &sp, 1, &x);
	if (ret)
		ex_fail("record: %s: %s", pto_strerror(ret),
			pto_graph_error(g));
	if (pto_graph_exec_nodes(x) != T_COUNT)
		ex_fail("record: %u nodes, want %d", pto_graph_exec_nodes(x),
			T_COUNT);
	for (token = 0; token < n_tokens; token++) {
		int k = token % PAIRS;
		float *px = pto_tensor_data(L->xs[k]);
		float *py = pto_tensor_data(L->ys[k]);

		make_input(px, token);
		fill(py, SENTINEL);
		model(px, token, want);
		trace_token(token);
		t0 = ex_now_us();
		replay(g, x, q, L, k, token);
		t0 = ex_now_us() - t0;
		total += t0;
		ex_timed_add(timed, g, t0);
		sum += check_y(py, want, "replay", token);
		check_status(g, "replay", token, strict);
	}
	*us = total / n_tokens;
	printf("  replay: %d tokens, recorded once (%u nodes), one launch each (pto_graph_replay()), %d (x, y) pairs in turn: %.1f us/token%s\n",
	       n_tokens, pto_graph_exec_nodes(x), PAIRS, *us,
	       strict ? "; every node's completion profiled" : "");
	pto_graph_exec_free(x);
	pto_graph_free(g);
	return sum;
}

/*
 * What a launch saves per token: the host's and the device's intake time,
 * the wall time (build or launch to the last completion) less the
 * makespan (first dispatch to last finish: the cores' time, the same both
 * ways). Needs every node's block records: a profiling queue.
 */
static void print_host_time(const struct ex_timed *timed)
{
	double host[2][EX_TIMED_MAX], med[2], span[2];
	unsigned int f, i;

	for (f = 0; f < 2; f++) {
		for (i = 0; i < timed[f].n; i++)
			host[f][i] = timed[f].wall_us[i] - timed[f].makespan_us[i];
		med[f] = ex_median(host[f], timed[f].n);
		span[f] = ex_median(timed[f].makespan_us, timed[f].n);
	}
	if (span[1] <= 0 || med[1] <= 0)
		return;		/* not a profiling queue */
	printf("  per token, medians: host and intake (wall time less the makespan) slow %.1f us, replay %.1f us: %.2fx; makespan slow %.1f us, replay %.1f us\n",
	       med[0], med[1], med[0] / med[1], span[0], span[1]);
}

int main(void)
{
	struct pto_device *dev;
	struct pto_queue *q;
	struct layer L;
	double slow_us, build_us, fast_us, slow_sum, fast_sum;
	static struct ex_timed timed[2];

	ex_name = "decoder_layer";
	if (getenv("PTO_EXAMPLE_TOKENS")) {
		n_tokens = atoi(getenv("PTO_EXAMPLE_TOKENS"));
		if (n_tokens < 1 || n_tokens > TOKENS)
			ex_fail("PTO_EXAMPLE_TOKENS=%s: want 1..%d",
				getenv("PTO_EXAMPLE_TOKENS"), TOKENS);
	}
	(void)ex_print_blocks;
	ex_check(pto_device_open(0, &dev), "open device 0");
	/* A queue made with PTO_TRACE_DIR set profiles (every node reports). */
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");
	ex_trace_hold();
	layer_alloc(dev, &L);
	ex_timed_init(&timed[0], "slow");
	ex_timed_init(&timed[1], "replay");

	slow_sum = run_slow(dev, &L, q, &timed[0], &slow_us, &build_us);
	printf("PASS decoder_layer slow\n");
	fast_sum = run_replay(dev, &L, q, &timed[1], &fast_us);
	printf("PASS decoder_layer replay\n");
	if (slow_sum != fast_sum)
		ex_fail("checksums differ: slow %.17g, replay %.17g", slow_sum,
			fast_sum);
	printf("  checksum of the %d tokens' y: %.9g both ways; slow / replay: %.2fx per token (%.2fx without building the graph)\n",
	       n_tokens, fast_sum, fast_us > 0 ? slow_us / fast_us : 0.0,
	       fast_us > 0 ? (slow_us - build_us) / fast_us : 0.0);

	print_host_time(timed);
	ex_timed_write(timed, 2);

	layer_free(&L);
	ex_check(pto_queue_destroy(q), "destroy queue");
	pto_device_close(dev);
	printf("PASS decoder_layer\n");
	return 0;
}
