// SPDX-License-Identifier: MIT
/*
 * rows-overhead.c: pto-bench rows 1, 2, 13 and 15 (per-task overheads).
 */
#include "bench.h"

/* ------------------------------------------------------------ row 1 */

double null_ioctl_us(struct bench *B, int n)
{
	int fd = pto_device_fd(B->dev), i;
	int64_t t0 = now_ns();

	for (i = 0; i < n; i++) {
		struct drm_pto_npu_query q = { .type = DRM_PTO_NPU_QUERY_DEVICE };

		if (ioctl(fd, DRM_IOCTL_PTO_NPU_QUERY, &q))
			return NAN;
	}
	return (double)(now_ns() - t0) / 1e3 / n;
}

/* Push @n empty tasks, ring once, drain; times per task in us. */
int empty_batch(struct bench *B, struct row *r, unsigned int n,
		const char *pfx, double *per_task_us)
{
	struct pto_task_desc d = empty_task(B);
	char key[64];
	int64_t t[4];
	int ret;

	if ((ret = batch_run(B, &d, n, false, t)))
		return ret;
	*per_task_us = (double)(t[3] - t[0]) / 1e3 / n;
	if (r && pfx) {
		batch_extras(r, pfx, t, n);
		snprintf(key, sizeof(key), "%s_drain_after_doorbell_us_per_task", pfx);
		row_extra(r, key, (double)(t[3] - t[2]) / 1e3 / n);
		snprintf(key, sizeof(key), "%s_device_makespan_us_per_task", pfx);
		row_extra(r, key, makespan_ns(B) / 1e3 / n);
		block_spans(B, r, pfx);
	}
	return 0;
}

void row1_overhead(struct bench *B)
{
	static const struct row_head head = {
		.id = "1",
		.title = "per-task overhead vs null ioctl",
		.a_label = "empty task", .a_unit = "us/task",
		.b_label = "null ioctl", .b_unit = "us/call",
		.ratio_def = "task / null ioctl",
		.op = T_LE, .target = 2.0,
		.target_text = "task <= 2 x null ioctl",
	};
	unsigned int n = B->quick ? 500 : 2000;
	int nio = B->quick ? 2000 : 10000, rep;
	struct row r;
	double task_us, io_us;

	row_start(&r, &head,
		  "empty AIV task (END), %u per doorbell, push to last CQE vs DRM_IOCTL_PTO_NPU_QUERY size 0",
		  n);
	/* Warm up: page in the rings, spawn the workers. */
	if (empty_batch(B, NULL, n, NULL, &task_us)) {
		row_error(&r, B->err);
		return;
	}
	for (rep = 0; rep < B->reps; rep++) {
		double t2, io2;

		io_us = null_ioctl_us(B, nio);
		if (empty_batch(B, &r, n, "task", &task_us) ||
		    empty_batch(B, &r, n, "task", &t2)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		io2 = null_ioctl_us(B, nio);
		row_pair(&r, (task_us + t2) / 2, (io_us + io2) / 2);
	}
	row_emit(&r);
}

/* ------------------------------------------------------------ row 2 */

static int fan_or_chain(struct bench *B, struct row *r, unsigned int n,
			bool chain, double *tps)
{
	static const int64_t prev = -1;
	struct pto_task_desc d = empty_task(B);
	int64_t t0, t1, t2;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		d.deps = chain && i ? &prev : NULL;
		d.num_deps = chain && i ? 1 : 0;
		if ((ret = push(B, &d)))
			return ret;
	}
	t0 = now_ns();
	if ((ret = doorbell(B, n, NULL)))
		return ret;
	t1 = now_ns();
	if ((ret = drain(B, n, false)))
		return ret;
	t2 = now_ns();
	*tps = n / ((double)(t2 - t0) / 1e9);
	row_extra(r, chain ? "chain_doorbell_intake_us_per_task" :
			     "fan_doorbell_intake_us_per_task",
		  (double)(t1 - t0) / 1e3 / n);
	row_extra(r, chain ? "chain_device_tasks_per_s" : "fan_device_tasks_per_s",
		  n / (makespan_ns(B) / 1e9));
	block_spans(B, r, chain ? "chain" : "fan");
	return 0;
}

/* Row 2's form A is the chain, B the fan; @arg: the number of tasks. */
static int row2_form(struct bench *B, struct row *r, bool fan,
		     const void *arg, double *tps)
{
	return fan_or_chain(B, r, *(const unsigned int *)arg, !fan, tps);
}

void row2_throughput(struct bench *B)
{
	static const struct row_head head = {
		.id = "2",
		.title = "scheduler throughput: chain vs fan",
		.a_label = "chain", .a_unit = "tasks/s",
		.b_label = "fan", .b_unit = "tasks/s",
		.ratio_def = "chain / fan",
		.op = T_GE, .target = 0.5,
		.target_text = "chain >= 50% of fan",
	};
	unsigned int n = B->quick ? 500 : 2000;
	struct row r;

	row_start(&r, &head,
		  "%u empty tasks, each depending on the previous (chain) vs %u independent (fan); doorbell to last CQE",
		  n, n);
	/* Fan first: B A A B. Rates: average the times, not the rates. */
	row_abba(B, &r, row2_form, &n, ABBA_B_FIRST | ABBA_RATES);
	row_emit(&r);
}

