// SPDX-License-Identifier: MIT
/*
 * rows-mixed.c: pto-bench row 4 (two tasks vs one mixed cube+vector kernel).
 */
#include "bench.h"
#include "../../examples/mm_pipe.h"

/* ------------------------------------------------------------ row 4 */

/*
 * Cube + vector work: out[r] = (A x Bm)[r] + bias[r % TR], or with @exp
 * out[r] = exp((A x Bm)[r] + bias[r % TR]) (an attention-score epilogue):
 * examples/mm_pipe.h's kernels, which matmul_bias's pipelined form runs too.
 */
#ifndef MM4_K
#define MM4_K 24
#endif

static int build_cube(struct bench *B, const struct mm_shape *s, bool mixed,
		      struct pto_kernel **out)
{
	struct pto_kb *kb;

	if (pto_kb_new(B->dev, PTO_CORE_AIC, &kb)) {
		berr(B, "kernel builder");
		return -ENOMEM;
	}
	mm_pipe_cube(kb, s, mixed);
	return kb_done(B, kb, mixed ? "cube_push" : "cube_store", out);
}

static int build_vec(struct bench *B, const struct mm_shape *s, bool mixed,
		     struct pto_kernel **out)
{
	struct pto_kb *kb;

	if (pto_kb_new(B->dev, PTO_CORE_AIV, &kb)) {
		berr(B, "kernel builder");
		return -ENOMEM;
	}
	mm_pipe_vec(kb, s, mixed);
	return kb_done(B, kb, mixed ? "vec_pop_add" : "vec_load_add", out);
}

/* Spot-check out = A x Bm + bias (or its exp) at a few places. */
static bool check_mm_add(const struct mm_shape *s, struct pto_tensor *a,
			 struct pto_tensor *bm, struct pto_tensor *bias,
			 struct pto_tensor *out)
{
	const float *pa = pto_tensor_data(a), *pb = pto_tensor_data(bm);
	const float *pbias = pto_tensor_data(bias), *po = pto_tensor_data(out);
	size_t rows = (size_t)s->blocks * s->t * s->tr;
	unsigned int k, probe;

	for (probe = 0; probe < 16; probe++) {
		size_t r = (probe * 7919u) % rows, c = (probe * 104729u) % s->nd;
		double ref = pbias[(r % s->tr) * s->nd + c], mag = fabs(ref);

		for (k = 0; k < s->kd; k++) {
			double p = (double)pa[r * s->kd + k] * pb[k * s->nd + c];

			ref += p;
			mag += fabs(p);
		}
		if (s->exp) {
			/* d exp(x) = exp(x) dx; exp itself is within 1 ulp. */
			double e = exp(ref);

			if (fabs(po[r * s->nd + c] - e) > e * (1e-4 * mag + 1e-6))
				return false;
			continue;
		}
		if (fabs(po[r * s->nd + c] - ref) > 1e-4 * mag + 1e-6)
			return false;
	}
	return true;
}

/*
 * Timeline of a cube + vector run, us after the first dispatch: last AIC
 * start, last AIC end, first AIV start, last AIV end.
 */
static void mm_timeline(struct bench *B, struct row *r, const char *pfx)
{
	uint64_t t0 = UINT64_MAX, aic_start = 0, aic_end = 0;
	uint64_t aiv_start = UINT64_MAX, aiv_end = 0;
	char key[80];
	size_t i;

	for (i = 0; i < B->ncqe; i++) {
		const struct pto_block_info *b = &B->cqe[i].info;

		if (!(b->flags & PTO_BLOCK_RAN))
			continue;
		if (b->ts_dispatch < t0)
			t0 = b->ts_dispatch;
		if (b->core_type == PTO_CORE_AIC) {
			if (b->ts_start > aic_start)
				aic_start = b->ts_start;
			if (b->ts_end > aic_end)
				aic_end = b->ts_end;
		} else {
			if (b->ts_start < aiv_start)
				aiv_start = b->ts_start;
			if (b->ts_end > aiv_end)
				aiv_end = b->ts_end;
		}
	}
	if (t0 == UINT64_MAX || aiv_start == UINT64_MAX)
		return;
	snprintf(key, sizeof(key), "%s_last_aic_start_us", pfx);
	row_extra(r, key, (double)(aic_start - t0) / 1e3);
	snprintf(key, sizeof(key), "%s_last_aic_end_us", pfx);
	row_extra(r, key, (double)(aic_end - t0) / 1e3);
	snprintf(key, sizeof(key), "%s_first_aiv_start_us", pfx);
	row_extra(r, key, (double)(aiv_start - t0) / 1e3);
	snprintf(key, sizeof(key), "%s_last_aiv_end_us", pfx);
	row_extra(r, key, (double)(aiv_end - t0) / 1e3);
}

/* Row 4's tensors and kernels, for one shape. */
struct r4 {
	struct mm_shape s;
	struct pto_tensor *a, *bm, *c, *bias, *out;
	struct pto_kernel *cube, *vec, *mcube, *mvec;
};

