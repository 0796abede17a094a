// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two processes on one device. Process A floods its queue (the in-flight
 * cap, resubmitting as fast as tasks retire) or fills every cluster with
 * tasks that hang until the device timeout; process B runs an ordinary
 * graph. B's completion time under A's load must stay within a bound of
 * its time alone (the ratio is printed as a TAP comment). And neither
 * process can name the other's queues, kernels or syncobjs (buffers:
 * isolation.c).
 *
 * The measurement runs in a child of the test process, which waits for it
 * with a deadline shorter than the test's timeout: whatever happens to the
 * measurement, the test process restores timeout_ms before it asserts
 * anything, and the harness never has to kill it.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

/* B's graph: LEVELS levels of WIDTH tasks, each on one of the level before. */
#define B_LEVELS 3
#define B_WIDTH 8
#define B_RUNS 3

/*
 * Unfairness allowed: B under load <= FACTOR x alone + SLACK + what B must
 * wait for at each level of its graph, as no unit is ever preempted:
 * flood, its units' turn on the CPUs (a level's unit waits in a pending
 * slot behind one of A's, then in the kick queue behind about AIVs / CPUs
 * of A's units: FLOOD_TURNS x that x A's task alone per level); hang,
 * HANG_TURNS timeouts per level (a pending slot behind a hung unit).
 * A FIFO scheduler would make B wait for A's whole backlog instead: A_SQ
 * x 4 blocks / 48 AIVs, some 170 of A's units per level.
 */
#define FAIR_FACTOR 10
#define FAIR_SLACK_MS 3000
#define FLOOD_TURNS 2
#define HANG_TURNS 2

/* The hang test's device timeout: how long each of A's tasks holds its clusters. */
#define HANG_TIMEOUT_MS 1000
/* A's queue: deep enough that a FIFO scheduler would starve B for minutes. */
#define A_SQ 2048

/* One run of B's graph, however slow: far below the deadlines below. */
#define RUN_TIMEOUT_NS PTO_TEST_SEC(20)
/*
 * A's first doorbell (2048 tasks submitted): since a running unit hands
 * queued units threads every quantum, A's own units share the CPUs with
 * A's process, and the doorbell takes longer than the 24 s it took before.
 */
#define FLOODER_READY_MS ((int)(PTO_TEST_LIMIT_MSEC(150000) / 1000000))
/* The whole measurement; then the test process restores timeout_ms. */
#define MEASURE_DEADLINE_NS PTO_TEST_SEC(240)
/* The harness's timeout of each test: only if the test process itself hangs. */
#define FAIR_TEST_TIMEOUT 300

/* What the measuring child reports (shared memory: the fixture). */
struct fair_result {
	int ret;		/* 0, or why the measurement stopped */
	char why[384];
	int64_t alone, loaded;	/* medians, ns */
	int64_t loaded_span;	/* ns from A's first doorbell to the end of B's runs */
	int64_t a_setup;	/* ns from A's fork to its first doorbell's return */
	int64_t a_task;		/* flood: one of A's tasks alone, ns */
	uint64_t timeouts;	/* device TIMEOUTs over that span */
};

FIXTURE(fair)
{
	long old_timeout;
	/* Written by the test process only. */
	pid_t measurer;
	/* Written by the measurer only. */
	struct fair_result res;
};

FIXTURE_SETUP(fair)
{
	self->measurer = 0;
	memset(&self->res, 0, sizeof(self->res));
	self->old_timeout = pto_test_param_read("timeout_ms");
	ASSERT_LT(0, self->old_timeout);
}

static void restore_timeout(FIXTURE_DATA(fair) *self)
{
	if (self->old_timeout > 0 &&
	    pto_test_param_read("timeout_ms") != self->old_timeout)
		pto_test_param_write("timeout_ms", self->old_timeout);
}

/*
 * In the harness's process, after the test process has ended however it
 * ended (self is shared memory): the timeout comes back, the measurer
 * goes (it also dies with the test process: PR_SET_PDEATHSIG).
 */
FIXTURE_TEARDOWN_PARENT(fair)
{
	restore_timeout(self);
	if (self->measurer > 0)
		kill(self->measurer, SIGKILL);
}

