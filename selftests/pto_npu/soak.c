// SPDX-License-Identifier: GPL-2.0-only
/*
 * Soak: several processes run random task graphs at once for
 * PTO_SOAK_SECONDS (default 60), seeded by PTO_SOAK_SEED (default 1;
 * process p, graph n uses seed + p * 7919 + n). Every graph mixes the
 * techniques: SPMD tasks with random block counts and dependencies, some
 * allowing early resolve, predicated tasks (run or skipped on a flag),
 * mixed cube + vector tasks moving tiles through the cross-core ring, a
 * SOFT syncall launch and sometimes a HARD one over every cube core.
 * Every task's status and result are checked; the TAP comments give the
 * tasks run and "lost" (tasks that did not end as expected), which must
 * be 0. PTO_SOAK_PROCS sets the process count (default 3).
 *
 * make soak runs it for 10 minutes in the test VM.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

#define NT 120			/* tasks of a graph */
#define MAX_MIX 3		/* mixed tasks of a graph */
#define MIX_R 16		/* rows of the tile that crosses the ring */
#define MIX_C 16
#define MIX_MAXB 4		/* blocks of a mixed task */
#define SOFT_BLOCKS 4
#define SYNC_ROUNDS 2
#define GRAPH_TIMEOUT_NS PTO_TEST_SEC(300)

enum kind { K_MARK, K_PRED, K_MIX, K_SOFT, K_HARD };

struct tally {
	uint64_t graphs;
	uint64_t tasks;
	uint64_t skipped;
	uint64_t blocks;
	uint64_t lost;
	int fail_line;
	char why[200];
};

struct proc {
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_kernel *mark, *mix_aic, *mix_aiv, *soft, *hard;
	unsigned int clusters;
};

static unsigned long env_ul(const char *name, unsigned long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : dflt;
}

/* out[0, arg0] = arg1 after arg2 x 100 iterations (pto_test.h). */
static struct pto_kernel *mark_kernel(struct pto_device *dev)
{
	return pto_test_mark_kernel(dev, 100, NULL, 0);
}

/*
 * Mixed pair: per block the AIC loads rows [block x R, +R) of x and pushes
 * them; each AIV (split UP_DOWN) pops its half, adds 1 and stores it to out.
 */
static int mix_kernels(struct pto_device *dev, struct pto_kernel **aic,
		       struct pto_kernel **aiv)
{
	struct pto_kb *kb;
	char err[256];
	int t, to;

	if (pto_kb_new(dev, PTO_CORE_AIC, &kb))
		return -ENOMEM;
	t = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_L1, MIX_R, MIX_C);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_sreg(kb, 2, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 2, 2, MIX_R);
	pto_kb_tload(kb, t, 0, 2, 0);
	pto_kb_push(kb, t);
	pto_kb_end(kb);
	*aic = pto_test_kb_finish(kb, err, sizeof(err));
	if (!*aic)
		return -EINVAL;
	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return -ENOMEM;
	t = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, MIX_R / 2, MIX_C);
	to = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, MIX_R / 2, MIX_C);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_sreg(kb, 2, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 2, 2, MIX_R);
	pto_kb_sreg(kb, 3, PTO_SREG_SUB_BLOCK_ID);
	pto_kb_alui(kb, PTO_ALU_MUL, 3, 3, MIX_R / 2);
	pto_kb_alu(kb, PTO_ALU_ADD, 2, 2, 3);
	pto_kb_pop(kb, t);
	pto_kb_tbinsi(kb, PTO_TBIN_ADD, to, t, 1);
	pto_kb_tstore(kb, to, 1, 2, 0);
	pto_kb_end(kb);
	*aiv = pto_test_kb_finish(kb, err, sizeof(err));
	return *aiv ? 0 : -EINVAL;
}

