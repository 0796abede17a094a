// SPDX-License-Identifier: GPL-2.0-only
/*
 * Lifetimes of contexts with work in flight: a process killed with two
 * thousand tasks running and waiting, again and again; the device file
 * closed by another thread while a thread waits in QUEUE_WAIT or rings
 * doorbells; a process that exits with completions it never reaped. Each
 * time the device's GM accounting must come back to where it started, the
 * device counters must show every task retired, and the device must go on
 * running graphs.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

/* Kill rounds, and the tasks each killed child has in flight. */
#define KILL_ROUNDS 5
#define KILL_TASKS 2000
/* GM the killed child holds besides its queue. */
#define KILL_BUFFERS 4
#define KILL_BUFFER_SIZE (1 << 20)

/* How long the device may take to free a dead context's everything. */
#define RELEASE_TIMEOUT_NS PTO_TEST_SEC(20)

/* How long one ordinary graph may run. */
#define RUN_TIMEOUT_NS PTO_TEST_SEC(60)

/* Tasks of the held-completions child, and its CQ. */
#define HELD_TASKS 60
#define HELD_CQ 4

FIXTURE(life)
{
	int mon;	/* a context of its own, for the queries */
	struct drm_pto_npu_memory_info mem0;
	struct drm_pto_npu_counters cnt0;
	int to_parent[2];
};

FIXTURE_SETUP(life)
{
	self->to_parent[0] = self->to_parent[1] = -1;
	self->mon = pto_test_open();
	ASSERT_LE(0, self->mon) TH_LOG("open %s: %s", pto_test_device_path(),
				       strerror(errno));
	ASSERT_EQ(0, pto_test_memory(self->mon, &self->mem0));
	ASSERT_EQ(0, pto_test_query(self->mon, DRM_PTO_NPU_QUERY_COUNTERS,
				    &self->cnt0, sizeof(self->cnt0)));
	ASSERT_EQ(0, pipe(self->to_parent));
}

FIXTURE_TEARDOWN(life)
{
	if (self->to_parent[0] >= 0)
		close(self->to_parent[0]);
	if (self->to_parent[1] >= 0)
		close(self->to_parent[1]);
	if (self->mon >= 0)
		close(self->mon);
}

/*
 * Waits until the device holds the GM it held at @mem0 and, if @retired is
 * not 0, until its retired counter reached @retired. Returns 0, or -ETIME
 * with the last figures in @mem and @cnt.
 */
static int wait_released(int fd, const struct drm_pto_npu_memory_info *mem0,
			 uint64_t retired, struct drm_pto_npu_memory_info *mem,
			 struct drm_pto_npu_counters *cnt, int64_t *took)
{
	int64_t start = pto_test_now_ns();

	for (;;) {
		if (pto_test_memory(fd, mem) || pto_test_counters(fd, cnt))
			return -EIO;
		if (mem->device_bos == mem0->device_bos &&
		    mem->device_bytes == mem0->device_bytes &&
		    cnt->retired >= retired) {
			*took = pto_test_now_ns() - start;
			return 0;
		}
		if (pto_test_now_ns() - start > RELEASE_TIMEOUT_NS)
			return -ETIME;
		usleep(10000);
	}
}

#define EXPECT_RELEASED(want_retired) do { \
	struct drm_pto_npu_memory_info __m; \
	struct drm_pto_npu_counters __c; \
	int64_t __took = 0; \
	int __ret = wait_released(self->mon, &self->mem0, (want_retired), &__m, \
				  &__c, &__took); \
	EXPECT_EQ(0, __ret) \
		TH_LOG("device bos %llu (start %llu), bytes %llu (start %llu), retired %llu (want %llu)", \
		       (unsigned long long)__m.device_bos, \
		       (unsigned long long)self->mem0.device_bos, \
		       (unsigned long long)__m.device_bytes, \
		       (unsigned long long)self->mem0.device_bytes, \
		       (unsigned long long)__c.retired, \
		       (unsigned long long)(want_retired)); \
	if (!__ret) \
		TH_LOG("released in %lld ms", (long long)__took / 1000000); \
} while (0)

