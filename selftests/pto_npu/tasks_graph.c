// SPDX-License-Identifier: GPL-2.0-only
/*
 * Task graphs on the device: dependency order under concurrency (a
 * diamond and a random DAG checked against the CPU's longest paths and
 * against the per-block timestamps), graphs of ten thousand tasks, a
 * queue far smaller than the graph (SQ and CQ back-pressure), dependencies
 * on tasks that failed in an earlier doorbell, and the no-progress
 * timeout (the timeout_ms module parameter).
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

/* How long one ordinary graph may run. */
#define RUN_TIMEOUT_NS PTO_TEST_SEC(60)

/* The large graphs: the VM is slow, with KASAN. */
#define BIG_TIMEOUT_S 300
#define BIG_TASKS 10000

/* Most dependencies a task of the random DAG has. */
#define DAG_MAX_DEPS 4
#define DAG_TASKS 200

/* Back-pressure: tasks, and the queue they go through. */
#define BP_TASKS 3000
#define BP_SQ 32
#define BP_CQ 16
/* Every BP_WIDE_EVERY-th task has BP_WIDE_BLOCKS blocks: more CQEs than the CQ. */
#define BP_WIDE_EVERY 100
#define BP_WIDE_BLOCKS 20
/* How long the graph through the tiny queue may take. */
#define BP_GRAPH_TIMEOUT_S 90

/* The timeout test's setting. */
#define TEST_TIMEOUT_MS 500

FIXTURE(graph)
{
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_device_info info;
};

FIXTURE_SETUP(graph)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_test_queue_long(self->dev, 0, 0, &self->q));
	ASSERT_EQ(0, pto_device_query_info(self->dev, &self->info));
}

FIXTURE_TEARDOWN(graph)
{
	pto_device_close(self->dev);
}

#define KERNEL(k, kb) do { \
	char __err[256]; \
	(k) = pto_test_kb_finish((kb), __err, sizeof(__err)); \
	ASSERT_NE(NULL, (k)) TH_LOG("kernel: %s", __err); \
} while (0)

/*
 * The longest-path kernel. g0: dependency table, i64 [tasks, 1 + max
 * deps], row i = [ndeps, dep0, dep1, ...]; g1: out, i64 [2, tasks].
 * Task i (scalar 0) spins scalar 1 iterations, then reads its producers'
 * results and writes
 *	out[0][i] = max(1, out[0][d] + 1 for each dependency d)
 *	out[1][i] = 1 + sum of out[1][d] (paths from a root, wrapping)
 */