static int proc_open(struct proc *p)
{
	char err[512];
	int ret;

	memset(p, 0, sizeof(*p));
	ret = pto_test_dev_open(&p->dev);
	if (!ret)
		ret = pto_test_queue_long(p->dev, 1024, 0, &p->q);
	if (ret)
		return ret;
	p->clusters = pto_available_cluster_count(p->dev);
	p->mark = mark_kernel(p->dev);
	if (!p->mark)
		return -EINVAL;
	ret = mix_kernels(p->dev, &p->mix_aic, &p->mix_aiv);
	if (!ret)
		ret = pto_test_build_rounds(p->dev, PTO_CORE_AIV, PTO_SYNC_SOFT, 2,
					    0, 1, SYNC_ROUNDS, &p->soft, err,
					    sizeof(err));
	if (!ret)
		ret = pto_test_build_rounds(p->dev, PTO_CORE_AIC, PTO_SYNC_HARD,
					    PTO_SYNC_AIC, 0, 1, SYNC_ROUNDS,
					    &p->hard, err, sizeof(err));
	return ret;
}

#define FAIL(t, ...) do { \
	if (!(t)->fail_line) { \
		(t)->fail_line = __LINE__; \
		snprintf((t)->why, sizeof((t)->why), __VA_ARGS__); \
	} \
	goto out; \
} while (0)

/* One random graph of every technique, run and checked. */
static void one_graph(struct proc *p, unsigned int seed, unsigned int iter,
		      struct tally *tl)
{
	struct pto_tensor *out = NULL, *flags = NULL, *x = NULL;
	struct pto_tensor *mix_out[MAX_MIX] = { 0 };
	struct pto_tensor *vals = NULL, *mism = NULL, *ws = NULL;
	struct pto_tensor *hvals = NULL, *hmism = NULL;
	enum kind kind[NT];
	int mix_of[NT];
	uint32_t blocks_of[NT];
	struct pto_graph *g = NULL;
	int64_t *po, *pf;
	int32_t *px;
	unsigned int i, nmix = 0, r, c;
	bool soft_done = false, hard_done = false;
	int ret;

	if (pto_test_tensor2d(p->dev, PTO_DTYPE_I64, 1, NT, &out) ||
	    pto_test_tensor2d(p->dev, PTO_DTYPE_I64, 1, NT, &flags) ||
	    pto_test_tensor2d(p->dev, PTO_DTYPE_I32, MIX_R * MIX_MAXB, MIX_C, &x) ||
	    pto_test_tensor2d(p->dev, PTO_DTYPE_I32, 1, SOFT_BLOCKS, &vals) ||
	    pto_test_tensor2d(p->dev, PTO_DTYPE_I32, 1, SOFT_BLOCKS, &mism) ||
	    pto_test_tensor2d(p->dev, PTO_DTYPE_I32, 1, 16, &ws) ||
	    pto_test_tensor2d(p->dev, PTO_DTYPE_I32, 1, p->clusters, &hvals) ||
	    pto_test_tensor2d(p->dev, PTO_DTYPE_I32, 1, p->clusters, &hmism))
		FAIL(tl, "tensor alloc");
	po = pto_tensor_data(out);
	pf = pto_tensor_data(flags);
	px = pto_tensor_data(x);
	for (i = 0; i < MIX_R * MIX_MAXB * MIX_C; i++)
		px[i] = (int32_t)(rand_r(&seed) & 0xffffff);
	memset(pto_tensor_data(mism), 0xff, SOFT_BLOCKS * 4);
	memset(pto_tensor_data(hmism), 0xff, p->clusters * 4);
	if (pto_graph_new(p->dev, &g))
		FAIL(tl, "graph alloc");

