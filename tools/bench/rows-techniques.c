// SPDX-License-Identifier: MIT
/*
 * rows-techniques.c: pto-bench rows 3, 5, 6 and 7 (SPMD, predicates,
 * early resolve, barriers).
 */
#include "bench.h"

/* ------------------------------------------------------------ row 3 */

/*
 * Where a form's time went, from its CQEs' timestamps (the kernel's
 * CLOCK_MONOTONIC, as now_ns()): push to the first block's dispatch, the
 * first block's start to the last one's finish, and that to the drain's end.
 */
struct form_spans {
	double to_dispatch_us, blocks_us, to_drained_us;
};

static void form_spans(const struct bench *B, int64_t t0, int64_t t2,
		       struct form_spans *fs)
{
	uint64_t disp = UINT64_MAX, start = UINT64_MAX, fin = 0;
	size_t i;

	for (i = 0; i < B->ncqe && i < CQE_CAP; i++) {
		const struct pto_block_info *b = &B->cqe[i].info;

		if (b->ts_dispatch && b->ts_dispatch < disp)
			disp = b->ts_dispatch;
		if (b->ts_start && b->ts_start < start)
			start = b->ts_start;
		if (b->ts_finish > fin)
			fin = b->ts_finish;
	}
	if (disp == UINT64_MAX || start == UINT64_MAX || !fin) {
		fs->to_dispatch_us = fs->blocks_us = fs->to_drained_us = NAN;
		return;
	}
	fs->to_dispatch_us = ((double)disp - (double)t0) / 1e3;
	fs->blocks_us = ((double)fin - (double)start) / 1e3;
	fs->to_drained_us = ((double)t2 - (double)fin) / 1e3;
}

/* @n single-block tasks, or one task of @n blocks; us from push to last CQE. */
static int spmd_form(struct bench *B, unsigned int n, bool spmd, double *us,
		     uint64_t *dispatches, uint64_t *intake_ns,
		     struct form_spans *fs)
{
	struct pto_task_desc d = empty_task(B);
	struct drm_pto_npu_counters c0, c1;
	unsigned int i, tasks = spmd ? 1 : n;
	int64_t t0, t1, t2;
	int ret;

	if ((ret = query_counters(B, &c0))) {
		berr(B, "counters: %s", pto_strerror(ret));
		return ret;
	}
	d.block_num = spmd ? n : 1;
	t0 = now_ns();
	for (i = 0; i < tasks; i++)
		if ((ret = push(B, &d)))
			return ret;
	if ((ret = doorbell(B, tasks, NULL)))
		return ret;
	t1 = now_ns();
	if ((ret = drain(B, tasks, false)))
		return ret;
	t2 = now_ns();
	query_counters(B, &c1);
	*us = (double)(t2 - t0) / 1e3;
	*dispatches = c1.dispatches - c0.dispatches;
	*intake_ns = t1 - t0;
	form_spans(B, t0, t2, fs);
	return 0;
}

/* One repetition of row 3, summed per form (0: N tasks, 1: one SPMD task). */
struct r3_sums {
	double us[2], intake_us[2];
	uint64_t disp[2];
	struct form_spans fs[2];
};

/* @inner runs of each form, the order alternating run by run: A B, then B A. */
static int r3_rep(struct bench *B, unsigned int n, unsigned int inner,
		  struct r3_sums *s)
{
	struct form_spans fs;
	uint64_t disp, intake;
	unsigned int k;
	double us;

	memset(s, 0, sizeof(*s));
	for (k = 0; k < 2 * inner; k++) {
		int spmd = (k & 1) ^ ((k >> 1) & 1);

		if (spmd_form(B, n, spmd, &us, &disp, &intake, &fs))
			return -1;
		s->fs[spmd].to_dispatch_us += fs.to_dispatch_us;
		s->fs[spmd].blocks_us += fs.blocks_us;
		s->fs[spmd].to_drained_us += fs.to_drained_us;
		s->us[spmd] += us;
		s->disp[spmd] = disp;
		s->intake_us[spmd] += intake / 1e3;
	}
	return 0;
}