/* out[0, arg0] = arg1 after arg2 x 1000 iterations (pto_test.h). */
static struct pto_kernel *mark_kernel(struct pto_device *dev)
{
	return pto_test_mark_kernel(dev, 1000, NULL, 0);
}

/* A short graph on a fresh context: the device still works. */
static void device_runs_a_graph(struct __test_metadata *_metadata)
{
	struct pto_tensor *out, *args[1];
	struct pto_device *dev;
	struct pto_kernel *k;
	struct pto_queue *q;
	struct pto_graph *g;
	int64_t *po;
	int i;

	ASSERT_EQ(0, pto_test_dev_open(&dev));
	ASSERT_EQ(0, pto_queue_create(dev, 0, 0, &q));
	ASSERT_EQ(0, pto_test_tensor2d(dev, PTO_DTYPE_I64, 1, 16, &out));
	args[0] = out;
	k = mark_kernel(dev);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(0, pto_graph_new(dev, &g));
	for (i = 0; i < 16; i++) {
		int64_t sc[3] = { i, 1000 + i, 1 }, dep = i - 1;

		ASSERT_EQ(i, pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1 + i % 3, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 3,
			.deps = &dep, .num_deps = i % 2 }));
	}
	ASSERT_EQ(0, pto_graph_run(g, q, RUN_TIMEOUT_NS))
		TH_LOG("%s", pto_graph_error(g));
	po = pto_tensor_data(out);
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(1000 + i, po[i]);
	}
	pto_graph_free(g);
	pto_kernel_free(k);
	pto_tensor_free(out);
	EXPECT_EQ(0, pto_queue_destroy(q));
	pto_device_close(dev);
}

/* ------------------------------------------------------------------ kill -9 */

/*
 * The child: a chain of KILL_TASKS slow tasks and some GM, all taken by one
 * doorbell; tells the parent ('R', or 'E' on a failure) and waits to die.
 * With @early, every task allows early resolve: its consumer sits
 * pre-staged on a core when the process dies.
 */
static void killed_child(int to_parent, bool early)
{
	struct pto_buffer *bufs[KILL_BUFFERS];
	struct pto_tensor *out, *args[1];
	struct pto_device *dev;
	struct pto_kernel *k;
	struct pto_queue *q;
	uint32_t consumed = 0;
	char msg = 'E';
	int i, ret;

	ret = pto_test_dev_open(&dev);
	if (!ret)
		ret = pto_queue_create(dev, 8192, 0, &q);
	if (!ret)
		ret = pto_test_tensor2d(dev, PTO_DTYPE_I64, 1, 16, &out);
	for (i = 0; !ret && i < KILL_BUFFERS; i++)
		ret = pto_buffer_alloc(dev, KILL_BUFFER_SIZE, &bufs[i]);
	k = ret ? NULL : mark_kernel(dev);
	args[0] = out;
	for (i = 0; k && i < KILL_TASKS; i++) {
		/* Each ~100k iterations: the chain would run for minutes. */
		int64_t sc[3] = { i % 16, i, 100 }, dep = -1;

		if (pto_queue_push_task(q, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 3,
			.deps = &dep, .num_deps = i ? 1 : 0,
			.flags = early ? PTO_TASK_EARLY_RESOLVE : 0 }))
			break;
	}
	if (k && i == KILL_TASKS &&
	    !pto_queue_doorbell(q, 0, 0, &consumed, NULL) &&
	    consumed == KILL_TASKS)
		msg = 'R';
	if (write(to_parent, &msg, 1) != 1)
		_exit(2);
	for (;;)
		pause();
}