static struct pto_kernel *longest_kernel(struct pto_device *dev, char *err,
					 size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_arg(kb, 0, 0);
	pto_kb_arg(kb, 12, 1);
	pto_kb_ldi(kb, 10, 0);
	pto_kb_ldi(kb, 11, 1);
	pto_kb_loop(kb, 13, 12);
	pto_kb_alui(kb, PTO_ALU_ADD, 14, 14, 1);
	pto_kb_endloop(kb);
	pto_kb_gld(kb, 1, 0, 0, 10);
	pto_kb_ldi(kb, 2, 1);
	pto_kb_ldi(kb, 7, 1);
	pto_kb_loop(kb, 3, 1);
	pto_kb_alui(kb, PTO_ALU_ADD, 4, 3, 1);
	pto_kb_gld(kb, 5, 0, 0, 4);
	pto_kb_gld(kb, 6, 1, 10, 5);
	pto_kb_alui(kb, PTO_ALU_ADD, 6, 6, 1);
	pto_kb_alu(kb, PTO_ALU_MAX, 2, 2, 6);
	pto_kb_gld(kb, 8, 1, 11, 5);
	pto_kb_alu(kb, PTO_ALU_ADD, 7, 7, 8);
	pto_kb_endloop(kb);
	pto_kb_gst(kb, 1, 10, 0, 2);
	pto_kb_gst(kb, 1, 11, 0, 7);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

struct dag {
	int n;
	int ndeps[DAG_TASKS];
	int deps[DAG_TASKS][DAG_MAX_DEPS];
	int64_t spin[DAG_TASKS];
};

/*
 * Builds, runs and checks @d: results against the CPU, and for every edge
 * the consumer's blocks dispatched after the producer's finished.
 */
static void run_dag(struct __test_metadata *_metadata, struct pto_device *dev,
		    struct pto_queue *q, const struct dag *d)
{
	struct pto_tensor *table, *out, *args[2];
	struct pto_kernel *k;
	struct pto_graph *g;
	int64_t *pt, *po, lp[DAG_TASKS];
	uint64_t paths[DAG_TASKS];
	char err[256];
	int i, j;

	ASSERT_EQ(0, pto_test_tensor2d(dev, PTO_DTYPE_I64, d->n, 1 + DAG_MAX_DEPS, &table));
	ASSERT_EQ(0, pto_test_tensor2d(dev, PTO_DTYPE_I64, 2, d->n, &out));
	pt = pto_tensor_data(table);
	po = pto_tensor_data(out);
	for (i = 0; i < d->n; i++) {
		pt[i * (1 + DAG_MAX_DEPS)] = d->ndeps[i];
		for (j = 0; j < d->ndeps[i]; j++)
			pt[i * (1 + DAG_MAX_DEPS) + 1 + j] = d->deps[i][j];
	}
	args[0] = table;
	args[1] = out;
	k = longest_kernel(dev, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("kernel: %s", err);

	ASSERT_EQ(0, pto_graph_new(dev, &g));
	for (i = 0; i < d->n; i++) {
		int64_t sc[2] = { i, d->spin[i] }, deps[DAG_MAX_DEPS];

		for (j = 0; j < d->ndeps[i]; j++)
			deps[j] = d->deps[i][j];
		ASSERT_EQ(i, pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1, .tensors = args,
			.num_tensors = 2, .scalars = sc, .num_scalars = 2,
			.deps = deps, .num_deps = d->ndeps[i] }))
			TH_LOG("%s", pto_graph_error(g));
	}
	ASSERT_EQ(0, pto_graph_run(g, q, RUN_TIMEOUT_NS))
		TH_LOG("%s", pto_graph_error(g));

	/* The CPU's answer: tasks are in topological order. */
	for (i = 0; i < d->n; i++) {
		lp[i] = 1;
		paths[i] = 1;
		for (j = 0; j < d->ndeps[i]; j++) {
			if (lp[d->deps[i][j]] + 1 > lp[i])
				lp[i] = lp[d->deps[i][j]] + 1;
			paths[i] += paths[d->deps[i][j]];
		}
	}
	for (i = 0; i < d->n; i++) {
		EXPECT_EQ(lp[i], po[i]) TH_LOG("task %d: longest path", i);
		EXPECT_EQ((int64_t)paths[i], po[d->n + i]) TH_LOG("task %d: paths", i);
	}

	/* Order on the device: each consumer after each of its producers. */
	for (i = 0; i < d->n; i++) {
		const struct pto_block_info *c, *p;
		unsigned int nc, np;

		ASSERT_EQ(0, pto_graph_task_blocks(g, i, &c, &nc));
		ASSERT_EQ(1u, nc);
		for (j = 0; j < d->ndeps[i]; j++) {
			ASSERT_EQ(0, pto_graph_task_blocks(g, d->deps[i][j], &p, &np));
			ASSERT_EQ(1u, np);
			EXPECT_LE(p->ts_finish, c->ts_dispatch)
				TH_LOG("task %d dispatched before its producer %d finished",
				       i, d->deps[i][j]);
			EXPECT_LE(p->ts_end, c->ts_start)
				TH_LOG("task %d started before its producer %d ended",
				       i, d->deps[i][j]);
		}
	}
	pto_graph_free(g);
	pto_kernel_free(k);
	pto_tensor_free(table);
	pto_tensor_free(out);
}

TEST_F(graph, diamond_runs_in_dependency_order)
{
	struct dag d;

	memset(&d, 0, sizeof(d));
	/* A; B <- A (slow); C <- A; D <- B, C. */
	d.n = 4;
	d.ndeps[1] = 1;
	d.deps[1][0] = 0;
	d.spin[1] = 300000;
	d.ndeps[2] = 1;
	d.deps[2][0] = 0;
	d.ndeps[3] = 2;
	d.deps[3][0] = 1;
	d.deps[3][1] = 2;
	run_dag(_metadata, self->dev, self->q, &d);
}

TEST_F(graph, random_dag_of_200_matches_cpu_longest_paths)
{
	struct dag *d = calloc(1, sizeof(*d));
	uint32_t seed = 12345;
	int i, j, k;

	ASSERT_NE(NULL, d);
	d->n = DAG_TASKS;
	for (i = 0; i < DAG_TASKS; i++) {
		int want;

		seed = seed * 1103515245u + 12345u;
		want = i ? (int)((seed >> 16) % (DAG_MAX_DEPS + 1)) : 0;
		if (want > i)
			want = i;
		/* Distinct producers among the 30 tasks before. */
		while (d->ndeps[i] < want) {
			int lo = i > 30 ? i - 30 : 0, p, dup = 0;

			seed = seed * 1103515245u + 12345u;
			p = lo + (int)((seed >> 16) % (uint32_t)(i - lo));
			for (k = 0; k < d->ndeps[i]; k++)
				dup |= d->deps[i][k] == p;
			if (!dup)
				d->deps[i][d->ndeps[i]++] = p;
		}
		/* Some tasks take a while, so others overtake them. */
		d->spin[i] = (seed >> 8) % 7 == 0 ? 20000 : 0;
	}
	for (i = 0, j = 0; i < DAG_TASKS; i++)
		j += d->ndeps[i];
	TH_LOG("%d tasks, %d edges", DAG_TASKS, j);
	run_dag(_metadata, self->dev, self->q, d);
	free(d);
}