/* out[0, arg0] = arg1 after arg2 x 1000 iterations (pto_test.h). */
static struct pto_kernel *mark_kernel(struct pto_device *dev)
{
	return pto_test_mark_kernel(dev, 1000, NULL, 0);
}

/* Process B's side: a device handle, a queue, a kernel and its output. */
struct bside {
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_kernel *k;
	struct pto_tensor *out;
};

static int b_open(struct bside *b)
{
	int ret = pto_test_dev_open(&b->dev);

	if (!ret)
		ret = pto_queue_create(b->dev, 256, 0, &b->q);
	if (!ret)
		ret = pto_test_tensor2d(b->dev, PTO_DTYPE_I64, 1,
					B_LEVELS * B_WIDTH, &b->out);
	if (!ret) {
		b->k = mark_kernel(b->dev);
		ret = b->k ? 0 : -EINVAL;
	}
	return ret;
}

/* One run of B's graph; its wall time in *@ns. 0, or why it failed. */
static int b_run(struct bside *b, int64_t *ns, char *why, size_t len)
{
	struct pto_tensor *args[1] = { b->out };
	int64_t *po = pto_tensor_data(b->out), t0;
	struct pto_graph *g;
	int i, ret;

	memset(po, 0, B_LEVELS * B_WIDTH * sizeof(*po));
	ret = pto_graph_new(b->dev, &g);
	if (ret)
		return ret;
	for (i = 0; i < B_LEVELS * B_WIDTH; i++) {
		int64_t sc[3] = { i, 7000 + i, 2 }, dep = i - B_WIDTH;

		ret = pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = b->k, .block_num = 2, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 3,
			.deps = &dep, .num_deps = i >= B_WIDTH });
		if (ret < 0)
			goto out;
	}
	t0 = pto_test_now_ns();
	ret = pto_graph_run(g, b->q, RUN_TIMEOUT_NS);
	*ns = pto_test_now_ns() - t0;
	if (ret) {
		pto_graph_first_error(g, why, len);
		goto out;
	}
	for (i = 0; i < B_LEVELS * B_WIDTH; i++)
		if (po[i] != 7000 + i) {
			snprintf(why, len, "column %d: %lld", i, (long long)po[i]);
			ret = -EIO;
		}
out:
	pto_graph_free(g);
	return ret;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median of B_RUNS runs of B's graph. */
static int b_median(struct bside *b, int64_t *median, char *why, size_t len)
{
	int64_t t[B_RUNS];
	int i, ret;

	for (i = 0; i < B_RUNS; i++) {
		ret = b_run(b, &t[i], why, len);
		if (ret)
			return ret;
	}
	qsort(t, B_RUNS, sizeof(t[0]), cmp_i64);
	*median = t[B_RUNS / 2];
	return 0;
}

/*
 * Process A: a queue of A_SQ slots kept full. Without @hang, SPMD tasks of
 * @blocks blocks spinning @spin x 1000 iterations. With @hang, mixed
 * tasks of @blocks blocks whose AIC and AIV each pop a tile the other
 * never pushes: neither side ever ends on its own (a side that ended
 * would end the other's wait at once, -EPIPE), so each block holds a
 * whole cluster, its three threads asleep in the ring wait, until the
 * device timeout. Without @hang, first times one task alone. Says 'R' and
 * that time after the first doorbell, then resubmits for ever. Dies with
 * its parent.
 */
