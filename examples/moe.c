// SPDX-License-Identifier: MIT
/*
 * The dispatch predicate's use case: a mixture of experts where the router
 * sends some experts no tokens.
 *
 * A router task (one block) counts, for 64 tokens, how many the router
 * assigned to each of 8 experts: counts[0, e] (int32), computed on the
 * device from the assignment tensor. Each expert is an SPMD task of 4
 * blocks, depending on the router and predicated on counts[0, e] > 0; it
 * fills its 16 output rows with its expert id and stores its token count
 * in column 0. Experts the router sent nothing are skipped: their rows
 * keep the host's sentinel.
 *
 * For comparison the same graph without predicates, the experts checking
 * the count themselves and ending early: every expert is dispatched.
 *
 * That is the guide's size; four skipped experts' dispatches are small
 * beside the router's and the other experts' work. The same two forms
 * then run with WIDE_EXPERTS experts of which WIDE_ROUTED get tokens (a
 * sparse router, as in a large mixture of experts), each TIMED_RUNS times
 * in the order A B B A, untraced, then once traced (self-checking
 * experts-64, predicated experts-64); with PTO_TRACE_DIR set their
 * makespans and wall times go to moe.timing.json (make demo's MoE row).
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv() (example.h) under -std=c11 */
#endif
#include <string.h>

#include "example.h"

#define EXPERTS 8
#define WIDE_EXPERTS 64
#define WIDE_ROUTED 8
#define MAX_EXPERTS WIDE_EXPERTS
#define TIMED_RUNS 8
#define TOKENS 64
#define EXPERT_ROWS 16
#define EXPERT_BLOCKS 4
#define BLOCK_ROWS (EXPERT_ROWS / EXPERT_BLOCKS)
#define COLS 128
#define SENTINEL (-1)

/* Tensor arguments: router [assign, counts]; experts [out, counts]. */
enum { ARG_ASSIGN = 0, ARG_COUNTS = 1 };
enum { ARG_OUT = 0 };

/*
 * counts[0, e] = 0 for each of @experts; then counts[0, assign[0, t]] += 1
 * for all t.
 */
static struct pto_kernel *build_router(struct pto_device *dev, int experts)
{
	struct pto_kb *kb;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	pto_kb_ldi(kb, 0, 0);
	pto_kb_loopi(kb, 1, (uint32_t)experts);
	pto_kb_gst(kb, ARG_COUNTS, 0, 1, 0);
	pto_kb_endloop(kb);
	pto_kb_loopi(kb, 1, TOKENS);
	pto_kb_gld(kb, 2, ARG_ASSIGN, 0, 1);
	pto_kb_gld(kb, 3, ARG_COUNTS, 0, 2);
	pto_kb_alui(kb, PTO_ALU_ADD, 3, 3, 1);
	pto_kb_gst(kb, ARG_COUNTS, 0, 2, 3);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	return ex_finish(kb, "router");
}

/*
 * Expert e (scalar argument 0): its block fills rows
 * e * 16 + block * 4 .. + 4 of out with e, then out[row, 0] = counts[0, e].
 * With @self_check, an expert whose count is 0 ends at once instead.
 */
static struct pto_kernel *build_expert(struct pto_device *dev, bool self_check)
{
	struct pto_kb *kb;
	int t, done = -1;

	ex_check(pto_kb_new(dev, PTO_CORE_AIV, &kb), "kernel builder");
	t = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, BLOCK_ROWS, COLS);
	pto_kb_arg(kb, 0, 0);			/* s0 = e */
	pto_kb_ldi(kb, 1, 0);			/* s1 = 0 */
	pto_kb_gld(kb, 2, ARG_COUNTS, 1, 0);	/* s2 = counts[0, e] */
	if (self_check) {
		done = pto_kb_label_new(kb);
		pto_kb_jz(kb, 2, done);
	}
	pto_kb_sreg(kb, 3, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 3, 3, BLOCK_ROWS);
	pto_kb_alui(kb, PTO_ALU_MUL, 4, 0, EXPERT_ROWS);
	pto_kb_alu(kb, PTO_ALU_ADD, 3, 3, 4);	/* s3 = first row */
	pto_kb_tfill(kb, t, 0);
	pto_kb_tstore(kb, t, ARG_OUT, 3, 1);
	pto_kb_loopi(kb, 5, BLOCK_ROWS);
	pto_kb_alu(kb, PTO_ALU_ADD, 6, 3, 5);
	pto_kb_gst(kb, ARG_OUT, 6, 1, 2);
	pto_kb_endloop(kb);
	if (self_check)
		pto_kb_label_bind(kb, done);
	pto_kb_end(kb);
	return ex_finish(kb, self_check ? "expert (self-checking)" : "expert");
}