/* ------------------------------------------------------------------ big graphs */

TEST_F_TIMEOUT(graph, chain_of_10000_tasks_completes_in_order, BIG_TIMEOUT_S)
{
	struct pto_tensor *counter, *args[1];
	struct pto_kernel *k;
	struct pto_graph *g;
	struct pto_kb *kb;
	int64_t start;
	int i, ret;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, 1, &counter));
	args[0] = counter;
	/* counter += 1, read and written back: only a chain counts right. */
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_ldi(kb, 0, 0);
	pto_kb_gld(kb, 1, 0, 0, 0);
	pto_kb_alui(kb, PTO_ALU_ADD, 1, 1, 1);
	pto_kb_gst(kb, 0, 0, 0, 1);
	pto_kb_end(kb);
	KERNEL(k, kb);

	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	for (i = 0; i < BIG_TASKS; i++) {
		int64_t dep = i - 1;

		ASSERT_EQ(i, pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1, .tensors = args,
			.num_tensors = 1, .deps = &dep, .num_deps = i ? 1 : 0 }));
	}
	start = pto_test_now_ns();
	ret = pto_graph_run(g, self->q, PTO_TEST_SEC(BIG_TIMEOUT_S - 20));
	TH_LOG("%d chained tasks in %lld ms", BIG_TASKS,
	       (long long)(pto_test_now_ns() - start) / 1000000);
	ASSERT_EQ(0, ret) TH_LOG("%s", pto_graph_error(g));
	for (i = 0; i < BIG_TASKS; i++) {
		ASSERT_EQ(PTO_STATUS_OK, pto_graph_task_status(g, i, NULL, NULL))
			TH_LOG("task %d", i);
	}
	EXPECT_EQ(BIG_TASKS, *(int64_t *)pto_tensor_data(counter));
	/* Ids in graph order, consecutive within each doorbell at least. */
	for (i = 1; i < BIG_TASKS; i++) {
		ASSERT_LT(pto_graph_task_id(g, i - 1), pto_graph_task_id(g, i));
	}
	pto_graph_free(g);
}

TEST_F_TIMEOUT(graph, fan_of_10000_tasks_completes, BIG_TIMEOUT_S)
{
	struct pto_tensor *counter, *flag, *args[2];
	struct pto_kernel *root, *leaf;
	struct pto_graph *g;
	struct pto_kb *kb;
	int64_t start, dep = 0;
	int i, ret;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 1, &counter));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 1, &flag));
	args[0] = counter;
	args[1] = flag;
	/* The root sets flag = 1; each leaf adds the flag to the counter. */
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_ldi(kb, 0, 0);
	pto_kb_ldi(kb, 1, 1);
	pto_kb_gst(kb, 1, 0, 0, 1);
	pto_kb_end(kb);
	KERNEL(root, kb);
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_ldi(kb, 0, 0);
	pto_kb_gld(kb, 1, 1, 0, 0);
	pto_kb_atomic_add(kb, 2, 0, 0, 0, 1);
	pto_kb_end(kb);
	KERNEL(leaf, kb);

	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, pto_graph_add_task(g, &(struct pto_task_desc){
		.kernel_aiv = root, .block_num = 1, .tensors = args,
		.num_tensors = 2 }));
	for (i = 1; i <= BIG_TASKS; i++) {
		ASSERT_EQ(i, pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = leaf, .block_num = 1, .tensors = args,
			.num_tensors = 2, .deps = &dep, .num_deps = 1 }));
	}
	start = pto_test_now_ns();
	ret = pto_graph_run(g, self->q, PTO_TEST_SEC(BIG_TIMEOUT_S - 20));
	TH_LOG("1 + %d fanned-out tasks in %lld ms", BIG_TASKS,
	       (long long)(pto_test_now_ns() - start) / 1000000);
	ASSERT_EQ(0, ret) TH_LOG("%s", pto_graph_error(g));
	for (i = 0; i <= BIG_TASKS; i++) {
		ASSERT_EQ(PTO_STATUS_OK, pto_graph_task_status(g, i, NULL, NULL))
			TH_LOG("task %d", i);
	}
	/* Every leaf ran once, after the root. */
	EXPECT_EQ(BIG_TASKS, *(int32_t *)pto_tensor_data(counter));
	pto_graph_free(g);
}

/* ------------------------------------------------------------------ back-pressure */