static void flooder(int to_parent, bool hang, uint32_t blocks, int64_t spin)
{
	struct pto_kernel *k = NULL, *kc = NULL;
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_cqe cqes[256];
	struct pto_kb *kb;
	char err[256], msg = 'E';
	int64_t one = 0, t0;
	bool told = false;
	int t;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (pto_test_dev_open(&dev) || pto_queue_create(dev, A_SQ, 0, &q))
		goto fail;
	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		goto fail;
	if (hang) {
		t = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, 16, 16);
		pto_kb_pop(kb, t);
	} else {
		pto_kb_ldi(kb, 0, 0);
		pto_kb_loopi(kb, 1, spin);
		pto_kb_loopi(kb, 2, 1000);
		pto_kb_alui(kb, PTO_ALU_ADD, 0, 0, 1);
		pto_kb_endloop(kb);
		pto_kb_endloop(kb);
	}
	pto_kb_end(kb);
	k = pto_test_kb_finish(kb, err, sizeof(err));
	if (!k)
		goto fail;
	if (hang) {
		if (pto_kb_new(dev, PTO_CORE_AIC, &kb))
			goto fail;
		t = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_L1, 16, 16);
		pto_kb_pop(kb, t);
		pto_kb_end(kb);
		kc = pto_test_kb_finish(kb, err, sizeof(err));
		if (!kc)
			goto fail;
	}
	if (!hang) {
		uint32_t consumed = 0;

		t0 = pto_test_now_ns();
		if (pto_queue_push_task(q, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = blocks }) ||
		    pto_queue_doorbell(q, 0, 0, &consumed, NULL) || consumed != 1)
			goto fail;
		while (!pto_queue_reap(q, cqes, 1)) {
			if (pto_test_now_ns() - t0 > RUN_TIMEOUT_NS)
				goto fail;
			pto_queue_wait(q, pto_time_ns() + PTO_TEST_MSEC(50));
		}
		one = pto_test_now_ns() - t0;
	}
	for (;;) {
		uint32_t consumed = 0;

		while (!pto_queue_push_task(q, &(struct pto_task_desc){
			.kernel_aiv = k, .kernel_aic = kc, .block_num = blocks }))
			;
		if (pto_queue_doorbell(q, 0, 0, &consumed, NULL))
			goto fail;
		if (!told) {
			msg = 'R';
			if (write(to_parent, &msg, 1) != 1 ||
			    write(to_parent, &one, sizeof(one)) != sizeof(one))
				_exit(2);
			told = true;
		}
		while (pto_queue_reap(q, cqes, 256) > 0)
			;
		pto_queue_wait(q, pto_time_ns() + PTO_TEST_MSEC(50));
		while (pto_queue_reap(q, cqes, 256) > 0)
			;
	}
fail:
	if (!told && write(to_parent, &msg, 1) != 1)
		_exit(2);
	_exit(1);
}

static int query_timeouts(int mon, uint64_t *timeouts)
{
	struct drm_pto_npu_counters c;
	int ret = pto_test_query(mon, DRM_PTO_NPU_QUERY_COUNTERS, &c, sizeof(c));

	if (!ret)
		*timeouts = c.timeouts;
	return ret;
}

#define M_FAIL(r, err, ...)						\
	do {								\
		(r)->ret = (err) ? (err) : -EIO;			\
		snprintf((r)->why, sizeof((r)->why), __VA_ARGS__);	\
		goto out;						\
	} while (0)

/*
 * The measuring child: B alone, then A (its child) started, then B under
 * A. Sets timeout_ms for the hang test; the test process restores it.
 */
static int measure_child(struct fair_result *r, bool hang, uint32_t blocks,
			 int64_t spin)
{
	struct pollfd pfd = { .events = POLLIN };
	struct bside b = { 0 };
	uint64_t to0 = 0, to1 = 0;
	char why[256] = "", msg = 0;
	int to_parent[2] = { -1, -1 };
	int64_t t0, warm;
	pid_t a = -1;
	int mon, ret;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	mon = pto_test_open();
	if (mon < 0)
		M_FAIL(r, -errno, "open");
	ret = b_open(&b);
	if (ret)
		M_FAIL(r, ret, "B's setup");
	/* Warm: first-use mappings, caches. */
	ret = b_run(&b, &warm, why, sizeof(why));
	if (ret)
		M_FAIL(r, ret, "warm-up: %s", why);
	ret = b_median(&b, &r->alone, why, sizeof(why));
	if (ret)
		M_FAIL(r, ret, "alone: %s", why);

	if (hang) {
		ret = pto_test_param_write("timeout_ms", HANG_TIMEOUT_MS);
		if (ret)
			M_FAIL(r, ret, "setting timeout_ms");
	}
	if (pipe(to_parent))
		M_FAIL(r, -errno, "pipe");
	a = fork();
	if (a < 0)
		M_FAIL(r, -errno, "fork");
	if (!a) {
		close(to_parent[0]);
		flooder(to_parent[1], hang, blocks, spin);
	}
	pfd.fd = to_parent[0];
	t0 = pto_test_now_ns();
	if (poll(&pfd, 1, FLOODER_READY_MS) != 1)
		M_FAIL(r, -ETIMEDOUT, "A not submitting after %d ms",
		       FLOODER_READY_MS);
	if (read(to_parent[0], &msg, 1) != 1 || msg != 'R')
		M_FAIL(r, -EIO, "A's setup failed");
	if (read(to_parent[0], &r->a_task, sizeof(r->a_task)) != sizeof(r->a_task))
		M_FAIL(r, -EIO, "A's time alone");
	r->a_setup = pto_test_now_ns() - t0;
	t0 = pto_test_now_ns();
	ret = query_timeouts(mon, &to0);
	if (ret)
		M_FAIL(r, ret, "counters");
	/* A's backlog is in: every core busy, the ready queue deep. */
	usleep(2000 * 1000);
	ret = b_median(&b, &r->loaded, why, sizeof(why));
	if (ret)
		M_FAIL(r, ret, "loaded: %s", why);
	r->loaded_span = pto_test_now_ns() - t0;
	ret = query_timeouts(mon, &to1);
	if (ret)
		M_FAIL(r, ret, "counters");
	r->timeouts = to1 - to0;
out:
	if (a > 0) {
		kill(a, SIGKILL);
		waitpid(a, NULL, 0);
	}
	return r->ret;
}