	for (i = 0; i < NT; i++) {
		unsigned int roll = rand_r(&seed) % 100;
		struct pto_tensor *args[3];
		struct pto_task_desc d = { 0 };
		struct pto_predicate pred;
		int64_t sc[3], deps[4];
		unsigned int nd = 0, k;

		mix_of[i] = -1;
		kind[i] = K_MARK;
		if (roll < 12)
			kind[i] = K_PRED;
		else if (roll < 18 && nmix < MAX_MIX)
			kind[i] = K_MIX;
		else if (roll < 20 && !soft_done)
			kind[i] = K_SOFT;
		else if (roll < 21 && !hard_done && iter % 3 == 0)
			kind[i] = K_HARD;

		switch (kind[i]) {
		case K_MARK:
		case K_PRED:
			sc[0] = i;
			sc[1] = 1000000LL * (iter % 1000) + i;
			sc[2] = 1 + rand_r(&seed) % 3;
			args[0] = out;
			args[1] = flags;
			d.kernel_aiv = p->mark;
			d.block_num = blocks_of[i] = 1 + rand_r(&seed) % 8;
			d.tensors = args;
			d.num_tensors = 2;
			d.scalars = sc;
			d.num_scalars = 3;
			nd = i ? rand_r(&seed) % 4 : 0;
			for (k = 0; k < nd; k++) {
				unsigned int back = 1 + rand_r(&seed) % (i < 20 ? i : 20);

				deps[k] = i - back;
			}
			d.deps = deps;
			d.num_deps = nd;
			if (rand_r(&seed) % 3 == 0 && kind[i] == K_MARK)
				d.flags = PTO_TASK_EARLY_RESOLVE;
			if (kind[i] == K_PRED) {
				pf[i] = rand_r(&seed) % 2;
				pred = (struct pto_predicate){
					.tensor = 1, .op = PTO_CMP_EQ, .row = 0,
					.col = i, .literal = 1,
				};
				d.predicate = &pred;
			}
			break;
		case K_MIX:
			if (pto_test_tensor2d(p->dev, PTO_DTYPE_I32, MIX_R * MIX_MAXB,
					      MIX_C, &mix_out[nmix]))
				FAIL(tl, "tensor alloc");
			mix_of[i] = nmix;
			args[0] = x;
			args[1] = mix_out[nmix++];
			d.kernel_aic = p->mix_aic;
			d.kernel_aiv = p->mix_aiv;
			d.split_mode = PTO_SPLIT_UP_DOWN;
			d.block_num = blocks_of[i] = 1 + rand_r(&seed) % MIX_MAXB;
			d.tensors = args;
			d.num_tensors = 2;
			break;
		case K_SOFT:
			soft_done = true;
			args[0] = vals;
			args[1] = mism;
			args[2] = ws;
			sc[0] = SOFT_BLOCKS;
			d.kernel_aiv = p->soft;
			d.block_num = blocks_of[i] = SOFT_BLOCKS;
			d.flags = PTO_TASK_SYNC_START;
			d.tensors = args;
			d.num_tensors = 3;
			d.scalars = sc;
			d.num_scalars = 1;
			break;
		case K_HARD:
			hard_done = true;
			args[0] = hvals;
			args[1] = hmism;
			d.kernel_aic = p->hard;
			/* HARD: the grid sized from the device. */
			d.block_num = PTO_GRID_ALL_CLUSTERS;
			blocks_of[i] = p->clusters;
			d.flags = PTO_TASK_SYNC_START;
			d.tensors = args;
			d.num_tensors = 2;
			break;
		}
		ret = pto_graph_add_task(g, &d);
		if (ret != (int)i)
			FAIL(tl, "add task %u (kind %d): %s", i, kind[i],
			     pto_graph_error(g));
	}