/* out[0, arg0] = arg0 + 1, from every block. */
static struct pto_kernel *index_kernel(struct pto_device *dev, char *err,
				       size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_arg(kb, 0, 0);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_alui(kb, PTO_ALU_ADD, 2, 0, 1);
	pto_kb_gst(kb, 0, 1, 0, 2);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

static uint32_t bp_blocks(int i)
{
	return i % BP_WIDE_EVERY == BP_WIDE_EVERY - 1 ? BP_WIDE_BLOCKS : 1;
}

TEST_F_TIMEOUT(graph, backpressure_every_completion_seen_once, BIG_TIMEOUT_S)
{
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k;
	struct pto_queue *q;
	struct pto_cqe cqes[64];
	uint32_t *nblocks = calloc(BP_TASKS, sizeof(*nblocks));
	uint32_t *nlast = calloc(BP_TASKS, sizeof(*nlast));
	uint64_t *ids = calloc(BP_TASKS, sizeof(*ids));
	int64_t *po, deadline;
	int next = 0, taken = 0, done = 0, i, n, doorbells = 0;
	char err[256];

	ASSERT_NE(NULL, nblocks);
	ASSERT_NE(NULL, nlast);
	ASSERT_NE(NULL, ids);
	ASSERT_EQ(0, pto_queue_create(self->dev, BP_SQ, BP_CQ, &q));
	ASSERT_EQ((uint32_t)BP_SQ, pto_queue_sq_slots(q));
	ASSERT_EQ((uint32_t)BP_CQ, pto_queue_cq_entries(q));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, BP_TASKS, &out));
	args[0] = out;
	k = index_kernel(self->dev, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("kernel: %s", err);

	deadline = pto_test_now_ns() + PTO_TEST_SEC(BIG_TIMEOUT_S - 20);
	while (done < BP_TASKS) {
		int progress = 0;

		/* Fill the SQ, ring. */
		while (next < BP_TASKS) {
			int64_t sc = next;
			int ret = pto_queue_push_task(q, &(struct pto_task_desc){
				.kernel_aiv = k, .block_num = bp_blocks(next),
				.tensors = args, .num_tensors = 1, .scalars = &sc,
				.num_scalars = 1, .user_data = (uint64_t)next });

			if (ret == -EAGAIN)
				break;
			ASSERT_EQ(0, ret);
			next++;
		}
		if (taken < next) {
			uint32_t consumed;
			uint64_t first;

			ASSERT_EQ(0, pto_queue_doorbell(q, 0, 0, &consumed, &first));
			doorbells++;
			for (i = 0; i < (int)consumed; i++)
				ids[taken + i] = first + i;
			taken += consumed;
			progress += consumed;
		}
		/* Reap what is there; the CQ holds only BP_CQ. */
		while ((n = pto_queue_reap(q, cqes, 64)) > 0) {
			for (i = 0; i < n; i++) {
				uint64_t t = cqes[i].user_data;

				ASSERT_GT((uint64_t)taken, t);
				ASSERT_EQ(ids[t], cqes[i].task_id);
				ASSERT_EQ(PTO_STATUS_OK, cqes[i].info.status)
					TH_LOG("task %llu", (unsigned long long)t);
				nblocks[t]++;
				if (cqes[i].info.flags & PTO_BLOCK_LAST) {
					nlast[t]++;
					done++;
				}
			}
			progress += n;
		}
		ASSERT_LE(0, n);
		if (!progress) {
			/* Moves held completions in; waits for some. */
			int ret = pto_queue_wait(q, pto_test_now_ns() + PTO_TEST_MSEC(100));

			ASSERT_TRUE(ret == 0 || ret == -ETIME) TH_LOG("wait: %d", ret);
		}
		ASSERT_LT(pto_test_now_ns(), deadline)
			TH_LOG("%d pushed, %d taken, %d done", next, taken, done);
	}
	TH_LOG("%d tasks, %d doorbells", BP_TASKS, doorbells);
	po = pto_tensor_data(out);
	for (i = 0; i < BP_TASKS; i++) {
		ASSERT_EQ(1u, nlast[i]) TH_LOG("task %d: LAST CQEs", i);
		ASSERT_EQ(bp_blocks(i), nblocks[i]) TH_LOG("task %d: CQEs", i);
		ASSERT_EQ(i + 1, po[i]) TH_LOG("task %d: result", i);
	}
	/* Nothing more comes. */
	EXPECT_EQ(-ETIME, pto_queue_wait(q, 0));
	EXPECT_EQ(0, pto_queue_reap(q, cqes, 64));
	EXPECT_EQ(0, pto_queue_destroy(q));
	free(nblocks);
	free(nlast);
	free(ids);
}