TEST_F_TIMEOUT(life, kill_9_with_2000_tasks_in_flight_frees_everything, 240)
{
	int round;

	for (round = 0; round < KILL_ROUNDS; round++) {
		struct drm_pto_npu_memory_info mem;
		struct drm_pto_npu_counters before, at_kill;
		struct pollfd pfd = { .fd = self->to_parent[0], .events = POLLIN };
		int status = 0;
		pid_t child;
		char msg = 0;

		ASSERT_EQ(0, pto_test_counters(self->mon, &before));
		child = fork();
		ASSERT_LE(0, child);
		if (!child) {
			close(self->to_parent[0]);
			killed_child(self->to_parent[1], round % 2);
		}
		ASSERT_EQ(1, poll(&pfd, 1, 60000)) TH_LOG("round %d: child silent", round);
		ASSERT_EQ(1, read(self->to_parent[0], &msg, 1));
		ASSERT_EQ('R', msg) TH_LOG("round %d: child setup failed", round);

		/* The child's GM is there and its tasks are in flight. */
		ASSERT_EQ(0, pto_test_memory(self->mon, &mem));
		EXPECT_LE(self->mem0.device_bos + KILL_BUFFERS + 2, mem.device_bos);
		EXPECT_LE(self->mem0.device_bytes +
			  (uint64_t)KILL_BUFFERS * KILL_BUFFER_SIZE, mem.device_bytes);
		ASSERT_EQ(0, pto_test_counters(self->mon, &at_kill));
		EXPECT_EQ(before.tasks + KILL_TASKS, at_kill.tasks);
		EXPECT_GT(before.retired + KILL_TASKS, at_kill.retired)
			TH_LOG("round %d: the chain was already done", round);

		ASSERT_EQ(0, kill(child, SIGKILL));
		ASSERT_EQ(child, waitpid(child, &status, 0));
		ASSERT_TRUE(WIFSIGNALED(status));
		EXPECT_EQ(SIGKILL, WTERMSIG(status));

		/* Everything freed, every task retired (cancelled). */
		EXPECT_RELEASED(before.retired + KILL_TASKS);
	}
	device_runs_a_graph(_metadata);
}

/* ------------------------------------------------------------------ close races */

struct closer {
	int fd;
	int delay_ms;
	int ret;
	int err;
};

static void *close_later(void *arg)
{
	struct closer *c = arg;

	usleep(c->delay_ms * 1000);
	c->ret = close(c->fd);
	c->err = errno;
	return NULL;
}

/* A raw context: a queue mapped, a kernel. */
struct raw_ctx {
	int fd;
	struct drm_pto_npu_queue_create qc;
	uint8_t *map;
	struct drm_pto_npu_ring_header *hdr;
	uint32_t kernel;
};

/* A kernel of @outer x 1,000,000 iterations (0: just END). */
static int raw_ctx_open(struct raw_ctx *c, int64_t outer, uint32_t sq, uint32_t cq)
{
	struct pto_insn p[7];
	struct drm_pto_npu_kernel_create kc = { 0 };
	int n = 0;

	memset(c, 0, sizeof(*c));
	memset(p, 0, sizeof(p));
	c->fd = pto_test_open();
	if (c->fd < 0)
		return -errno;
	if (outer) {
		p[0] = (struct pto_insn){ .op = PTO_OP_LDI, .dst = 0, .imm = outer };
		p[1] = (struct pto_insn){ .op = PTO_OP_LDI, .dst = 2, .imm = 1000000 };
		p[2] = (struct pto_insn){ .op = PTO_OP_LOOP, .dst = 1, .b = 0 };
		p[3] = (struct pto_insn){ .op = PTO_OP_LOOP, .dst = 3, .b = 2 };
		p[4] = (struct pto_insn){ .op = PTO_OP_ENDLOOP };
		p[5] = (struct pto_insn){ .op = PTO_OP_ENDLOOP };
		n = 6;
	}
	p[n++] = (struct pto_insn){ .op = PTO_OP_END };
	kc.insns = (uintptr_t)p;
	kc.num_insns = n;
	kc.core_type = PTO_CORE_AIV;
	if (drmIoctl(c->fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &kc))
		return -errno;
	c->kernel = kc.handle;
	c->qc.sq_slots = sq;
	c->qc.cq_entries = cq;
	c->qc.work_budget = PTO_TEST_LONG_BUDGET;
	if (drmIoctl(c->fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &c->qc))
		return -errno;
	c->map = mmap(NULL, c->qc.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      c->fd, (off_t)c->qc.mmap_offset);
	if (c->map == MAP_FAILED)
		return -errno;
	c->hdr = (struct drm_pto_npu_ring_header *)c->map;
	return 0;
}