/* The tensors and the kernels of both forms; on failure the row says why. */
static int r4_prepare(struct bench *B, struct r4 *x, struct row *r)
{
	const struct mm_shape *s = &x->s;
	size_t rows = (size_t)s->blocks * s->t * s->tr;
	char msg[256] = "";

	if (!(x->a = tensor2(B, PTO_DTYPE_F32, rows, s->kd)) ||
	    !(x->bm = tensor2(B, PTO_DTYPE_F32, s->kd, s->nd)) ||
	    !(x->c = tensor2(B, PTO_DTYPE_F32, rows, s->nd)) ||
	    !(x->bias = tensor2(B, PTO_DTYPE_F32, s->tr, s->nd)) ||
	    !(x->out = tensor2(B, PTO_DTYPE_F32, rows, s->nd))) {
		row_fail(r, "error", "%s", B->err);
		return -1;
	}
	fill_f32(x->a, 1);
	fill_f32(x->bm, 2);
	fill_f32(x->bias, 3);
	if (build_cube(B, s, false, &x->cube) || build_vec(B, s, false, &x->vec)) {
		row_fail(r, "error", "%s", B->err);
		return -1;
	}
	if (build_cube(B, s, true, &x->mcube) || build_vec(B, s, true, &x->mvec)) {
		row_fail(r, "not measured",
			 "mixed kernels (PUSH/POP) not available: %s", B->err);
		return -1;
	}
	if (pto_mixed_check(x->mcube, x->mvec, PTO_SPLIT_UP_DOWN, s->slots, msg,
			    sizeof(msg))) {
		row_fail(r, "not measured", "mixed task refused by libpto: %s",
			 msg);
		return -1;
	}
	return 0;
}

static void r4_free(struct r4 *x)
{
	pto_kernel_free(x->cube);
	pto_kernel_free(x->vec);
	pto_kernel_free(x->mcube);
	pto_kernel_free(x->mvec);
	pto_tensor_free(x->a);
	pto_tensor_free(x->bm);
	pto_tensor_free(x->c);
	pto_tensor_free(x->bias);
	pto_tensor_free(x->out);
}

/*
 * Over the kept CQEs: the kernel time (start->end) of the AIC and of the
 * AIV blocks, summed, us; the last AIC finish and the first AIV start.
 */
static void r4_kernel_sums(const struct bench *B, double *aic_us,
			   double *aiv_us, uint64_t *aic_end,
			   uint64_t *aiv_first)
{
	size_t i;

	*aic_us = *aiv_us = 0;
	*aic_end = 0;
	*aiv_first = UINT64_MAX;
	for (i = 0; i < B->ncqe; i++) {
		const struct pto_block_info *b = &B->cqe[i].info;

		if (b->core_type == PTO_CORE_AIC) {
			*aic_us += (double)(b->ts_end - b->ts_start) / 1e3;
			if (b->ts_finish > *aic_end)
				*aic_end = b->ts_finish;
		} else {
			*aiv_us += (double)(b->ts_end - b->ts_start) / 1e3;
			if (b->ts_start < *aiv_first)
				*aiv_first = b->ts_start;
		}
	}
}

/* Form A: the AIC matmul task, then the AIV task that depends on it. */
static int r4_two_tasks(struct bench *B, struct r4 *x, struct row *r, int rep,
			double *two)
{
	struct pto_tensor *t_mm[3] = { x->a, x->bm, x->c };
	struct pto_tensor *t_add[3] = { x->c, x->bias, x->out };
	static const int64_t prev = -1;
	struct pto_task_desc dm = { .kernel_aic = x->cube,
				    .block_num = x->s.blocks,
				    .tensors = t_mm, .num_tensors = 3 };
	struct pto_task_desc da = { .kernel_aiv = x->vec,
				    .block_num = 2 * x->s.blocks,
				    .tensors = t_add, .num_tensors = 3,
				    .deps = &prev, .num_deps = 1 };
	uint64_t aic_end, aiv_first;
	double aic_us, aiv_us;

	memset(pto_tensor_data(x->out), 0, pto_tensor_nbytes(x->out));
	if (push(B, &dm) || push(B, &da) || doorbell(B, 2, NULL) ||
	    drain(B, 2, false))
		return -EIO;
	*two = makespan_ns(B) / 1e3;
	if (!check_mm_add(&x->s, x->a, x->bm, x->bias, x->out))
		row_note(r, "two-task result mismatch (rep %d).", rep);
	r4_kernel_sums(B, &aic_us, &aiv_us, &aic_end, &aiv_first);
	if (rep) {
		mm_timeline(B, r, "two_task");
		row_extra(r, "two_task_aic_kernel_us_per_block", aic_us / x->s.blocks);
		row_extra(r, "two_task_aiv_kernel_us_per_block", aiv_us / (2 * x->s.blocks));
		row_extra(r, "two_task_last_aic_finish_to_first_aiv_start_us",
			  ((double)aiv_first - (double)aic_end) / 1e3);
	}
	return 0;
}