TEST_F_TIMEOUT(graph, backpressure_graph_through_tiny_queue, BIG_TIMEOUT_S)
{
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k;
	struct pto_queue *q;
	struct pto_graph *g;
	int64_t *po;
	char err[256];
	int i;

	ASSERT_EQ(0, pto_queue_create(self->dev, BP_SQ, BP_CQ, &q));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, BP_TASKS, &out));
	args[0] = out;
	k = index_kernel(self->dev, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("kernel: %s", err);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	for (i = 0; i < BP_TASKS; i++) {
		int64_t sc = i, deps[2] = { i - 1, i / 2 };

		/* Dependencies on recent and on long-gone tasks. */
		ASSERT_EQ(i, pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = bp_blocks(i),
			.tensors = args, .num_tensors = 1, .scalars = &sc,
			.num_scalars = 1, .deps = deps,
			.num_deps = i > 1 ? 2 : i }));
	}
	/* A few tens of seconds at worst; a stall shows as a timeout here. */
	ASSERT_EQ(0, pto_graph_run(g, q, PTO_TEST_SEC(BP_GRAPH_TIMEOUT_S)))
		TH_LOG("%s", pto_graph_error(g));
	po = pto_tensor_data(out);
	for (i = 0; i < BP_TASKS; i++) {
		const struct pto_block_info *b;
		unsigned int n;

		ASSERT_EQ(PTO_STATUS_OK, pto_graph_task_status(g, i, NULL, NULL));
		ASSERT_EQ(0, pto_graph_task_blocks(g, i, &b, &n));
		ASSERT_EQ(bp_blocks(i), n) TH_LOG("task %d", i);
		ASSERT_EQ(i + 1, po[i]);
	}
	pto_graph_free(g);
	EXPECT_EQ(0, pto_queue_destroy(q));
}

/* ------------------------------------------------------------------ failed producers */

/* out[0, arg0] = arg1 after arg2 x 1000 iterations; faults if arg0 is out. */
#define MARK_INNER 1000

static int push_mark(struct pto_queue *q, struct pto_kernel *k,
		     struct pto_tensor **args, int64_t col, int64_t val,
		     int64_t spin, const int64_t *deps, uint32_t nd)
{
	int64_t sc[3] = { col, val, spin };

	return pto_queue_push_task(q, &(struct pto_task_desc){
		.kernel_aiv = k, .block_num = 1, .tensors = args,
		.num_tensors = 1, .scalars = sc, .num_scalars = 3, .deps = deps,
		.num_deps = nd, .user_data = (uint64_t)col });
}

#define OUT_COLS 64

TEST_F(graph, dependency_on_task_failed_in_earlier_doorbell)
{
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k;
	struct pto_cqe cqes[16];
	const struct pto_cqe *c;
	struct pto_test_sqe e;
	uint64_t first1, first2, id_fault, id_bad, id_ok;
	uint32_t consumed;
	int64_t *po;
	char err[256];
	int64_t d[3];
	size_t size;
	int n;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, OUT_COLS, &out));
	args[0] = out;
	po = pto_tensor_data(out);
	k = pto_test_mark_kernel(self->dev, MARK_INNER, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("kernel: %s", err);

	/* Doorbell 1: a GM fault, a refused entry, a good task. */
	ASSERT_EQ(0, push_mark(self->q, k, args, OUT_COLS, 1, 0, NULL, 0));
	size = pto_test_sqe_init(&e, 0xdead, 0, 1, NULL, 0, NULL, 0, NULL, 0);
	ASSERT_EQ(0, pto_queue_push_raw(self->q, &e, size));
	ASSERT_EQ(0, push_mark(self->q, k, args, 2, 2, 0, NULL, 0));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first1));
	ASSERT_EQ(3u, consumed);
	id_fault = first1;
	id_bad = first1 + 1;
	id_ok = first1 + 2;
	n = pto_test_reap_lasts(self->q, cqes, 16, 3, RUN_TIMEOUT_NS);
	ASSERT_EQ(3, n);
	c = pto_test_find_last(cqes, n, id_fault);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(PTO_STATUS_GM_FAULT, c->info.status);
	c = pto_test_find_last(cqes, n, id_bad);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(PTO_STATUS_INVALID, c->info.status);

	/* Doorbell 2: dependants of each, by absolute and relative id. */
	d[0] = (int64_t)id_fault;
	ASSERT_EQ(0, push_mark(self->q, k, args, 10, 10, 0, d, 1));
	d[0] = (int64_t)id_bad;
	ASSERT_EQ(0, push_mark(self->q, k, args, 11, 11, 0, d, 1));
	d[0] = (int64_t)id_ok;
	ASSERT_EQ(0, push_mark(self->q, k, args, 12, 12, 0, d, 1));
	d[0] = (int64_t)id_ok;
	d[1] = (int64_t)id_fault;
	ASSERT_EQ(0, push_mark(self->q, k, args, 13, 13, 0, d, 2));
	/* Relative: this is task first2 + 4, the fault is 4 + 3 back. */
	d[0] = -7;
	ASSERT_EQ(0, push_mark(self->q, k, args, 14, 14, 0, d, 1));
	/* A dependant of a dependant that failed. */
	d[0] = -5;
	ASSERT_EQ(0, push_mark(self->q, k, args, 15, 15, 0, d, 1));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first2));
	ASSERT_EQ(6u, consumed);
	ASSERT_EQ(first1 + 3, first2);
	n = pto_test_reap_lasts(self->q, cqes, 16, 6, RUN_TIMEOUT_NS);
	ASSERT_EQ(6, n);

	c = pto_test_find_last(cqes, n, first2);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_DEP_FAILED, c->info.status) TH_LOG("on a GM fault");
	c = pto_test_find_last(cqes, n, first2 + 1);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_DEP_FAILED, c->info.status) TH_LOG("on a refused entry");
	c = pto_test_find_last(cqes, n, first2 + 2);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_OK, c->info.status) TH_LOG("on a task that succeeded");
	c = pto_test_find_last(cqes, n, first2 + 3);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_DEP_FAILED, c->info.status) TH_LOG("on one good, one failed");
	c = pto_test_find_last(cqes, n, first2 + 4);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_DEP_FAILED, c->info.status) TH_LOG("relative, across doorbells");
	c = pto_test_find_last(cqes, n, first2 + 5);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_DEP_FAILED, c->info.status) TH_LOG("transitively");
	EXPECT_EQ(0, po[10]);
	EXPECT_EQ(0, po[11]);
	EXPECT_EQ(12, po[12]);
	EXPECT_EQ(0, po[13]);
	EXPECT_EQ(0, po[14]);
	EXPECT_EQ(0, po[15]);
}