/* ------------------------------------------------------------ row 13 */

/*
 * @n empty tasks with one tensor (the gate's workspace, never touched by
 * the empty kernel): @chain orders each after the previous, by a named
 * dependency or (@dirs) by an INOUT direction; otherwise they are
 * independent, no dependency or (@dirs) all reading the tensor (IN: no
 * edge, but each read range enters the context's trees). Push to last CQE,
 * us per task.
 */
static int infer_batch(struct bench *B, unsigned int n, bool chain, bool dirs,
		       double *per_task_us)
{
	static const int64_t prev = -1;
	const uint8_t dir = chain ? PTO_ARG_INOUT : PTO_ARG_IN;
	struct pto_task_desc d = empty_task(B);
	struct pto_tensor *t = B->gate_ws;
	int64_t t0;
	unsigned int i;
	int ret;

	d.tensors = &t;
	d.num_tensors = 1;
	d.tensor_dirs = dirs ? &dir : NULL;
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		d.deps = chain && !dirs && i ? &prev : NULL;
		d.num_deps = chain && !dirs && i ? 1 : 0;
		if ((ret = push(B, &d)))
			return ret;
	}
	if ((ret = doorbell(B, n, NULL)) || (ret = drain(B, n, false)))
		return ret;
	*per_task_us = (double)(now_ns() - t0) / 1e3 / n;
	return 0;
}

void row13_infer(struct bench *B)
{
	static const struct row_head head = {
		.id = "13",
		.title = "dependency inference overhead per task",
		.a_label = "inferred chain", .a_unit = "us/task",
		.b_label = "explicit chain", .b_unit = "us/task",
		.ratio_def = "inferred / explicit",
		.op = T_LE, .target = 1.25,
		.target_text = "inferred <= 1.25 x explicit",
	};
	unsigned int n = B->quick ? 500 : 2000;
	struct row r;
	double c_dir, c_exp, f_dir, f_exp;
	int rep;

	row_start(&r, &head,
		  "%u empty tasks with one tensor, a chain by INOUT directions vs by named deps (-1); independent: IN vs none, in extras",
		  n);
	if (infer_batch(B, n, true, true, &c_dir)) {
		row_error(&r, B->err);
		return;
	}
	for (rep = 0; rep < B->reps; rep++) {
		double c_dir2, c_exp2;

		if (infer_batch(B, n, true, false, &c_exp) ||
		    infer_batch(B, n, true, true, &c_dir) ||
		    infer_batch(B, n, true, true, &c_dir2) ||
		    infer_batch(B, n, true, false, &c_exp2) ||
		    infer_batch(B, n, false, false, &f_exp) ||
		    infer_batch(B, n, false, true, &f_dir)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		row_extra(&r, "independent_in_us_per_task", f_dir);
		row_extra(&r, "independent_none_us_per_task", f_exp);
		row_pair(&r, (c_dir + c_dir2) / 2, (c_exp + c_exp2) / 2);
	}
	row_emit(&r);
}

/* ------------------------------------------------------------ row 15 */

/*
 * What profiling costs: the waits and, since uapi 6, the scheduler's
 * records (clock reads around each intake, placement, unit end and
 * completion walk; Documentation/uapi.rst). Row 1's batch of empty
 * tasks, all scheduler work, on a profiling queue vs a plain one,
 * alternated.
 */
void row15_profile(struct bench *B)
{
	static const struct row_head head = {
		.id = "15",
		.title = "profiling queue vs plain queue, per task",
		.a_label = "profiling", .a_unit = "us/task",
		.b_label = "plain", .b_unit = "us/task",
		.ratio_def = "profiling / plain",
		.op = T_LE, .target = 1.25,
		.target_text = "profiling <= 1.25 x plain",
	};
	static const uint32_t qflags[2] = { 0, PTO_QUEUE_PROFILE };
	unsigned int n = B->quick ? 500 : 2000, m;
	struct pto_queue *qs[2] = { NULL }, *saved = B->q;
	struct row r;
	int rep;

	row_start(&r, &head,
		  "empty AIV task (END), %u per doorbell, push to last CQE, on a queue with PTO_QUEUE_PROFILE (waits, scheduler records) vs without",
		  n);
	if (queues_create(B, qflags, 2, qs)) {
		row_fail(&r, "error", "%s", B->err);
		goto done;
	}
	for (rep = -1; rep < B->reps; rep++) {
		double t[2];
		int ret = 0;

		/* Alternate which goes first; rep -1 warms both up. */
		for (m = 0; m < 2 && !ret; m++) {
			unsigned int q = (m + (rep > 0 ? rep : 0)) % 2;

			B->q = qs[q];
			ret = empty_batch(B, NULL, n, NULL, &t[q]);
		}
		B->q = saved;
		if (ret) {
			if (rep_failed(&r, B->err, rep < 0 ? 0 : rep))
				break;
			continue;
		}
		if (rep >= 0)
			row_pair(&r, t[1], t[0]);
	}
done:
	B->q = saved;
	row_emit(&r);
	for (m = 0; m < 2; m++)
		if (qs[m])
			pto_queue_destroy(qs[m]);
}