/* Form B: one mixed task. 1: libpto refused it, the row is over. */
static int r4_mixed_task(struct bench *B, struct r4 *x, struct row *r, int rep,
			 double *mix)
{
	struct pto_tensor *t_mix[4] = { x->a, x->bm, x->bias, x->out };
	struct pto_task_desc dx = { .kernel_aic = x->mcube,
				    .kernel_aiv = x->mvec,
				    .block_num = x->s.blocks,
				    .tensors = t_mix, .num_tensors = 4,
				    .split_mode = PTO_SPLIT_UP_DOWN,
				    .slot_num = x->s.slots };
	uint64_t aic_end, aiv_first;
	double aic_us, aiv_us;

	memset(pto_tensor_data(x->out), 0, pto_tensor_nbytes(x->out));
	if (push(B, &dx)) {
		row_fail(r, "not measured", "mixed task: %s", B->err);
		return 1;
	}
	if (doorbell(B, 1, NULL) || drain(B, 1, false))
		return -EIO;
	*mix = makespan_ns(B) / 1e3;
	if (!check_mm_add(&x->s, x->a, x->bm, x->bias, x->out))
		row_note(r, "mixed result mismatch (rep %d).", rep);
	r4_kernel_sums(B, &aic_us, &aiv_us, &aic_end, &aiv_first);
	if (rep) {
		mm_timeline(B, r, "mixed");
		row_extra(r, "mixed_aic_span_us_per_block", aic_us / x->s.blocks);
		row_extra(r, "mixed_aiv_span_us_per_block", aiv_us / (2 * x->s.blocks));
	}
	return 0;
}

/* Repetition 0 warms up (first use of the cores' memory). */
static void r4_reps(struct bench *B, struct r4 *x, struct row *r)
{
	int rep;

	for (rep = 0; rep <= B->reps; rep++) {
		double two, mix;
		int ret = r4_two_tasks(B, x, r, rep, &two);

		if (!ret)
			ret = r4_mixed_task(B, x, r, rep, &mix);
		if (ret > 0)
			break;
		if (ret) {
			if (rep_failed(r, B->err, rep))
				break;
			continue;
		}
		if (rep)
			row_pair(r, two, mix);
	}
}

static void row4_mixed(struct bench *B, const char *id, const char *title,
		       struct mm_shape s, bool with_target)
{
	const struct row_head head = {
		.id = id,
		.title = title,
		.a_label = "two tasks", .a_unit = "us",
		.b_label = "mixed task", .b_unit = "us",
		.ratio_def = "two tasks / mixed",
		.op = with_target ? T_GE : T_NONE, .target = with_target ? 1.3 : 0,
		.target_text = with_target ? "two tasks >= 1.3 x mixed" :
					     "none (diagnostic)",
	};
	size_t rows = (size_t)s.blocks * s.t * s.tr;
	struct r4 x = { .s = s };
	struct row r;

	row_start(&r, &head,
		  "out = %sA x B + bias%s over %zu x %u f32 (%u blocks x %u tiles of %ux%ux%u): AIC matmul task writing GM + dependent AIV %s task (%u blocks) vs one mixed task (AIC PUSH -> 2 AIV POP + %s, UP_DOWN, slot_num %u); device makespan",
		  s.exp ? "exp(" : "", s.exp ? ")" : "", rows, s.nd, s.blocks,
		  s.t, s.tr, s.kd, s.nd, s.exp ? "add+exp" : "add",
		  2 * s.blocks, s.exp ? "add+exp" : "add", s.slots);
	if (with_target && sysconf(_SC_NPROCESSORS_ONLN) < 2)
		row_note(&r, "one vCPU: the cube and vector halves cannot run at the same time, so there is no overlap to measure (make bench runs this row on BENCH_SMP_PAR vCPUs).");
	if (!r4_prepare(B, &x, &r))
		r4_reps(B, &x, &r);
	row_emit(&r);
	r4_free(&x);
}

void row4_mixed_all(struct bench *B)
{
	/*
	 * A pipeline: one cluster streams 8 row tiles, the vector
	 * epilogue about as long as the cube work (K chosen so).
	 */
	row4_mixed(B, "4", "two tasks vs one mixed kernel",
		   (struct mm_shape){ .tr = 64, .kd = MM4_K, .nd = 128,
		   .t = 16, .blocks = 1, .slots = 4, .exp = true }, true);
	/* Overhead-dominated: tiny tiles over the whole device. */
	row4_mixed(B, "4b", "two tasks vs mixed, tiny tiles (diagnostic)",
		   (struct mm_shape){ .tr = 8, .kd = 8, .nd = 32, .t = 2,
		   .blocks = B->clusters, .slots = 2 }, false);
	/* The guide's shape: one tile per block, nothing to overlap. */
	row4_mixed(B, "4c", "two tasks vs mixed, one tile per block (diagnostic)",
		   (struct mm_shape){ .tr = 64, .kd = 128, .nd = 128,
		   .t = 1, .blocks = 4, .slots = 2 }, false);
}