/* One size of the mixture: its tensors, kernels and expected counts. */
struct moe {
	struct pto_device *dev;
	struct pto_queue *q;
	int experts, empty;
	int32_t want_counts[MAX_EXPERTS];
	struct pto_tensor *assign, *counts, *out;
	struct pto_kernel *router, *expert, *expert_chk;
};

/* Tasks that reached a core, tasks skipped, first dispatch to last finish. */
static void run_figures(const struct pto_graph *g, unsigned int *dispatches,
			unsigned int *skipped, uint64_t *makespan_ns)
{
	unsigned int i;

	*skipped = 0;
	for (i = 0; i < pto_graph_task_count(g); i++)
		*skipped += pto_graph_task_status(g, i, NULL, NULL) ==
			    PTO_STATUS_SKIPPED;
	ex_run_figures(g, dispatches, makespan_ns);
}

static struct pto_graph *build_graph(const struct moe *m, bool predicated,
				     bool directed)
{
	static int64_t ids[MAX_EXPERTS];
	static struct pto_predicate preds[MAX_EXPERTS];
	struct pto_tensor *r_args[2] = { m->assign, m->counts };
	struct pto_tensor *e_args[2] = { m->out, m->counts };
	/*
	 * Directions instead of deps: the router writes counts, each expert
	 * reads it (read-after-write: the router). The experts write
	 * disjoint rows of out through the whole tensor: left undirected, or
	 * their ranges would overlap and order them one after another.
	 */
	static const uint8_t r_dirs[2] = { PTO_ARG_IN, PTO_ARG_INOUT };
	static const uint8_t e_dirs[2] = { 0, PTO_ARG_IN };
	struct pto_graph *g;
	int64_t dep = 0;
	int e;

	ex_check(pto_graph_new(m->dev, &g), "graph");
	ex_add(g, &(struct pto_task_desc){
			  .name = "router",
			  .kernel_aiv = m->router,
			  .block_num = 1,
			  .tensors = r_args,
			  .num_tensors = 2,
			  .tensor_dirs = directed ? r_dirs : NULL,
		  });
	for (e = 0; e < m->experts; e++) {
		char name[32];

		ids[e] = e;
		preds[e] = (struct pto_predicate){
			.tensor = ARG_COUNTS, .op = PTO_CMP_GT, .row = 0,
			.col = (uint32_t)e, .literal = 0,
		};
		snprintf(name, sizeof(name), "expert_%d", e);
		ex_add(g, &(struct pto_task_desc){
				  .name = name,
				  .kernel_aiv = predicated ? m->expert :
							     m->expert_chk,
				  .block_num = EXPERT_BLOCKS,
				  .tensors = e_args,
				  .num_tensors = 2,
				  .scalars = &ids[e],
				  .num_scalars = 1,
				  .deps = directed ? NULL : &dep,
				  .num_deps = directed ? 0 : 1,
				  .tensor_dirs = directed ? e_dirs : NULL,
				  .predicate = predicated ? &preds[e] : NULL,
			  });
	}
	return g;
}

/* The edges are the explicit form's: router -> each expert, nothing else. */
static void check_edges(const struct pto_graph *g, const char *what,
			bool inferred)
{
	unsigned int i;
	uint32_t dep;
	uint8_t inf;

	for (i = 0; i < pto_graph_task_count(g); i++) {
		int n = pto_graph_task_deps(g, i, &dep, &inf, 1);

		if (n != (i ? 1 : 0) || (n && (dep != 0 || inf != inferred)))
			ex_fail("%s: task %u has %d deps (first %u, inferred %u), want %s",
				what, i, n, n ? dep : 0, n ? inf : 0,
				i ? "the router" : "none");
	}
}

