// SPDX-License-Identifier: MIT
/*
 * rows-replay.c: pto-bench rows 16 to 19 (graph replay, uapi 7): a
 * graph recorded once (pto_graph_record()) and run by one launch entry,
 * against the same empty tasks submitted as plain entries.
 */
#include <pto/graph.h>

#include "bench.h"

/*
 * Record @n empty tasks (the overhead rows' empty AIV kernel), each
 * depending on the previous one (@chain) or all independent; the record's
 * cost goes into extra @key when @r is given.
 */
static int replay_record(struct bench *B, struct row *r, unsigned int n,
			 bool chain, const char *key, struct pto_graph_exec **x)
{
	struct pto_task_desc d = empty_task(B);
	struct pto_graph *g = NULL;
	unsigned int i;
	int64_t dep, t0;
	int ret;

	*x = NULL;
	if ((ret = pto_graph_new(B->dev, &g))) {
		berr(B, "graph_new: %s", pto_strerror(ret));
		return ret;
	}
	for (i = 0; i < n; i++) {
		dep = (int64_t)i - 1;
		d.deps = chain && i ? &dep : NULL;
		d.num_deps = chain && i ? 1 : 0;
		ret = pto_graph_add_task(g, &d);
		if (ret < 0) {
			berr(B, "graph_add_task: %s", pto_graph_error(g));
			goto out;
		}
	}
	t0 = now_ns();
	ret = pto_graph_record(g, NULL, 0, NULL, 0, x);
	if (ret)
		berr(B, "graph_record: %s: %s", pto_strerror(ret),
		     pto_graph_error(g));
	else if (r && key)
		row_extra(r, key, (double)(now_ns() - t0) / 1e3);
out:
	pto_graph_free(g);
	return ret < 0 ? ret : 0;
}

/* @k launches of @x one after the other, each to its CQE; us per launch. */
static int replay_launches(struct bench *B, struct pto_graph_exec *x,
			   unsigned int k, double *us)
{
	int64_t t0 = now_ns();
	unsigned int i;
	int ret;

	for (i = 0; i < k; i++) {
		ret = pto_graph_launch_push(x, B->q, NULL, NULL, i);
		if (ret) {
			berr(B, "graph_launch_push: %s", pto_strerror(ret));
			return ret;
		}
		if ((ret = doorbell(B, 1, NULL)) || (ret = drain(B, 1, false)))
			return ret;
	}
	*us = (double)(now_ns() - t0) / 1e3 / k;
	return 0;
}

/* @k single plain empty entries, each to its CQE; us per entry. */
static int plain_singles(struct bench *B, unsigned int k, double *us)
{
	struct pto_task_desc d = empty_task(B);
	int64_t t0 = now_ns();
	unsigned int i;
	int ret;

	for (i = 0; i < k; i++)
		if ((ret = push(B, &d)) || (ret = doorbell(B, 1, NULL)) ||
		    (ret = drain(B, 1, false)))
			return ret;
	*us = (double)(now_ns() - t0) / 1e3 / k;
	return 0;
}

/* @n plain empty entries (a chain by -1 dependencies, or a fan), push to last CQE. */
static int plain_batch(struct bench *B, unsigned int n, bool chain, double *us)
{
	static const int64_t prev = -1;
	struct pto_task_desc d = empty_task(B);
	int64_t t0 = now_ns();
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		d.deps = chain && i ? &prev : NULL;
		d.num_deps = chain && i ? 1 : 0;
		if ((ret = push(B, &d)))
			return ret;
	}
	if ((ret = doorbell(B, n, NULL)) || (ret = drain(B, n, false)))
		return ret;
	*us = (double)(now_ns() - t0) / 1e3 / n;
	return 0;
}

/* ------------------------------------------------------------ row 16 */

struct replay_arg {
	struct pto_graph_exec *x;
	unsigned int n;
	bool chain;
};

/* Form A: one launch of the recorded graph; B: its tasks as entries. */
static int row16_form(struct bench *B, struct row *r, bool plain,
		      const void *arg, double *us)
{
	const struct replay_arg *a = arg;
	int ret;

	(void)r;
	if (plain)
		return plain_batch(B, a->n, a->chain, us);
	ret = replay_launches(B, a->x, 1, us);
	*us /= a->n;
	return ret;
}

static void row16_one(struct bench *B, bool chain, unsigned int n)
{
	static const struct row_head heads[2] = {
		{ .id = "16a", .title = "replayed graph vs plain entries, per node: chain",
		  .a_label = "replayed chain", .a_unit = "us/node",
		  .b_label = "plain chain", .b_unit = "us/task",
		  .ratio_def = "replayed / plain", .op = T_LE, .target = 0.25,
		  .target_text = "replayed <= 0.25 x plain" },
		{ .id = "16b", .title = "replayed graph vs plain entries, per node: fan",
		  .a_label = "replayed fan", .a_unit = "us/node",
		  .b_label = "plain fan", .b_unit = "us/task",
		  .ratio_def = "replayed / plain", .op = T_LE, .target = 0.25,
		  .target_text = "replayed <= 0.25 x plain" },
	};
	struct replay_arg a = { .n = n, .chain = chain };
	struct row r;
	double w;

	row_start(&r, &heads[!chain],
		  "%u empty AIV tasks (END)%s: one launch of the recorded graph (push to its CQE) vs %u plain entries, one doorbell (push to last CQE)",
		  n, chain ? ", each depending on the previous" : ", independent", n);
	if (replay_record(B, &r, n, chain, "record_us", &a.x) ||
	    row16_form(B, &r, false, &a, &w) || row16_form(B, &r, true, &a, &w)) {
		row_error(&r, B->err);
	} else {
		row_abba(B, &r, row16_form, &a, 0);
	}
	row_emit(&r);
	pto_graph_exec_free(a.x);
}