TEST_F(graph, dependency_on_earlier_doorbell_task_that_fails_later)
{
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k;
	struct pto_cqe cqes[8];
	const struct pto_cqe *c;
	uint64_t first1, first2;
	uint32_t consumed;
	char err[256];
	int64_t d;
	int n;

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, OUT_COLS, &out));
	args[0] = out;
	k = pto_test_mark_kernel(self->dev, MARK_INNER, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("kernel: %s", err);

	/* A slow task that will fault, then its dependant in a second doorbell. */
	ASSERT_EQ(0, push_mark(self->q, k, args, OUT_COLS, 1, 1000, NULL, 0));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first1));
	ASSERT_EQ(1u, consumed);
	d = (int64_t)first1;
	ASSERT_EQ(0, push_mark(self->q, k, args, 3, 3, 0, &d, 1));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first2));
	ASSERT_EQ(1u, consumed);
	n = pto_test_reap_lasts(self->q, cqes, 8, 2, RUN_TIMEOUT_NS);
	ASSERT_EQ(2, n);
	/* The producer completes first, then its dependant. */
	EXPECT_EQ(first1, cqes[0].task_id);
	EXPECT_EQ(PTO_STATUS_GM_FAULT, cqes[0].info.status);
	c = pto_test_find_last(cqes, n, first2);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_DEP_FAILED, c->info.status);
	EXPECT_EQ(0, ((int64_t *)pto_tensor_data(out))[3]);
}

/* Task ids count entries of every queue of a context; deps cross queues. */
TEST_F(graph, dependency_across_queues_of_one_context)
{
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k;
	struct pto_queue *q2;
	struct pto_cqe c1[4], c2[4];
	uint64_t first1, first2;
	uint32_t consumed;
	int64_t *po, dep;
	char err[256];

	ASSERT_EQ(0, pto_queue_create(self->dev, 64, 0, &q2));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, OUT_COLS, &out));
	args[0] = out;
	po = pto_tensor_data(out);
	k = pto_test_mark_kernel(self->dev, MARK_INNER, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("kernel: %s", err);

	/* Queue 1: a slow producer. Queue 2: its consumer, by absolute id. */
	ASSERT_EQ(0, push_mark(self->q, k, args, 1, 11, 2000, NULL, 0));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first1));
	ASSERT_EQ(1u, consumed);
	dep = (int64_t)first1;
	ASSERT_EQ(0, push_mark(q2, k, args, 2, 22, 0, &dep, 1));
	ASSERT_EQ(0, pto_queue_doorbell(q2, 0, 0, &consumed, &first2));
	ASSERT_EQ(1u, consumed);
	/* One id space for the context. */
	EXPECT_EQ(first1 + 1, first2);

	ASSERT_EQ(1, pto_test_reap_lasts(q2, c2, 4, 1, RUN_TIMEOUT_NS));
	EXPECT_EQ(first2, c2[0].task_id);
	EXPECT_EQ(PTO_STATUS_OK, c2[0].info.status);
	ASSERT_EQ(1, pto_test_reap_lasts(self->q, c1, 4, 1, RUN_TIMEOUT_NS));
	EXPECT_EQ(first1, c1[0].task_id);
	/* Each CQE in its own queue; the consumer after the producer. */
	EXPECT_LE(c1[0].info.ts_finish, c2[0].info.ts_dispatch);
	EXPECT_EQ(11, po[1]);
	EXPECT_EQ(22, po[2]);
	EXPECT_EQ(0, pto_queue_destroy(q2));
}