static void check_out(const struct moe *m, const char *what)
{
	const int32_t *po = pto_tensor_data(m->out);
	int e, r, c;

	for (e = 0; e < m->experts; e++) {
		for (r = e * EXPERT_ROWS; r < (e + 1) * EXPERT_ROWS; r++) {
			for (c = 0; c < COLS; c++) {
				int32_t got = po[r * COLS + c], want;

				if (!m->want_counts[e])
					want = SENTINEL;
				else
					want = c ? e : m->want_counts[e];
				if (got != want)
					ex_fail("%s: expert %d out[%d][%d] = %d, want %d%s",
						what, e, r, c, got, want,
						want == SENTINEL ?
							" (untouched)" : "");
			}
		}
	}
}

/* Counts, outputs and each expert's status after a run of @g. */
static void check_run(const struct moe *m, const struct pto_graph *g,
		      bool predicated, const char *what)
{
	const int32_t *pc = pto_tensor_data(m->counts);
	int e;

	for (e = 0; e < m->experts; e++)
		if (pc[e] != m->want_counts[e])
			ex_fail("%s: counts[0, %d] = %d, want %d", what, e,
				pc[e], m->want_counts[e]);
	check_out(m, what);
	for (e = 0; e < m->experts; e++) {
		int st = pto_graph_task_status(g, 1 + (unsigned int)e, NULL,
					       NULL);
		int want = predicated && !m->want_counts[e] ?
				   PTO_STATUS_SKIPPED :
				   PTO_STATUS_OK;

		if (st != want)
			ex_fail("%s: expert %d is %s, want %s", what, e,
				pto_status_name(st), pto_status_name(want));
	}
}

/* Run @g as @what from the sentinels, check it; returns the wall us. */
static double run_form(const struct moe *m, struct pto_graph *g,
		       bool predicated, const char *what)
{
	int32_t *po = pto_tensor_data(m->out), *pc = pto_tensor_data(m->counts);
	double t0;
	int t, e;

	for (t = 0; t < m->experts * EXPERT_ROWS * COLS; t++)
		po[t] = SENTINEL;
	for (e = 0; e < m->experts; e++)
		pc[e] = -100;	/* the router must overwrite it */
	t0 = ex_now_us();
	ex_run(g, m->q, what);
	t0 = ex_now_us() - t0;
	check_run(m, g, predicated, what);
	return t0;
}

/* The figures of @g's last run, and whether the predicate skipped all. */
static void report(const struct moe *m, const struct pto_graph *g,
		   bool predicated, const char *what)
{
	unsigned int dispatches, skipped;
	uint64_t makespan;

	run_figures(g, &dispatches, &skipped, &makespan);
	printf("  %s: experts with tokens %d of %d; skipped %u (skip ratio %.1f %%); dispatches %u, tasks %u, makespan %.1f us\n",
	       what, m->experts - m->empty, m->experts, skipped,
	       100.0 * skipped / m->experts, dispatches,
	       pto_graph_task_count(g), makespan / 1e3);
	if (predicated && skipped != (unsigned int)m->empty)
		ex_fail("%s: %u experts skipped, want %d", what, skipped,
			m->empty);
	printf("PASS moe %s\n", what);
}

/* @experts experts; token t goes to routed[(t * 5 + t / 7) % nrouted]. */
static void moe_setup(struct moe *m, struct pto_device *dev,
		      struct pto_queue *q, int experts, const int *routed,
		      int nrouted)
{
	int32_t *pa;
	int t, e;

	memset(m, 0, sizeof(*m));
	m->dev = dev;
	m->q = q;
	m->experts = experts;
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_I32, 2,
				  (const int64_t[]){ 1, TOKENS }, &m->assign),
		 "tensor assign");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_I32, 2,
				  (const int64_t[]){ 1, experts }, &m->counts),
		 "tensor counts");
	ex_check(pto_tensor_alloc(dev, PTO_DTYPE_I32, 2,
				  (const int64_t[]){ experts * EXPERT_ROWS,
						     COLS },
				  &m->out),
		 "tensor out");
	pa = pto_tensor_data(m->assign);
	for (t = 0; t < TOKENS; t++) {
		pa[t] = routed[(t * 5 + t / 7) % nrouted];
		m->want_counts[pa[t]]++;
	}
	for (e = 0; e < experts; e++)
		m->empty += !m->want_counts[e];
	m->router = build_router(dev, experts);
	m->expert = build_expert(dev, false);
	m->expert_chk = build_expert(dev, true);
}