	ret = pto_graph_run(g, p->q, GRAPH_TIMEOUT_NS);
	if (ret && ret != -EIO)
		FAIL(tl, "graph run: %s", strerror(-ret));
	tl->graphs++;
	for (i = 0; i < NT; i++) {
		int st = pto_graph_task_status(g, i, NULL, NULL);
		bool good = st == PTO_STATUS_OK;

		tl->tasks++;
		switch (kind[i]) {
		case K_MARK:
			good = good && po[i] == 1000000LL * (iter % 1000) + i;
			break;
		case K_PRED:
			if (pf[i]) {
				good = good && po[i] == 1000000LL * (iter % 1000) + i;
			} else {
				good = st == PTO_STATUS_SKIPPED && po[i] == 0;
				tl->skipped += good;
			}
			break;
		case K_MIX: {
			const int32_t *pm = pto_tensor_data(mix_out[mix_of[i]]);

			for (r = 0; good && r < blocks_of[i] * MIX_R; r++)
				for (c = 0; c < MIX_C; c++)
					if (pm[r * MIX_C + c] != px[r * MIX_C + c] + 1)
						good = false;
			break;
		}
		case K_SOFT: {
			const int32_t *pv = pto_tensor_data(vals);
			const int32_t *pm = pto_tensor_data(mism);

			for (c = 0; good && c < SOFT_BLOCKS; c++)
				good = pm[c] == 0 &&
				       pv[c] == pto_test_round_val(SYNC_ROUNDS, 0, c);
			break;
		}
		case K_HARD: {
			const int32_t *pv = pto_tensor_data(hvals);
			const int32_t *pm = pto_tensor_data(hmism);

			for (c = 0; good && c < p->clusters; c++)
				good = pm[c] == 0 &&
				       pv[c] == pto_test_round_val(SYNC_ROUNDS, 0, c);
			break;
		}
		}
		if (st == PTO_STATUS_OK)
			tl->blocks += blocks_of[i];
		if (!good) {
			tl->lost++;
			if (!tl->fail_line) {
				char buf[160];

				pto_graph_first_error(g, buf, sizeof(buf));
				tl->fail_line = __LINE__;
				snprintf(tl->why, sizeof(tl->why),
					 "graph %u task %u kind %d: %s (%s)", iter, i,
					 kind[i], pto_status_name(st), buf);
			}
		}
	}
out:
	pto_graph_free(g);
	for (i = 0; i < MAX_MIX; i++)
		pto_tensor_free(mix_out[i]);
	pto_tensor_free(hmism);
	pto_tensor_free(hvals);
	pto_tensor_free(ws);
	pto_tensor_free(mism);
	pto_tensor_free(vals);
	pto_tensor_free(x);
	pto_tensor_free(flags);
	pto_tensor_free(out);
}

static void soak_child(unsigned int idx, unsigned long seed, int64_t deadline,
		       int to_parent)
{
	struct tally tl = { 0 };
	struct proc p;
	unsigned int iter;
	int ret = proc_open(&p);

	if (ret) {
		tl.fail_line = __LINE__;
		snprintf(tl.why, sizeof(tl.why), "setup: %s", strerror(-ret));
	}
	for (iter = 0; !ret && !tl.fail_line && pto_test_now_ns() < deadline; iter++)
		one_graph(&p, (unsigned int)(seed + idx * 7919 + iter), iter, &tl);
	if (write(to_parent, &tl, sizeof(tl)) != sizeof(tl))
		_exit(2);
	_exit(0);
}

/*
 * A block's no-progress timeout while the soak runs: the test VM shares a
 * few host CPUs between dozens of core threads, and a loaded host must not
 * turn a slow block into a timeout (make bench does the same).
 */
#define SOAK_TIMEOUT_MS 60000

FIXTURE(soak)
{
	int mon;
	long old_timeout;
};

FIXTURE_SETUP(soak)
{
	self->old_timeout = pto_test_param_read("timeout_ms");
	ASSERT_LT(0, self->old_timeout);
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", SOAK_TIMEOUT_MS));
	self->mon = pto_test_open();
	ASSERT_LE(0, self->mon);
}

/* In the parent: restored even when the test dies. */
FIXTURE_TEARDOWN_PARENT(soak)
{
	if (self->old_timeout > 0)
		pto_test_param_write("timeout_ms", self->old_timeout);
}