void row16_replay(struct bench *B)
{
	unsigned int n = B->quick ? 500 : 2000;

	row16_one(B, true, n);
	row16_one(B, false, n);
}

/* ------------------------------------------------------------ row 17 */

void row17_replay_node(struct bench *B)
{
	static const struct row_head head = {
		.id = "17",
		.title = "replayed empty node vs null ioctl",
		.a_label = "replayed node", .a_unit = "us/node",
		.b_label = "null ioctl", .b_unit = "us/call",
		.ratio_def = "node / null ioctl",
		.op = T_LE, .target = 0.5,
		.target_text = "node <= 0.5 x null ioctl",
	};
	unsigned int n = B->quick ? 500 : 2000;
	int nio = B->quick ? 2000 : 10000, rep;
	struct pto_graph_exec *x = NULL;
	struct row r;
	double n1, n2, io1, io2;

	row_start(&r, &head,
		  "one launch of a recorded graph of %u independent empty AIV tasks (END), push to its CQE, per node vs DRM_IOCTL_PTO_NPU_QUERY size 0",
		  n);
	if (replay_record(B, &r, n, false, "record_us", &x) ||
	    replay_launches(B, x, 1, &n1)) {
		row_error(&r, B->err);
		goto out;
	}
	for (rep = 0; rep < B->reps; rep++) {
		io1 = null_ioctl_us(B, nio);
		if (replay_launches(B, x, 1, &n1) ||
		    replay_launches(B, x, 1, &n2)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		io2 = null_ioctl_us(B, nio);
		row_pair(&r, (n1 + n2) / 2 / n, (io1 + io2) / 2);
	}
out:
	row_emit(&r);
	pto_graph_exec_free(x);
}

/* ------------------------------------------------------------ row 18 */

struct row18_arg {
	struct pto_graph_exec *x;
	unsigned int k;
};

static int row18_form(struct bench *B, struct row *r, bool plain,
		      const void *arg, double *us)
{
	const struct row18_arg *a = arg;

	(void)r;
	return plain ? plain_singles(B, a->k, us) :
		       replay_launches(B, a->x, a->k, us);
}

void row18_replay_launch(struct bench *B)
{
	static const struct row_head head = {
		.id = "18",
		.title = "1-node graph launch vs one plain entry",
		.a_label = "1-node launch", .a_unit = "us/launch",
		.b_label = "plain entry", .b_unit = "us/task",
		.ratio_def = "launch / entry",
		.op = T_LE, .target = 1.2,
		.target_text = "launch <= 1.2 x entry",
	};
	struct row18_arg a = { .k = B->quick ? 100 : 500 };
	struct row r;
	double w;

	row_start(&r, &head,
		  "%u times, one at a time: a launch of a recorded 1-node graph (empty AIV task, END), push, doorbell, its CQE vs the same task as one plain entry",
		  a.k);
	if (replay_record(B, &r, 1, false, "record_us", &a.x) ||
	    row18_form(B, &r, false, &a, &w) || row18_form(B, &r, true, &a, &w))
		row_error(&r, B->err);
	else
		row_abba(B, &r, row18_form, &a, 0);
	row_emit(&r);
	pto_graph_exec_free(a.x);
}

/* ------------------------------------------------------------ row 19 */

/* Kernel memory of one recording of @n empty nodes, per node (B->err). */
static int row19_sample(struct bench *B, unsigned int n, bool chain,
			double *per_node, double *spares)
{
	struct pto_graph_exec *x = NULL;
	double m0, m1, p0, p1;
	bool ok = true;
	int ret;

	sync();
	p0 = spare_bytes(B, &ok);
	m0 = kmem_bytes(false, NULL, NULL);
	ret = replay_record(B, NULL, n, chain, NULL, &x);
	if (ret)
		return ret;
	m1 = kmem_bytes(false, NULL, NULL);
	p1 = spare_bytes(B, &ok);
	pto_graph_exec_free(x);
	/* Spare task memory the templates took was in Slab before. */
	*per_node = (m1 - m0 + p0 - p1) / n;
	*spares = ok ? (p0 - p1) / n : NAN;
	return 0;
}

void row19_replay_memory(struct bench *B)
{
	static const struct row_head head = {
		.id = "19",
		.title = "kernel memory per recorded node",
		.a_label = "per recorded node (chain)", .a_unit = "bytes",
		.b_label = "per recorded node (fan)", .b_unit = "bytes",
		.ratio_def = "chain / fan",
		.op = T_LE, .target = 256, .target_on_a = true,
		.target_text = "<= 256 bytes per recorded node",
	};
	unsigned int n = B->quick ? 1000 : 4000;
	int rep, reps = B->reps < 5 ? B->reps : 5;
	double a, b, sa, sb;
	struct row r;

	row_start(&r, &head,
		  "/proc/meminfo Slab+VmallocUsed delta (plus spare task memory taken) of a recorded graph of %u empty AIV nodes, alive on the device: a chain (one edge each) vs a fan (no edges), per node",
		  n);
	for (rep = 0; rep < reps; rep++) {
		if (row19_sample(B, n, true, &a, &sa) ||
		    row19_sample(B, n, false, &b, &sb)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		row_pair(&r, a, b);
		if (!isnan(sa))
			row_extra(&r, "spares_taken_bytes_per_node", sa);
	}
	row_note(&r, "meminfo counts kB pages of the whole kernel: other activity adds noise of a few bytes per node.");
	row_emit(&r);
}