static void moe_teardown(struct moe *m)
{
	pto_kernel_free(m->expert_chk);
	pto_kernel_free(m->expert);
	pto_kernel_free(m->router);
	pto_tensor_free(m->out);
	pto_tensor_free(m->counts);
	pto_tensor_free(m->assign);
}

/* The guide's size: 0 predicated; 1 self-checking; 2 directions only. */
static void guide_size(struct pto_device *dev, struct pto_queue *q)
{
	/* Tokens go to experts 0, 2, 3 and 7 only: 1, 4, 5, 6 get none. */
	static const int routed[] = { 0, 2, 3, 7, 2, 0, 7, 7, 3 };
	struct moe m;
	int form;

	moe_setup(&m, dev, q, EXPERTS, routed, 9);
	ex_trace_on(true);
	for (form = 0; form < 3; form++) {
		bool predicated = form != 1, directed = form == 2;
		const char *what = directed ? "predicated experts, inferred deps" :
				   predicated ? "predicated experts" :
						"self-checking experts";
		struct pto_graph *g = build_graph(&m, predicated, directed);

		check_edges(g, what, directed);
		run_form(&m, g, predicated, what);
		report(&m, g, predicated, what);
		pto_graph_free(g);
	}
	moe_teardown(&m);
}

/*
 * WIDE_EXPERTS experts, WIDE_ROUTED of them routed (every eighth):
 * TIMED_RUNS of each form (A B B A), untraced, then each once traced.
 */
static void sparse_router(struct pto_device *dev, struct pto_queue *q)
{
	static const char *const what[2] = { "self-checking experts-64",
					     "predicated experts-64" };
	static struct ex_timed timed[2];
	int routed[WIDE_ROUTED], i, f;
	struct pto_graph *g[2];
	int runs = ex_timed_runs(TIMED_RUNS);
	double med[2];
	struct moe m;

	for (i = 0; i < WIDE_ROUTED; i++)
		routed[i] = i * (WIDE_EXPERTS / WIDE_ROUTED) + 3;
	moe_setup(&m, dev, q, WIDE_EXPERTS, routed, WIDE_ROUTED);
	for (f = 0; f < 2; f++) {
		g[f] = build_graph(&m, f, false);
		check_edges(g[f], what[f], false);
		ex_timed_init(&timed[f], what[f]);
	}
	ex_trace_on(false);
	for (i = 0; i < 2 * runs; i++) {
		f = (i & 1) ^ ((i >> 1) & 1);
		ex_timed_add(&timed[f], g[f], run_form(&m, g[f], f, what[f]));
	}
	ex_trace_on(true);
	for (f = 0; f < 2; f++) {
		run_form(&m, g[f], f, what[f]);
		report(&m, g[f], f, what[f]);
		med[f] = ex_median(timed[f].makespan_us, timed[f].n);
		pto_graph_free(g[f]);
	}
	printf("%d experts, %d with tokens: makespan, median of %d runs: self-checking %.1f us, predicated %.1f us: %.2fx\n",
	       WIDE_EXPERTS, WIDE_EXPERTS - m.empty, runs, med[0], med[1],
	       med[1] > 0 ? med[0] / med[1] : 0.0);
	ex_timed_write(timed, 2);
	moe_teardown(&m);
}

int main(void)
{
	struct pto_device *dev;
	struct pto_queue *q;

	ex_name = "moe";
	(void)ex_print_blocks;
	ex_check(pto_device_open(0, &dev), "open device 0");
	/* Made with PTO_TRACE_DIR set (make demo): a profiling queue. */
	ex_check(pto_queue_create(dev, 0, 0, &q), "queue");
	ex_trace_hold();
	guide_size(dev, q);
	sparse_router(dev, q);
	ex_check(pto_queue_destroy(q), "destroy queue");
	pto_device_close(dev);
	printf("PASS moe\n");
	return 0;
}