/* An id names a task of the caller's context only. */
TEST_F(graph, task_ids_are_per_context)
{
	struct pto_tensor *out, *out2, *args[1], *args2[1];
	struct pto_device *dev2;
	struct pto_kernel *k, *k2;
	struct pto_queue *q2;
	struct pto_cqe c[4];
	uint64_t first, first2;
	uint32_t consumed;
	int64_t dep;
	char err[256];

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, OUT_COLS, &out));
	args[0] = out;
	k = pto_test_mark_kernel(self->dev, MARK_INNER, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("kernel: %s", err);
	ASSERT_EQ(0, pto_test_dev_open(&dev2));
	ASSERT_EQ(0, pto_queue_create(dev2, 64, 0, &q2));
	ASSERT_EQ(0, pto_test_tensor2d(dev2, PTO_DTYPE_I64, 1, OUT_COLS, &out2));
	args2[0] = out2;
	k2 = pto_test_mark_kernel(dev2, MARK_INNER, err, sizeof(err));
	ASSERT_NE(NULL, k2) TH_LOG("kernel: %s", err);

	/* This context's task 1 is slow... */
	ASSERT_EQ(0, push_mark(self->q, k, args, 1, 1, 2000, NULL, 0));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first));
	ASSERT_EQ(1ull, first);
	/* ...and is nothing to the other context: its first entry is its own 1. */
	dep = (int64_t)first;
	ASSERT_EQ(0, push_mark(q2, k2, args2, 2, 2, 0, &dep, 1));
	ASSERT_EQ(0, pto_queue_doorbell(q2, 0, 0, &consumed, &first2));
	ASSERT_EQ(1ull, first2);
	ASSERT_EQ(1, pto_test_reap_lasts(q2, c, 4, 1, RUN_TIMEOUT_NS));
	EXPECT_EQ(PTO_STATUS_INVALID, c[0].info.status);
	EXPECT_EQ(PTO_REASON_DEP, c[0].info.reason);
	EXPECT_EQ(0ull, c[0].info.detail);
	/* Its own task 2 may depend on its own task 1 (which failed). */
	ASSERT_EQ(0, push_mark(q2, k2, args2, 3, 3, 0, &dep, 1));
	ASSERT_EQ(0, pto_queue_doorbell(q2, 0, 0, &consumed, &first2));
	ASSERT_EQ(2ull, first2);
	ASSERT_EQ(1, pto_test_reap_lasts(q2, c, 4, 1, RUN_TIMEOUT_NS));
	EXPECT_EQ(PTO_STATUS_DEP_FAILED, c[0].info.status);
	EXPECT_EQ(0, ((int64_t *)pto_tensor_data(out2))[3]);
	/* The first context's task is unaffected. */
	ASSERT_EQ(1, pto_test_reap_lasts(self->q, c, 4, 1, RUN_TIMEOUT_NS));
	EXPECT_EQ(PTO_STATUS_OK, c[0].info.status);
	EXPECT_EQ(1, ((int64_t *)pto_tensor_data(out))[1]);
	pto_device_close(dev2);
}

/* ------------------------------------------------------------------ timeout */

FIXTURE(tmo)
{
	struct pto_device *dev;
	struct pto_queue *q;
	long old_timeout;
};

FIXTURE_SETUP(tmo)
{
	self->old_timeout = pto_test_param_read("timeout_ms");
	ASSERT_LT(0, self->old_timeout) TH_LOG("timeout_ms: %s",
					       strerror((int)-self->old_timeout));
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_test_queue_long(self->dev, 0, 0, &self->q));
}

/* In the parent: restored even when the test dies. */
FIXTURE_TEARDOWN_PARENT(tmo)
{
	if (self->old_timeout > 0)
		pto_test_param_write("timeout_ms", self->old_timeout);
}

static uint32_t limits_timeout(int fd)
{
	struct drm_pto_npu_limits lim;

	if (pto_test_limits(fd, &lim))
		return 0;
	return lim.timeout_ms;
}

/* The work budget of the endless kernel's queue: seconds under KASAN and TCG. */
#define TMO_WORK_BUDGET (1ull << 22)

/*
 * A kernel that would run for 10^9 iterations ends at its queue's work
 * budget, after the same count on every host, however short timeout_ms
 * is (it bounds waits, not running units), and the device goes on.
 */