static void measure(struct __test_metadata *_metadata, FIXTURE_DATA(fair) *self,
		    const char *what, bool hang, uint32_t blocks, int64_t spin)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct pto_device *dev;
	int64_t per_level;
	struct fair_result *r = &self->res;
	int64_t end, bound;
	int status = 0;
	pid_t pid, w;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(measure_child(r, hang, blocks, spin) ? 1 : 0);
	/* Only the test process writes it (self is shared with the child). */
	self->measurer = pid;

	end = pto_test_now_ns() + MEASURE_DEADLINE_NS;
	while ((w = waitpid(pid, &status, WNOHANG)) == 0 &&
	       pto_test_now_ns() < end)
		usleep(50 * 1000);
	/* Before anything that can fail: later suites need their timeout. */
	restore_timeout(self);
	if (w == 0) {
		kill(pid, SIGKILL);
		/* Reaped by init if it never comes out of the kernel. */
		end = pto_test_now_ns() + PTO_TEST_SEC(10);
		while (waitpid(pid, &status, WNOHANG) == 0 &&
		       pto_test_now_ns() < end)
			usleep(50 * 1000);
	}
	self->measurer = 0;
	ASSERT_EQ(self->old_timeout, pto_test_param_read("timeout_ms"));
	ASSERT_NE(0, w) TH_LOG("%s: the measurement did not end within %lld s",
			       what, (long long)(MEASURE_DEADLINE_NS / 1000000000));
	ASSERT_EQ(pid, w);
	ASSERT_EQ(0, r->ret) TH_LOG("%s: %s (%d)", what, r->why, r->ret);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));

	ASSERT_EQ(0, pto_test_dev_open(&dev));
	if (hang)
		per_level = HANG_TURNS * PTO_TEST_MSEC(HANG_TIMEOUT_MS);
	else
		per_level = FLOOD_TURNS * r->a_task *
			    ((pto_available_aiv_count(dev) + cpus - 1) / cpus);
	bound = FAIR_FACTOR * r->alone + PTO_TEST_LIMIT_MSEC(FAIR_SLACK_MS) +
		(B_LEVELS + 1) * per_level;
	TH_LOG("%s: B alone %lld ms, under A %lld ms, ratio %.1f (bound %lld ms); %llu device timeouts in %lld ms under A; A's setup %lld ms, one task alone %lld ms",
	       what, (long long)r->alone / 1000000, (long long)r->loaded / 1000000,
	       (double)r->loaded / (double)r->alone, (long long)bound / 1000000,
	       (unsigned long long)r->timeouts,
	       (long long)r->loaded_span / 1000000,
	       (long long)r->a_setup / 1000000,
	       (long long)r->a_task / 1000000);
	printf("# fairness: %s: B alone %lld ms, under A %lld ms, ratio %.1f\n",
	       what, (long long)r->alone / 1000000, (long long)r->loaded / 1000000,
	       (double)r->loaded / (double)r->alone);
	EXPECT_GE(bound, r->loaded);
	if (hang) {
		/*
		 * A's tasks really hang: some timed out, but no more than
		 * one per cluster and timeout (tasks that ended at once
		 * would time out by the thousand).
		 */
		uint64_t most = (uint64_t)(r->loaded_span /
					   PTO_TEST_MSEC(HANG_TIMEOUT_MS) + 1) *
				pto_available_cluster_count(dev);

		EXPECT_LE(1ULL, r->timeouts);
		EXPECT_GE(most, r->timeouts);
	}
	pto_device_close(dev);
}