/* The harness' timeout: the soak's time, and some for the slowest graph. */
TEST_F_TIMEOUT(soak, random_graphs_of_every_technique, 3600)
{
	unsigned long secs = env_ul("PTO_SOAK_SECONDS", 60);
	unsigned long seed = env_ul("PTO_SOAK_SEED", 1);
	unsigned int procs = env_ul("PTO_SOAK_PROCS", 3), i;
	struct drm_pto_npu_memory_info m0, m1;
	struct drm_pto_npu_counters c0, c1;
	struct tally sum = { 0 };
	int64_t start, deadline;
	int pipes[16][2];
	pid_t pids[16];

	ASSERT_GE(16u, procs);
	ASSERT_LE(1u, procs);
	ASSERT_GE(3000ul, secs) TH_LOG("PTO_SOAK_SECONDS over the harness timeout");
	ASSERT_EQ(0, pto_test_memory(self->mon, &m0));
	ASSERT_EQ(0, pto_test_query(self->mon, DRM_PTO_NPU_QUERY_COUNTERS, &c0, sizeof(c0)));
	start = pto_test_now_ns();
	deadline = start + PTO_TEST_SEC_WALL(secs);
	for (i = 0; i < procs; i++) {
		ASSERT_EQ(0, pipe(pipes[i]));
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i]) {
			close(pipes[i][0]);
			soak_child(i, seed, deadline, pipes[i][1]);
		}
		close(pipes[i][1]);
	}
	for (i = 0; i < procs; i++) {
		struct tally tl;
		int status = 0;

		EXPECT_EQ((ssize_t)sizeof(tl), read(pipes[i][0], &tl, sizeof(tl)))
			TH_LOG("process %u said nothing", i);
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
		close(pipes[i][0]);
		EXPECT_EQ(0, tl.fail_line) TH_LOG("process %u, line %d: %s", i,
						  tl.fail_line, tl.why);
		sum.graphs += tl.graphs;
		sum.tasks += tl.tasks;
		sum.skipped += tl.skipped;
		sum.blocks += tl.blocks;
		sum.lost += tl.lost;
	}
	ASSERT_EQ(0, pto_test_query(self->mon, DRM_PTO_NPU_QUERY_COUNTERS, &c1, sizeof(c1)));
	ASSERT_EQ(0, pto_test_memory(self->mon, &m1));
	printf("# soak: seed %lu, %u processes, %.0f s: %llu graphs, %llu tasks (%llu skipped), %llu blocks, lost: %llu\n",
	       seed, procs, (double)(pto_test_now_ns() - start) / 1e9,
	       (unsigned long long)sum.graphs, (unsigned long long)sum.tasks,
	       (unsigned long long)sum.skipped, (unsigned long long)sum.blocks,
	       (unsigned long long)sum.lost);
	printf("# soak: device counters: %llu tasks retired, %llu faults, %llu timeouts, %llu barrier arrivals, %llu stages\n",
	       (unsigned long long)(c1.retired - c0.retired),
	       (unsigned long long)(c1.faults - c0.faults),
	       (unsigned long long)(c1.timeouts - c0.timeouts),
	       (unsigned long long)(c1.barriers - c0.barriers),
	       (unsigned long long)(c1.stages - c0.stages));
	EXPECT_EQ(0ull, (unsigned long long)sum.lost);
	EXPECT_LT(0ull, (unsigned long long)sum.tasks);
	/* Every task the device took retired, none faulted or timed out. */
	EXPECT_LE(c0.retired + sum.tasks, c1.retired);
	EXPECT_EQ(c0.faults, c1.faults);
	EXPECT_EQ(c0.timeouts, c1.timeouts);
	EXPECT_EQ(m0.device_bos, m1.device_bos);
	EXPECT_EQ(m0.device_bytes, m1.device_bytes);
}

TEST_HARNESS_MAIN