TEST_F_TIMEOUT(tmo, endless_kernel_ends_at_its_work_budget_and_device_goes_on, 120)
{
	struct pto_queue_params qp = { .work_budget = TMO_WORK_BUDGET };
	struct pto_queue *bq;
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k, *mark;
	const struct pto_block_info *b;
	struct pto_graph *g;
	struct pto_kb *kb;
	uint64_t detail;
	int64_t start, elapsed;
	char err[256];
	unsigned int n;
	int ret, i;

	ASSERT_EQ(0, pto_test_param_write("timeout_ms", TEST_TIMEOUT_MS));
	ASSERT_EQ(TEST_TIMEOUT_MS, pto_test_param_read("timeout_ms"));
	EXPECT_EQ((uint32_t)TEST_TIMEOUT_MS, limits_timeout(pto_device_fd(self->dev)));

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, OUT_COLS, &out));
	args[0] = out;
	/* 1,000,000 x 1,000 iterations: far longer than the timeout. */
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	pto_kb_ldi(kb, 0, 0);
	pto_kb_loopi(kb, 1, 1000000);
	pto_kb_loopi(kb, 2, 1000);
	pto_kb_alui(kb, PTO_ALU_ADD, 0, 0, 1);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_ldi(kb, 3, 0);
	pto_kb_gst(kb, 0, 3, 3, 0);
	pto_kb_end(kb);
	KERNEL(k, kb);

	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, pto_graph_add_task(g, &(struct pto_task_desc){
		.kernel_aiv = k, .block_num = 1, .tensors = args,
		.num_tensors = 1 }));
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &qp, &bq));
	start = pto_test_now_ns();
	ret = pto_graph_run(g, bq, PTO_TEST_SEC(60));
	elapsed = pto_test_now_ns() - start;
	TH_LOG("ended after %lld ms", (long long)elapsed / 1000000);
	ASSERT_EQ(-EIO, ret) TH_LOG("%s", pto_graph_error(g));
	EXPECT_EQ(PTO_STATUS_WORK_BUDGET, pto_graph_task_status(g, 0, NULL, &detail));
	/* Counted at the first check past the budget: 256 instructions apart. */
	EXPECT_LT(TMO_WORK_BUDGET, detail);
	EXPECT_GE(TMO_WORK_BUDGET + 256, detail);
	EXPECT_NE(NULL, strstr(pto_graph_error(g), "work budget"))
		TH_LOG("%s", pto_graph_error(g));
	EXPECT_LT(elapsed, PTO_TEST_SEC(30));
	ASSERT_EQ(0, pto_graph_task_blocks(g, 0, &b, &n));
	ASSERT_EQ(1u, n);
	EXPECT_EQ(0, ((int64_t *)pto_tensor_data(out))[0]);
	pto_graph_free(g);
	EXPECT_EQ(0, pto_queue_destroy(bq));

	/* The device is fine: an ordinary graph runs. */
	mark = pto_test_mark_kernel(self->dev, MARK_INNER, err, sizeof(err));
	ASSERT_NE(NULL, mark) TH_LOG("kernel: %s", err);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	for (i = 0; i < 8; i++) {
		int64_t sc[3] = { i, 100 + i, 1 }, dep = i - 1;

		ASSERT_EQ(i, pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = mark, .block_num = 4, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 3,
			.deps = &dep, .num_deps = i ? 1 : 0 }));
	}
	ASSERT_EQ(0, pto_graph_run(g, self->q, RUN_TIMEOUT_NS))
		TH_LOG("%s", pto_graph_error(g));
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(100 + i, ((int64_t *)pto_tensor_data(out))[i]);
	}
	pto_graph_free(g);
}

TEST_F(tmo, timeout_below_minimum_refused)
{
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", TEST_TIMEOUT_MS));
	EXPECT_EQ(-EINVAL, pto_test_param_write("timeout_ms", 50));
	EXPECT_EQ(-EINVAL, pto_test_param_write("timeout_ms", 99));
	EXPECT_EQ(-EINVAL, pto_test_param_write("timeout_ms", 600001));
	/* Refused writes change nothing. */
	EXPECT_EQ(TEST_TIMEOUT_MS, pto_test_param_read("timeout_ms"));
	EXPECT_EQ((uint32_t)TEST_TIMEOUT_MS, limits_timeout(pto_device_fd(self->dev)));
	/* The bounds themselves are accepted. */
	EXPECT_EQ(0, pto_test_param_write("timeout_ms", 100));
	EXPECT_EQ(100, pto_test_param_read("timeout_ms"));
	EXPECT_EQ(0, pto_test_param_write("timeout_ms", 600000));
	EXPECT_EQ(600000, pto_test_param_read("timeout_ms"));
}

TEST_HARNESS_MAIN