static void r3_extras(struct row *r, const struct r3_sums *s, unsigned int n,
		      unsigned int inner)
{
	int f;

	row_extra(r, "n_tasks_dispatches", (double)s->disp[0]);
	row_extra(r, "spmd_dispatches", (double)s->disp[1]);
	row_extra(r, "n_tasks_push_and_doorbell_us", s->intake_us[0] / inner);
	row_extra(r, "spmd_push_and_doorbell_us", s->intake_us[1] / inner);
	row_extra(r, "n_tasks_us_per_block", s->us[0] / inner / n);
	row_extra(r, "spmd_us_per_block", s->us[1] / inner / n);
	for (f = 0; f < 2; f++) {
		const char *pfx = f ? "spmd" : "n_tasks";
		char key[64];

		snprintf(key, sizeof(key), "%s_push_to_first_dispatch_us", pfx);
		row_extra(r, key, s->fs[f].to_dispatch_us / inner);
		snprintf(key, sizeof(key), "%s_first_start_to_last_finish_per_block_us", pfx);
		row_extra(r, key, s->fs[f].blocks_us / inner / n);
		snprintf(key, sizeof(key), "%s_last_finish_to_drained_us", pfx);
		row_extra(r, key, s->fs[f].to_drained_us / inner);
	}
}