TEST_F_TIMEOUT(fair, flooding_process_does_not_starve_another, FAIR_TEST_TIMEOUT)
{
	/* 4-block tasks of 20,000 iterations, A_SQ deep. */
	measure(_metadata, self, "flood", false, 4, 20);
}

TEST_F_TIMEOUT(fair, hanging_process_does_not_starve_another, FAIR_TEST_TIMEOUT)
{
	/*
	 * Every task of A holds 4 clusters until the timeout: B's unit may
	 * wait in a pending slot behind a hung one at each level of its
	 * graph.
	 */
	measure(_metadata, self, "hang", true, 4, 0);
}

/* ------------------------------------------------------------------ names */

/* What one context owns: a queue, a kernel, a syncobj, a task in flight. */
struct owned {
	int fd;
	struct drm_pto_npu_queue_create qc;
	uint32_t kernel;
	uint32_t syncobj;
};

static int own(struct owned *o)
{
	struct pto_insn p = { .op = PTO_OP_END };
	struct drm_pto_npu_kernel_create kc = {
		.insns = (uintptr_t)&p, .num_insns = 1, .core_type = PTO_CORE_AIV,
	};

	memset(o, 0, sizeof(*o));
	o->fd = pto_test_open();
	if (o->fd < 0)
		return -errno;
	if (pto_test_ioctl(o->fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &kc))
		return -errno;
	o->kernel = kc.handle;
	o->qc.sq_slots = 32;
	if (pto_test_ioctl(o->fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &o->qc))
		return -errno;
	return drmSyncobjCreate(o->fd, 0, &o->syncobj) ? -errno : 0;
}

/*
 * In a forked child (a process of its own), with a context that owns the
 * same numbers: every name of the parent's resolves to its own objects
 * or to nothing, never to the parent's. Returns 0 or the failing line.
 */
static int probe_names(const struct owned *theirs)
{
	struct drm_pto_npu_queue_wait w = { .queue_id = theirs->qc.queue_id };
	struct drm_pto_npu_queue_submit s = { .queue_id = theirs->qc.queue_id };
	struct drm_pto_npu_kernel_destroy kd = { .handle = theirs->kernel };
	struct drm_pto_npu_queue_destroy qd = { .queue_id = theirs->qc.queue_id };
	struct drm_pto_npu_bo_info bi = { .handle = theirs->qc.handle };
	int fd = pto_test_open(), fd2;
	uint32_t h;

	if (fd < 0)
		return __LINE__;
	/* An empty context: nothing of theirs exists here. */
	if (pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w) != -ENOENT)
		return __LINE__;
	if (pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT, &s) != -ENOENT)
		return __LINE__;
	if (pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY, &qd) != -ENOENT)
		return __LINE__;
	if (pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY, &kd) != -ENOENT)
		return __LINE__;
	if (pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_BO_INFO, &bi) != -ENOENT)
		return __LINE__;
	if (!drmSyncobjWait(fd, (uint32_t *)&theirs->syncobj, 1, 0, 0, NULL) ||
	    errno != ENOENT)
		return __LINE__;
	if (!drmSyncobjHandleToFD(fd, theirs->syncobj, &fd2))
		return __LINE__;
	/* A submit naming their syncobj as its fence. */
	{
		struct owned mine;

		if (own(&mine))
			return __LINE__;
		s = (struct drm_pto_npu_queue_submit){
			.queue_id = mine.qc.queue_id, .syncobj = theirs->syncobj + 1,
		};
		if (pto_test_ioctl(mine.fd, DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT, &s) != -ENOENT)
			return __LINE__;
		/* Entries naming their kernel handle are refused (it names ours, or none). */
		h = theirs->kernel + 1;
		{
			struct pto_test_sqe e;
			uint8_t *map = mmap(NULL, mine.qc.ring_size, PROT_READ | PROT_WRITE,
					    MAP_SHARED, mine.fd, (off_t)mine.qc.mmap_offset);
			struct drm_pto_npu_ring_header *hdr = (void *)map;
			const struct drm_pto_npu_cqe *c;

			if (map == MAP_FAILED)
				return __LINE__;
			pto_test_sqe_init(&e, h, 0, 1, NULL, 0, NULL, 0, NULL, 0);
			memcpy(map + mine.qc.sq_offset, &e, DRM_PTO_NPU_SQ_SLOT_SIZE);
			__atomic_store_n(&hdr->sq_tail, 1, __ATOMIC_RELEASE);
			s = (struct drm_pto_npu_queue_submit){ .queue_id = mine.qc.queue_id };
			if (pto_test_ioctl(mine.fd, DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT, &s) || s.consumed != 1)
				return __LINE__;
			w = (struct drm_pto_npu_queue_wait){
				.queue_id = mine.qc.queue_id,
				.timeout_ns = pto_test_now_ns() + PTO_TEST_SEC(30),
			};
			if (pto_test_ioctl(mine.fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w))
				return __LINE__;
			c = (const void *)(map + mine.qc.cq_offset);
			if (c->status != DRM_PTO_NPU_STATUS_INVALID ||
			    c->reason != DRM_PTO_NPU_REASON_KERNEL)
				return __LINE__;
		}
	}
	close(fd);
	return 0;
}