/* Publishes one single-slot entry; false if the SQ is full. */
static bool raw_push(struct raw_ctx *c)
{
	uint32_t tail = c->hdr->sq_tail;
	struct drm_pto_npu_sqe *e;

	if (tail - __atomic_load_n(&c->hdr->sq_head, __ATOMIC_ACQUIRE) >=
	    c->qc.sq_slots)
		return false;
	e = (struct drm_pto_npu_sqe *)(c->map + c->qc.sq_offset +
		(tail & (c->qc.sq_slots - 1)) * DRM_PTO_NPU_SQ_SLOT_SIZE);
	memset(e, 0, sizeof(*e));
	e->kernel_aiv = c->kernel;
	e->block_num = 1;
	e->num_slots = 1;
	__atomic_store_n(&c->hdr->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return true;
}

static int raw_doorbell(struct raw_ctx *c, uint32_t syncobj)
{
	struct drm_pto_npu_queue_submit s = {
		.queue_id = c->qc.queue_id,
		.syncobj = syncobj,
	};

	return pto_test_ret(drmIoctl(c->fd, DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT, &s));
}

static int raw_wait(struct raw_ctx *c, int64_t deadline)
{
	struct drm_pto_npu_queue_wait w = {
		.queue_id = c->qc.queue_id,
		.timeout_ns = deadline,
	};

	return pto_test_ret(drmIoctl(c->fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w));
}

TEST_F(life, close_fd_during_queue_wait_with_task_in_flight)
{
	struct closer cl = { .delay_ms = 200 };
	struct raw_ctx c;
	pthread_t th;
	int64_t start, elapsed;
	int ret;

	/* A task of about a second or two. */
	ASSERT_EQ(0, raw_ctx_open(&c, 4, 32, 32));
	ASSERT_TRUE(raw_push(&c));
	ASSERT_EQ(0, raw_doorbell(&c, 0));

	cl.fd = c.fd;
	ASSERT_EQ(0, pthread_create(&th, NULL, close_later, &cl));
	start = pto_test_now_ns();
	ret = raw_wait(&c, start + PTO_TEST_SEC(20));
	elapsed = pto_test_now_ns() - start;
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(0, cl.ret) TH_LOG("close: %s", strerror(cl.err));
	/* The wait ends: with the completion, or with an error. */
	TH_LOG("QUEUE_WAIT returned %d after %lld ms", ret,
	       (long long)elapsed / 1000000);
	EXPECT_TRUE(ret == 0 || ret == -ETIME || ret == -EBADF || ret == -EINTR ||
		    ret == -ENOENT || ret == -ENODEV);
	EXPECT_GT(PTO_TEST_SEC(20), elapsed);
	if (ret == 0) {
		EXPECT_EQ(1u, __atomic_load_n(&c.hdr->cq_tail, __ATOMIC_ACQUIRE));
	}
	/* The descriptor is gone. */
	EXPECT_EQ(-EBADF, raw_wait(&c, 0));

	/* The mapping was the last reference: unmapping releases the file. */
	ASSERT_EQ(0, munmap(c.map, c.qc.ring_size));
	EXPECT_RELEASED(self->cnt0.retired + 1);
	device_runs_a_graph(_metadata);
}

TEST_F(life, close_fd_during_idle_queue_wait)
{
	struct closer cl = { .delay_ms = 200 };
	struct raw_ctx c;
	pthread_t th;
	int64_t start, elapsed;
	int ret;

	ASSERT_EQ(0, raw_ctx_open(&c, 0, 32, 32));
	cl.fd = c.fd;
	ASSERT_EQ(0, pthread_create(&th, NULL, close_later, &cl));
	/* Nothing will come: the wait ends at its deadline or in error. */
	start = pto_test_now_ns();
	ret = raw_wait(&c, start + PTO_TEST_SEC(2));
	elapsed = pto_test_now_ns() - start;
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(0, cl.ret);
	TH_LOG("QUEUE_WAIT returned %d after %lld ms", ret,
	       (long long)elapsed / 1000000);
	EXPECT_NE(0, ret);
	EXPECT_GT(PTO_TEST_SEC(20), elapsed);
	ASSERT_EQ(0, munmap(c.map, c.qc.ring_size));
	EXPECT_RELEASED(0);
	device_runs_a_graph(_metadata);
}

struct submitter {
	struct raw_ctx *c;
	int doorbells;
	int last_ret;
};

/* Rings doorbells of quick tasks until the descriptor goes away. */
static void *submit_until_closed(void *arg)
{
	struct submitter *s = arg;
	int64_t deadline = pto_test_now_ns() + PTO_TEST_SEC(60);

	while (pto_test_now_ns() < deadline) {
		int i, ret;

		for (i = 0; i < 8 && raw_push(s->c); i++)
			;
		ret = raw_doorbell(s->c, 0);
		if (ret) {
			s->last_ret = ret;
			break;
		}
		s->doorbells++;
		/* Consume whatever completed. */
		__atomic_store_n(&s->c->hdr->cq_head,
				 __atomic_load_n(&s->c->hdr->cq_tail, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	}
	return NULL;
}

TEST_F(life, close_fd_while_another_thread_submits)
{
	struct submitter s = { 0 };
	struct raw_ctx c;
	pthread_t th;

	ASSERT_EQ(0, raw_ctx_open(&c, 0, 64, 64));
	s.c = &c;
	ASSERT_EQ(0, pthread_create(&th, NULL, submit_until_closed, &s));
	usleep(300 * 1000);
	EXPECT_EQ(0, close(c.fd));
	ASSERT_EQ(0, pthread_join(th, NULL));
	TH_LOG("%d doorbells before the close", s.doorbells);
	EXPECT_LT(0, s.doorbells);
	/* The first doorbell after the close fails, nothing crashes. */
	EXPECT_EQ(-EBADF, s.last_ret);
	ASSERT_EQ(0, munmap(c.map, c.qc.ring_size));
	EXPECT_RELEASED(0);
	device_runs_a_graph(_metadata);
}

/* ------------------------------------------------------------------ held CQEs */

/*
 * The child: HELD_TASKS quick tasks through a CQ of HELD_CQ, waits for them
 * all to retire (a doorbell syncobj), checks some are held, exits without
 * reaping. Exit status: 0, or the step that failed.
 */
static int held_child(void)
{
	struct raw_ctx c;
	uint32_t h, i;

	if (raw_ctx_open(&c, 0, 64, HELD_CQ))
		return 10;
	for (i = 0; i < HELD_TASKS; i++)
		if (!raw_push(&c))
			return 11;
	if (drmSyncobjCreate(c.fd, 0, &h))
		return 12;
	if (raw_doorbell(&c, h))
		return 13;
	if (drmSyncobjWait(c.fd, &h, 1, pto_test_now_ns() + PTO_TEST_SEC(60),
			   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL))
		return 14;
	/* All retired; the CQ is full and the rest held. */
	if (__atomic_load_n(&c.hdr->cq_tail, __ATOMIC_ACQUIRE) != HELD_CQ)
		return 15;
	if (__atomic_load_n(&c.hdr->cq_held, __ATOMIC_ACQUIRE) != HELD_TASKS - HELD_CQ)
		return 16;
	return 0;
}

TEST_F(life, exit_with_held_completions_frees_everything)
{
	struct drm_pto_npu_counters before;
	int status = 0;
	pid_t child;

	ASSERT_EQ(0, pto_test_counters(self->mon, &before));
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(held_child());
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("child step %d failed",
						 WEXITSTATUS(status));
	EXPECT_RELEASED(before.retired + HELD_TASKS);
	device_runs_a_graph(_metadata);
}

TEST_F(life, kill_9_with_held_completions_frees_everything)
{
	struct drm_pto_npu_counters before;
	struct pollfd pfd = { .fd = self->to_parent[0], .events = POLLIN };
	int status = 0;
	pid_t child;
	char msg = 0;

	ASSERT_EQ(0, pto_test_counters(self->mon, &before));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		msg = (char)held_child();
		if (write(self->to_parent[1], &msg, 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	ASSERT_EQ(1, poll(&pfd, 1, 60000));
	ASSERT_EQ(1, read(self->to_parent[0], &msg, 1));
	ASSERT_EQ(0, msg) TH_LOG("child step %d failed", msg);
	ASSERT_EQ(0, kill(child, SIGKILL));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_RELEASED(before.retired + HELD_TASKS);
	device_runs_a_graph(_metadata);
}

TEST_HARNESS_MAIN