static void row3_spmd(struct bench *B, unsigned int n)
{
	char id[8];
	struct row_head head = {
		.id = id,
		.title = n == 48 ? "N dispatches vs SPMD, N = 48" :
			 n == 4 ? "N dispatches vs SPMD, N = 4" :
				  "N dispatches vs SPMD, N = 480",
		.a_label = "N tasks", .a_unit = "us",
		.b_label = "1 SPMD task", .b_unit = "us",
		.ratio_def = "N tasks / SPMD",
		.op = n == 48 ? T_GE : T_NONE, .target = n == 48 ? 4.0 : 0,
		.target_text = n == 48 ? "N tasks >= 4 x SPMD (N = 48)" :
					 "none (target is for N = 48)",
	};
	unsigned int inner = 960 / n;
	struct r3_sums s;
	struct row r;
	int rep;

	if (inner < 1)
		inner = 1;
	if (inner > 25)
		inner = 25;
	if (B->quick && inner > 5)
		inner = 5;
	snprintf(id, sizeof(id), "3.%u", n);
	row_start(&r, &head,
		  "%u single-block empty AIV tasks vs one SPMD task of %u blocks, one doorbell each form, push to last CQE (mean of %u runs of each per repetition, order A B B A)",
		  n, n, inner);
	for (rep = 0; rep < B->reps; rep++) {
		if (r3_rep(B, n, inner, &s)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		row_pair(&r, s.us[0] / inner, s.us[1] / inner);
		r3_extras(&r, &s, n, inner);
	}
	row_emit(&r);
}

/* Row 3 at three sizes: 3.4, 3.48 (the target) and 3.480. */
void row3_spmd_all(struct bench *B)
{
	row3_spmd(B, 4);
	row3_spmd(B, 48);
	row3_spmd(B, 480);
}

/* ------------------------------------------------------------ row 5 */

static int predicated_batch(struct bench *B, struct row *r, unsigned int n,
			    struct pto_tensor *gate, int32_t value, double *us)
{
	struct pto_predicate pred = { .tensor = 0, .op = PTO_CMP_GT,
				      .row = 0, .col = 0, .literal = 0 };
	struct pto_task_desc d = empty_task(B);
	const char *pfx = value ? "dispatched" : "skipped";
	int want = value ? PTO_STATUS_OK : PTO_STATUS_SKIPPED;
	unsigned int i;
	char key[64];
	int64_t t[4];
	int ret;

	*(int32_t *)pto_tensor_data(gate) = value;
	d.tensors = &gate;
	d.num_tensors = 1;
	d.predicate = &pred;
	if ((ret = batch_run(B, &d, n, true, t)))
		return ret;
	*us = (double)(t[3] - t[0]) / 1e3 / n;
	for (i = 0; i < B->ncqe && i < n; i++) {
		if (B->cqe[i].info.status != want) {
			berr(B, "predicate %d: task ended %s", value,
			     pto_status_name(B->cqe[i].info.status));
			return -EIO;
		}
	}
	batch_extras(r, pfx, t, n);
	snprintf(key, sizeof(key), "%s_drain_after_doorbell_us_per_task", pfx);
	row_extra(r, key, *us - (double)(t[2] - t[0]) / 1e3 / n);
	if (value)
		block_spans(B, r, pfx);
	return 0;
}

struct r5_arg {
	unsigned int n;
	struct pto_tensor *gate;
};

/* Row 5's form A: the gate at 0, every task skipped; B: at 1, dispatched. */
static int row5_form(struct bench *B, struct row *r, bool dispatched,
		     const void *arg, double *us)
{
	const struct r5_arg *a = arg;

	return predicated_batch(B, r, a->n, a->gate, dispatched, us);
}

void row5_predicate(struct bench *B)
{
	static const struct row_head head = {
		.id = "5",
		.title = "skipped predicated task vs dispatched",
		.a_label = "skipped", .a_unit = "us/task",
		.b_label = "dispatched", .b_unit = "us/task",
		.ratio_def = "skipped / dispatched",
		.op = T_LE, .target = 0.25,
		.target_text = "skip <= 0.25 x dispatch",
	};
	struct r5_arg a = {
		.n = B->quick ? 500 : 2000,
		.gate = tensor2(B, PTO_DTYPE_I32, 1, 16),
	};
	struct row r;

	row_start(&r, &head,
		  "%u empty AIV tasks with predicate gate[0,0] > 0, gate 0 (skipped) vs 1 (dispatched); push to last CQE per task",
		  a.n);
	if (!a.gate) {
		row_error(&r, B->err);
		return;
	}
	row_abba(B, &r, row5_form, &a, 0);
	row_emit(&r);
	pto_tensor_free(a.gate);
}

/* ------------------------------------------------------------ row 6 */

/*
 * The gate, then a chain of @len empty tasks (each on the one before,
 * flags @fl), rung, the gate opened, drained. *first_id: the gate's id.
 */
static int chain_run(struct bench *B, unsigned int len, uint32_t fl,
		     uint64_t *first_id)
{
	static const int64_t prev = -1;
	struct pto_task_desc d = empty_task(B);
	unsigned int i;
	int ret;

	if ((ret = gate_push(B, fl)))
		return ret;
	d.flags = fl;
	d.deps = &prev;
	d.num_deps = 1;
	for (i = 0; i < len; i++)
		if ((ret = push(B, &d)))
			return ret;
	if ((ret = doorbell(B, len + 1, first_id)))
		return ret;
	if ((ret = gate_open(B))) {
		gate_abort(B, len + 1);
		return ret;
	}
	return drain(B, len + 1, false);
}

/*
 * From the chain's CQEs: each task's ts_start in @st and ts_end in @en
 * (by place in the chain), dispatch-to-start in @pick (returns how
 * many); *staged: how many ran staged.
 */
static unsigned int chain_scan(const struct bench *B, unsigned int len,
			       uint64_t first_id, uint64_t *st, uint64_t *en,
			       double *pick, unsigned int *staged)
{
	unsigned int i, k = 0;

	for (i = 0; i < B->ncqe; i++) {
		const struct pto_cqe *c = &B->cqe[i];
		uint64_t idx = c->task_id - first_id;

		if (idx < 1 || idx > len)
			continue;
		st[idx - 1] = c->info.ts_start;
		en[idx - 1] = c->info.ts_end;
		pick[k++] = (double)(c->info.ts_start - c->info.ts_dispatch) / 1e3;
		*staged += !!(c->info.flags & PTO_BLOCK_STAGED);
	}
	return k;
}

/*
 * The chain's figures (extras named after @pfx) from its CQEs; *gap_us:
 * the median gap. 0, or -ENOMEM.
 */
static int chain_figures(struct bench *B, struct row *r, unsigned int len,
			 uint64_t first_id, const char *pfx, double *gap_us)
{
	uint64_t *st = calloc(len, sizeof(*st)), *en = calloc(len, sizeof(*en));
	double *gaps = calloc(len, sizeof(*gaps));
	double *pick = calloc(len, sizeof(*pick));
	unsigned int i, k, staged = 0;
	char key[64];
	int ret = 0;

	if (!st || !en || !gaps || !pick) {
		ret = -ENOMEM;
		goto out;
	}
	k = chain_scan(B, len, first_id, st, en, pick, &staged);
	snprintf(key, sizeof(key), "%s_dispatch_to_start_us", pfx);
	row_extra(r, key, median_of(pick, k));
	snprintf(key, sizeof(key), "%s_staged_tasks", pfx);
	row_extra(r, key, staged);
	for (i = 0, k = 0; i + 1 < len; i++)
		gaps[k++] = ((double)st[i + 1] - (double)en[i]) / 1e3;
	*gap_us = median_of(gaps, k);
	snprintf(key, sizeof(key), "%s_chain_makespan_us_per_task", pfx);
	row_extra(r, key, ((double)en[len - 1] - (double)st[0]) / 1e3 / len);
out:
	free(st);
	free(en);
	free(gaps);
	free(pick);
	return ret;
}

/*
 * The gate (held at its barrier until the whole chain has been taken),
 * then a chain of @len empty tasks. Gaps: ts_start of task i+1 minus
 * ts_end of task i, over the chain.
 */
static int chain_gaps(struct bench *B, struct row *r, unsigned int len,
		      bool early, double *gap_us)
{
	uint64_t first_id = 0;
	int ret;

	if ((ret = chain_run(B, len, early ? PTO_TASK_EARLY_RESOLVE : 0,
			     &first_id)))
		return ret;
	return chain_figures(B, r, len, first_id, early ? "on" : "off", gap_us);
}

/* Row 6's form A: allow_early_resolve off; B: on. @arg: the chain's length. */
static int row6_form(struct bench *B, struct row *r, bool early,
		     const void *arg, double *gap_us)
{
	return chain_gaps(B, r, *(const unsigned int *)arg, early, gap_us);
}

void row6_early(struct bench *B)
{
	static const struct row_head head = {
		.id = "6",
		.title = "early resolve: producer end -> consumer start",
		.a_label = "flag off", .a_unit = "us",
		.b_label = "flag on", .b_unit = "us",
		.ratio_def = "off / on",
		.op = T_GE, .target = 3.0,
		.target_text = "gap >= 3 x smaller with the flag",
	};
	/* Pre-staging needs idle cores: the gate holds one AIV. */
	unsigned int len = B->aiv > 8 ? B->aiv - 8 : 2;
	struct row r;

	row_start(&r, &head,
		  "chain of %u empty AIV tasks taken behind a gate, median [end of task i -> start of task i+1] from CQE timestamps, allow_early_resolve off vs on",
		  len);
	row_abba(B, &r, row6_form, &len, 0);
	row_emit(&r);
}

/* ------------------------------------------------------------ row 7 */

static int build_syncall(struct bench *B, bool soft, unsigned int k,
			 struct pto_kernel **out)
{
	struct pto_insn in[6];
	uint32_t n = 0;

	if (soft) {
		in[n++] = insn(PTO_OP_ARG, 1, 0, 0, 0, 0, 0);
		in[n++] = insn(PTO_OP_LOOP, 2, 0, 0, 0, PTO_INSN_F_IMM, k);
		in[n++] = insn(PTO_OP_SYNCALL, 0, 1, 0, PTO_SYNC_SOFT, 0, 0);
	} else {
		in[n++] = insn(PTO_OP_LOOP, 2, 0, 0, 0, PTO_INSN_F_IMM, k);
		in[n++] = insn(PTO_OP_SYNCALL, 0, 0, 0, PTO_SYNC_HARD, 0,
			       PTO_SYNC_AIV);
	}
	in[n++] = insn(PTO_OP_ENDLOOP, 0, 0, 0, 0, 0, 0);
	in[n++] = insn(PTO_OP_END, 0, 0, 0, 0, 0, 0);
	return kernel_raw(B, PTO_CORE_AIV, in, n, out);
}

static int barrier_tasks(struct bench *B, unsigned int k, double *per_us)
{
	static const int64_t prev = -1;
	struct pto_task_desc d = empty_task(B);
	unsigned int i;
	int ret;

	d.block_num = B->aiv;
	for (i = 0; i <= k; i++) {
		d.deps = i ? &prev : NULL;
		d.num_deps = i ? 1 : 0;
		if ((ret = push(B, &d)))
			return ret;
	}
	if ((ret = doorbell(B, k + 1, NULL)) || (ret = drain(B, k + 1, false)))
		return ret;
	*per_us = makespan_ns(B) / 1e3 / k;
	return 0;
}

static int barrier_kernel(struct bench *B, struct pto_kernel *kern,
			  struct pto_tensor *ws, unsigned int k, double *per_us)
{
	const int64_t used = B->aiv;
	struct pto_task_desc d = {
		.kernel_aiv = kern,
		.block_num = B->aiv,
		.flags = PTO_TASK_SYNC_START,
		.tensors = &ws,
		.num_tensors = ws ? 1 : 0,
		.scalars = &used,
		.num_scalars = 1,
	};
	int ret;

	if (ws)
		memset(pto_tensor_data(ws), 0, 64);
	if ((ret = push(B, &d)) || (ret = doorbell(B, 1, NULL)) ||
	    (ret = drain(B, 1, false)))
		return ret;
	*per_us = makespan_ns(B) / 1e3 / k;
	return 0;
}

static const struct row_head r7a_head = {
	.id = "7a",
	.title = "two-task barrier vs in-kernel HARD syncall",
	.a_label = "two tasks", .a_unit = "us/barrier",
	.b_label = "HARD syncall", .b_unit = "us/barrier",
	.ratio_def = "two tasks / HARD",
	.op = T_GE, .target = 2.0,
	.target_text = "two-task barrier >= 2 x HARD",
};

static const struct row_head r7b_head = {
	.id = "7b",
	.title = "SOFT vs HARD syncall",
	.a_label = "SOFT", .a_unit = "us/barrier",
	.b_label = "HARD", .b_unit = "us/barrier",
	.ratio_def = "SOFT / HARD",
	.op = T_LE, .target = 3.0,
	.target_text = "SOFT <= 3 x HARD",
};

void row7_barrier(struct bench *B)
{
	unsigned int k = B->quick ? 8 : 32;
	struct pto_kernel *k_hard = NULL, *k_soft = NULL;
	struct pto_tensor *ws = tensor2(B, PTO_DTYPE_I32, 1, 16);
	struct row r1, r2;
	int rep;

	row_start(&r1, &r7a_head,
		  "per barrier: chain of %u+1 empty SPMD tasks over all %u AIVs (makespan / %u) vs one sync_start task of %u blocks running %u HARD syncalls (makespan / %u)",
		  k, B->aiv, k, B->aiv, k, k);
	row_start(&r2, &r7b_head,
		  "per barrier: %u SOFT syncalls (16 x int32 GM workspace, used_cores %u) vs %u HARD syncalls, one sync_start task of %u AIV blocks each",
		  k, B->aiv, k, B->aiv);
	if (!ws || build_syncall(B, false, k, &k_hard) ||
	    build_syncall(B, true, k, &k_soft)) {
		row_fail(&r1, "error", "%s", B->err);
		row_fail(&r2, "error", "%s", B->err);
		goto done;
	}
	for (rep = 0; rep < B->reps; rep++) {
		double two, hard, soft, two2, hard2, soft2;

		if (barrier_tasks(B, k, &two) ||
		    barrier_kernel(B, k_hard, NULL, k, &hard) ||
		    barrier_kernel(B, k_soft, ws, k, &soft) ||
		    barrier_kernel(B, k_soft, ws, k, &soft2) ||
		    barrier_kernel(B, k_hard, NULL, k, &hard2) ||
		    barrier_tasks(B, k, &two2)) {
			bool stop = rep_failed(&r1, B->err, rep);

			if (rep_failed(&r2, B->err, rep) || stop)
				break;
			continue;
		}
		two = (two + two2) / 2;
		hard = (hard + hard2) / 2;
		soft = (soft + soft2) / 2;
		row_pair(&r1, two, hard);
		row_pair(&r2, soft, hard);
	}
done:
	row_emit(&r1);
	row_emit(&r2);
	pto_kernel_free(k_hard);
	pto_kernel_free(k_soft);
	pto_tensor_free(ws);
}