FIXTURE(names)
{
	int unused;
};

FIXTURE_SETUP(names)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(names)
{
}

TEST_F(names, of_another_process_resolve_to_nothing)
{
	struct owned mine;
	int status = 0;
	pid_t child;

	ASSERT_EQ(0, own(&mine));
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(probe_names(&mine));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("check at line %d failed",
						 WEXITSTATUS(status));
	/* Ours are untouched: the queue, the kernel and the syncobj still work. */
	EXPECT_EQ(0, pto_test_ioctl(mine.fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY,
				    &((struct drm_pto_npu_kernel_destroy){ .handle = mine.kernel })));
	EXPECT_EQ(0, pto_test_ioctl(mine.fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY,
				    &((struct drm_pto_npu_queue_destroy){ .queue_id = mine.qc.queue_id })));
	EXPECT_EQ(0, drmSyncobjDestroy(mine.fd, mine.syncobj));
	close(mine.fd);
}

/* Same numbers, two contexts in one process: each names its own. */
TEST_F(names, same_numbers_name_different_objects)
{
	struct owned a, b;
	struct drm_pto_npu_queue_wait w;

	ASSERT_EQ(0, own(&a));
	ASSERT_EQ(0, own(&b));
	/* Fresh contexts hand out the same first ids. */
	EXPECT_EQ(a.qc.queue_id, b.qc.queue_id);
	EXPECT_EQ(a.kernel, b.kernel);
	/* Destroying A's queue leaves B's: B still waits on it. */
	EXPECT_EQ(0, pto_test_ioctl(a.fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY,
				    &((struct drm_pto_npu_queue_destroy){ .queue_id = a.qc.queue_id })));
	w = (struct drm_pto_npu_queue_wait){ .queue_id = b.qc.queue_id };
	EXPECT_EQ(-ETIME, pto_test_ioctl(b.fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w));
	w = (struct drm_pto_npu_queue_wait){ .queue_id = a.qc.queue_id };
	EXPECT_EQ(-ENOENT, pto_test_ioctl(a.fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w));
	EXPECT_EQ(0, pto_test_ioctl(a.fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY,
				    &((struct drm_pto_npu_kernel_destroy){ .handle = a.kernel })));
	EXPECT_EQ(0, pto_test_ioctl(b.fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY,
				    &((struct drm_pto_npu_kernel_destroy){ .handle = b.kernel })));
	/* A's syncobj is gone in A only. */
	EXPECT_EQ(0, drmSyncobjDestroy(a.fd, a.syncobj));
	EXPECT_EQ(0, drmSyncobjDestroy(b.fd, b.syncobj));
	close(a.fd);
	close(b.fd);
}

TEST_HARNESS_MAIN
