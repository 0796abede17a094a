// SPDX-License-Identifier: GPL-2.0-only
/*
 * Faults injected into the device and its ioctls (issue #9: nothing a user
 * sends can hurt the kernel).
 *
 *  - Memory: with the kernel's fault-injection framework (failslab and
 *    fail_page_alloc, CONFIG_FAULT_INJECTION_DEBUG_FS), every allocation
 *    of every ioctl path is made to fail in turn: /proc/thread-self/fail-nth
 *    = N fails the Nth allocation this thread makes, for N = 1, 2, ...
 *    until the call goes through without reaching an Nth. Each failure is
 *    a clean error (-ENOMEM, or a task that completes with
 *    STATUS_NOMEM), the context's accounting comes back to where it was,
 *    and the device still runs real work afterwards. Then random failures
 *    (failslab's task-filter and make-it-fail: only this thread is hit)
 *    under a whole workload.
 *  - A task that faults mid-graph: its consumers fail with DEP_FAILED,
 *    independent tasks complete.
 *  - The blocks of a task that faults each read their own status in
 *    pto_graph_task_blocks(), not the task's.
 *  - A core that hangs (debugfs inject_hang): the task ends with
 *    STATUS_TIMEOUT after timeout_ms, its consumers with DEP_FAILED, the
 *    timeouts counter counts it, the device goes on.
 *  - kill -9 of a process with thousands of mixed tasks in flight, twenty
 *    times: afterwards debugfs shows no context, queue, task or busy core
 *    left, and another process runs a graph.
 *
 * The test needs root (debugfs); the kmemleak scan after the suite checks
 * that none of the error paths leaks.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

#define DEBUGFS "/sys/kernel/debug"
#define FAILSLAB DEBUGFS "/failslab"
#define FAILPAGE DEBUGFS "/fail_page_alloc"

/* Most allocation points one call may have before we give up counting. */
#define FI_MAX_N 400

/* How long one ordinary graph may run. */
#define RUN_TIMEOUT_NS PTO_TEST_SEC(60)
/* How long the device may take to free a dead context's everything. */
#define RELEASE_TIMEOUT_NS PTO_TEST_SEC(30)

/* The hang test's device timeout. */
#define HANG_TIMEOUT_MS 500

/* kill -9 rounds and the tasks in flight in each. */
#define KILL_ROUNDS 20
#define KILL_TASKS 2000

#define OUT_COLS 64

/* ------------------------------------------------------------------ files */

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n != (ssize_t)strlen(val))
		err = n < 0 ? -errno : -EIO;
	close(fd);
	return err;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while (got < (ssize_t)len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return (int)got;
}

/* The device's debugfs directory (the first device), or NULL. */
static const char *dev_debugfs(void)
{
	static const char path[] = DEBUGFS "/accel/pto_npu.0";

	return access(path, R_OK) ? NULL : path;
}

static int dbg_read(const char *name, char *buf, size_t len)
{
	char path[320];

	if (!dev_debugfs())
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", dev_debugfs(), name);
	return read_file(path, buf, len);
}

static int dbg_write(const char *name, const char *val)
{
	char path[320];

	if (!dev_debugfs())
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", dev_debugfs(), name);
	return write_file(path, val);
}

/* ------------------------------------------------------------------ work */

/* out[0, arg0] = arg1 after arg2 x 1000 iterations (pto_test.h). */
static struct pto_kernel *mark_kernel(struct pto_device *dev)
{
	return pto_test_mark_kernel(dev, 1000, NULL, 0);
}

/*
 * A short graph on a fresh context: a chain of SPMD tasks, each writing
 * one column. Returns 0, or the line of the check that failed (usable in
 * a forked child).
 */
static int run_a_graph(void)
{
	struct pto_tensor *out = NULL, *args[1];
	struct pto_device *dev;
	struct pto_kernel *k = NULL;
	struct pto_queue *q = NULL;
	struct pto_graph *g = NULL;
	int64_t *po;
	int i, fail = 0;

	if (pto_test_dev_open(&dev))
		return __LINE__;
	if (pto_queue_create(dev, 0, 0, &q) ||
	    pto_test_tensor2d(dev, PTO_DTYPE_I64, 1, 16, &out) ||
	    !(k = mark_kernel(dev)) || pto_graph_new(dev, &g)) {
		fail = __LINE__;
		goto out;
	}
	args[0] = out;
	for (i = 0; i < 16; i++) {
		int64_t sc[3] = { i, 1000 + i, 1 }, dep = i - 1;

		if (pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1 + i % 3, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 3,
			.deps = &dep, .num_deps = i % 2 }) != i) {
			fail = __LINE__;
			goto out;
		}
	}
	if (pto_graph_run(g, q, RUN_TIMEOUT_NS)) {
		fail = __LINE__;
		goto out;
	}
	po = pto_tensor_data(out);
	for (i = 0; i < 16; i++)
		if (po[i] != 1000 + i)
			fail = __LINE__;
out:
	pto_graph_free(g);
	pto_kernel_free(k);
	pto_tensor_free(out);
	if (q && pto_queue_destroy(q) && !fail)
		fail = __LINE__;
	pto_device_close(dev);
	return fail;
}

/* The same, in another process. */
static int run_a_graph_elsewhere(void)
{
	int status = 0;
	pid_t child = fork();

	if (child < 0)
		return -errno;
	if (!child)
		_exit(run_a_graph() ? 1 : 0);
	if (waitpid(child, &status, 0) != child)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ------------------------------------------------------------------ fail-nth */

/*
 * Fault-injection attributes set for the test: every allocation of this
 * thread may fail (sleeping ones too, any page order), quietly (a
 * fault-injection stack dump would read as a splat), but nothing fails at
 * random unless a test asks for it.
 */
static const struct {
	const char *path;
	const char *value;
} fi_attrs[] = {
	{ FAILSLAB "/ignore-gfp-wait", "N" },
	{ FAILSLAB "/verbose", "0" },
	{ FAILSLAB "/probability", "0" },
	{ FAILSLAB "/interval", "1" },
	{ FAILSLAB "/times", "-1" },
	{ FAILSLAB "/space", "0" },
	{ FAILSLAB "/task-filter", "Y" },
	{ FAILPAGE "/ignore-gfp-wait", "N" },
	{ FAILPAGE "/ignore-gfp-highmem", "N" },
	{ FAILPAGE "/min-order", "0" },
	{ FAILPAGE "/verbose", "0" },
	{ FAILPAGE "/probability", "0" },
	{ FAILPAGE "/interval", "1" },
	{ FAILPAGE "/times", "-1" },
	{ FAILPAGE "/space", "0" },
	{ FAILPAGE "/task-filter", "Y" },
};

#define FI_NFILES (sizeof(fi_attrs) / sizeof(fi_attrs[0]))

FIXTURE(fi)
{
	char saved[FI_NFILES][32];
	bool have_fi;
	int nth;	/* /proc/thread-self/fail-nth, kept open */
	int fd;		/* the context under test */
	struct drm_pto_npu_memory_info mem0;
	struct drm_pto_npu_memory_info base;	/* what a walk comes back to */
};

static void fi_restore(FIXTURE_DATA(fi) *self)
{
	unsigned int i;

	for (i = 0; i < FI_NFILES; i++)
		if (self->saved[i][0])
			write_file(fi_attrs[i].path, self->saved[i]);
}

FIXTURE_SETUP(fi)
{
	unsigned int i;

	memset(self->saved, 0, sizeof(self->saved));
	self->nth = -1;
	self->fd = pto_test_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", pto_test_device_path(),
				      strerror(errno));
	ASSERT_EQ(0, pto_test_memory(self->fd, &self->mem0));
	self->base = self->mem0;
	self->have_fi = !access(FAILSLAB "/probability", W_OK) &&
			!access(FAILPAGE "/probability", W_OK) &&
			!access("/proc/thread-self/fail-nth", W_OK);
	if (!self->have_fi)
		SKIP(return, "no failslab/fail_page_alloc/fail-nth (CONFIG_FAULT_INJECTION_DEBUG_FS, root)");
	for (i = 0; i < FI_NFILES; i++) {
		char *nl;

		ASSERT_LT(0, read_file(fi_attrs[i].path, self->saved[i],
				       sizeof(self->saved[i]))) TH_LOG("%s", fi_attrs[i].path);
		nl = strchr(self->saved[i], '\n');
		if (nl)
			*nl = '\0';
	}
	for (i = 0; i < FI_NFILES; i++)
		ASSERT_EQ(0, write_file(fi_attrs[i].path, fi_attrs[i].value))
			TH_LOG("fault-injection attribute %u", i);
	self->nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->nth);
}

/* In the parent: restored even when the test dies (its fds went with it). */
FIXTURE_TEARDOWN_PARENT(fi)
{
	if (self->have_fi)
		fi_restore(self);
}

/* Arm: the @n-th fault-injection point this thread reaches fails. */
static int nth_arm(int nth, unsigned int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%u", n);

	return pwrite(nth, b, len, 0) == len ? 0 : -errno;
}

/* Disarm; returns what was left: 0 when the fault was injected. */
static long nth_disarm(int nth)
{
	char b[16];
	ssize_t n = pread(nth, b, sizeof(b) - 1, 0);

	if (pwrite(nth, "0", 1, 0) != 1 || n <= 0)
		return -1;
	b[n] = '\0';
	return strtol(b, NULL, 10);
}

/* What one walk over the allocation points of a call saw. */
struct fi_walk {
	const char *name;
	unsigned int points;	/* allocation points the call reached */
	unsigned int errors;	/* injected failures reported (-ENOMEM, -ENOSPC) */
	unsigned int absorbed;	/* injected failures it recovered from */
	int bad_ret;		/* an error that was not -ENOMEM, or 0 */
	unsigned int bad_n;
};

static void fi_report(struct __test_metadata *_metadata,
		      const struct fi_walk *w)
{
	TH_LOG("%s: %u allocation points, %u failed the call with -ENOMEM/-ENOSPC, %u absorbed",
	       w->name, w->points, w->errors, w->absorbed);
	printf("# faults: %s: %u injected, %u -ENOMEM/-ENOSPC, %u absorbed\n", w->name,
	       w->points, w->errors, w->absorbed);
	EXPECT_EQ(0, w->bad_ret) TH_LOG("%s: fail-nth %u gave %s", w->name,
					w->bad_n, strerror(-w->bad_ret));
	EXPECT_GT((unsigned int)FI_MAX_N, w->points) TH_LOG("%s never went through", w->name);
}

/* The context under test holds what it held before the walk (self->base). */
#define EXPECT_CONTEXT_BASELINE(what, n) do { \
	struct drm_pto_npu_memory_info __m; \
	ASSERT_EQ(0, pto_test_memory(self->fd, &__m)); \
	EXPECT_EQ(self->base.context_bos, __m.context_bos) \
		TH_LOG("%s, fail-nth %u: bos %llu, before %llu", (what), (n), \
		       (unsigned long long)__m.context_bos, \
		       (unsigned long long)self->base.context_bos); \
	EXPECT_EQ(self->base.context_bytes, __m.context_bytes); \
} while (0)

/*
 * Walks one call: @prep (not under injection), then @op (one syscall,
 * nothing else between arm and disarm) with the Nth allocation failing,
 * N = 1.. until the call reaches no Nth. After each try @undo frees what
 * @prep and @op made (ret is @op's result), then the context must be back
 * at its baseline.
 */
#define FI_WALK(w, prep, op, undo) do { \
	unsigned int __n; \
	for (__n = 1; __n < FI_MAX_N; __n++) { \
		long __left; \
		int ret; \
		prep; \
		ASSERT_EQ(0, nth_arm(self->nth, __n)); \
		ret = (op); \
		__left = nth_disarm(self->nth); \
		ASSERT_LE(0, __left); \
		if (__left > 0) { \
			EXPECT_EQ(0, ret) TH_LOG("%s without a fault: %s", \
						 (w).name, strerror(-ret)); \
			(w).points = __n - 1; \
			undo; \
			break; \
		} \
		if (!ret) { \
			(w).absorbed++; \
		} else if (ret == -ENOMEM || ret == -ENOSPC) { \
			(w).errors++; \
		} else if (!(w).bad_ret) { \
			(w).bad_ret = ret; \
			(w).bad_n = __n; \
		} \
		undo; \
		EXPECT_CONTEXT_BASELINE((w).name, __n); \
	} \
	if (__n == FI_MAX_N) \
		(w).points = FI_MAX_N; \
} while (0)

TEST_F_TIMEOUT(fi, open_and_bo_ioctls_fail_cleanly, 300)
{
	struct fi_walk wo = { .name = "open" }, wc = { .name = "BO_CREATE" };
	struct fi_walk wi = { .name = "BO_INFO" }, wq = { .name = "QUERY" };
	struct fi_walk wg = { .name = "GEM_CLOSE" };
	struct drm_pto_npu_bo_create c;
	struct drm_pto_npu_bo_info bi;
	struct drm_pto_npu_memory_info mem;
	struct drm_gem_close gc;
	uint32_t h;
	int fd2;

	FI_WALK(wo, (void)0, (fd2 = open(pto_test_device_path(), O_RDWR | O_CLOEXEC)) < 0 ?
		    -errno : 0,
		do { if (fd2 >= 0) close(fd2); } while (0));
	fi_report(_metadata, &wo);

	FI_WALK(wc, (void)0, (c = (struct drm_pto_npu_bo_create){ .size = 65536 },
		     pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_BO_CREATE, &c)),
		do { if (!ret) pto_test_gem_close(self->fd, c.handle); } while (0));
	fi_report(_metadata, &wc);

	ASSERT_EQ(0, pto_test_bo_create(self->fd, 65536, &h, NULL));
	ASSERT_EQ(0, pto_test_memory(self->fd, &self->base));
	FI_WALK(wi, (void)0, (bi = (struct drm_pto_npu_bo_info){ .handle = h },
		     pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_BO_INFO, &bi)), (void)0);
	fi_report(_metadata, &wi);
	ASSERT_EQ(0, pto_test_gem_close(self->fd, h));
	self->base = self->mem0;

	FI_WALK(wq, (void)0, pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUERY,
			   &((struct drm_pto_npu_query){
				.type = DRM_PTO_NPU_QUERY_MEMORY,
				.size = sizeof(mem), .data = (uintptr_t)&mem })),
		(void)0);
	fi_report(_metadata, &wq);

	/* GEM_CLOSE: a failure may not leave the buffer half closed. */
	FI_WALK(wg, ASSERT_EQ(0, pto_test_bo_create(self->fd, 4096, &h, NULL)),
		(gc = (struct drm_gem_close){ .handle = h },
		 pto_test_ioctl(self->fd, DRM_IOCTL_GEM_CLOSE, &gc)),
		do { if (ret) pto_test_gem_close(self->fd, h); } while (0));
	fi_report(_metadata, &wg);

	EXPECT_EQ(0, run_a_graph());
}

static sigjmp_buf fault_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* Writes every page of @p; -EFAULT if that raised SIGBUS or SIGSEGV. */
static int touch_pages(volatile uint8_t *p, size_t len, size_t page)
{
	size_t i;

	if (sigsetjmp(fault_jmp, 1))
		return -EFAULT;
	for (i = 0; i < len; i += page)
		p[i] = (uint8_t)i;
	return 0;
}

TEST_F_TIMEOUT(fi, mmap_and_fault_in_fail_cleanly, 300)
{
	struct fi_walk wm = { .name = "mmap" }, wf = { .name = "fault-in" };
	struct sigaction sa = { .sa_handler = on_sigbus }, old_bus, old_segv;
	size_t page = pto_test_page_size(), len = 8 * page;
	uint64_t off;
	uint32_t h;
	void *p = MAP_FAILED;
	int bad_fault = 0;

	/* mmap() pins the buffer's pages: page allocations fail there. */
	ASSERT_EQ(0, pto_test_bo_create(self->fd, len, &h, NULL));
	ASSERT_EQ(0, pto_test_bo_info(self->fd, h, NULL, &off));
	ASSERT_EQ(0, pto_test_memory(self->fd, &self->base));
	FI_WALK(wm, (void)0, (p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			      self->fd, (off_t)off)) == MAP_FAILED ? -errno : 0,
		do { if (p != MAP_FAILED) munmap(p, len); p = MAP_FAILED; } while (0));
	fi_report(_metadata, &wm);
	ASSERT_EQ(0, pto_test_gem_close(self->fd, h));
	self->base = self->mem0;

	/*
	 * First touches: page tables. A failed fault is retried by the
	 * kernel or becomes a signal; either way the data is right after.
	 */
	ASSERT_EQ(0, sigaction(SIGBUS, &sa, &old_bus));
	ASSERT_EQ(0, sigaction(SIGSEGV, &sa, &old_segv));
	FI_WALK(wf, do {
			ASSERT_EQ(0, pto_test_bo_create(self->fd, len, &h, NULL));
			p = pto_test_bo_mmap(self->fd, h, NULL);
			ASSERT_NE(MAP_FAILED, p);
		} while (0),
		touch_pages(p, len, page),
		do {
			if (ret == -EFAULT)
				bad_fault++;
			if (p != MAP_FAILED) {
				/* Not injected now: every page is there. */
				EXPECT_EQ(0, touch_pages(p, len, page));
				munmap(p, len);
			}
			p = MAP_FAILED;
			pto_test_gem_close(self->fd, h);
		} while (0));
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	/* A fault that could not be served is a signal, not an errno. */
	if (wf.bad_ret == -EFAULT)
		wf.bad_ret = 0;
	TH_LOG("fault-in: %d faults ended in a signal", bad_fault);
	fi_report(_metadata, &wf);

	EXPECT_EQ(0, run_a_graph());
}

/* A kernel with tiles, tensor and scalar arguments: every allocation of KERNEL_CREATE. */
static void tile_program(struct pto_insn *p, uint32_t *n, struct pto_tile_decl *t)
{
	memset(t, 0, sizeof(*t));
	t->dtype = PTO_ISA_I32;
	t->buf = PTO_BUF_UB;
	t->rows = 8;
	t->cols = 16;
	*n = 0;
	p[(*n)++] = (struct pto_insn){ .op = PTO_OP_ARG, .dst = 0, .imm = 0 };
	p[(*n)++] = (struct pto_insn){ .op = PTO_OP_LDI, .dst = 1, .imm = 0 };
	p[(*n)++] = (struct pto_insn){ .op = PTO_OP_TLOAD, .dst = 0, .a = 1, .b = 1, .imm = 0 };
	p[(*n)++] = (struct pto_insn){ .op = PTO_OP_TSTORE, .dst = 0, .a = 1, .b = 1, .imm = 1 };
	p[(*n)++] = (struct pto_insn){ .op = PTO_OP_END };
}

TEST_F_TIMEOUT(fi, kernel_and_queue_ioctls_fail_cleanly, 300)
{
	struct fi_walk wk = { .name = "KERNEL_CREATE" }, wd = { .name = "KERNEL_DESTROY" };
	struct fi_walk wq = { .name = "QUEUE_CREATE" }, wx = { .name = "QUEUE_DESTROY" };
	struct drm_pto_npu_kernel_create kc;
	struct drm_pto_npu_queue_create qc;
	struct pto_insn prog[8];
	struct pto_tile_decl tile;
	char log[256];
	uint32_t n;

	tile_program(prog, &n, &tile);
	kc = (struct drm_pto_npu_kernel_create){
		.insns = (uintptr_t)prog, .num_insns = n,
		.tiles = (uintptr_t)&tile, .num_tiles = 1,
		.log = (uintptr_t)log, .log_size = sizeof(log),
		.core_type = PTO_CORE_AIV,
	};
	ASSERT_EQ(0, pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &kc))
		TH_LOG("verifier: %s (code %u insn %u)", log, kc.error_code,
		       kc.error_insn);
	ASSERT_EQ(0, pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY,
				    &((struct drm_pto_npu_kernel_destroy){ .handle = kc.handle })));

	FI_WALK(wk, (void)0, (kc.handle = 0, kc.error_code = 0,
		     pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &kc)),
		do {
			if (!ret)
				pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY,
					       &((struct drm_pto_npu_kernel_destroy){ .handle = kc.handle }));
		} while (0));
	fi_report(_metadata, &wk);

	FI_WALK(wd, do {
			kc.handle = 0;
			ASSERT_EQ(0, pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &kc));
		} while (0),
		pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY,
			       &((struct drm_pto_npu_kernel_destroy){ .handle = kc.handle })),
		do {
			if (ret)
				pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY,
					       &((struct drm_pto_npu_kernel_destroy){ .handle = kc.handle }));
		} while (0));
	fi_report(_metadata, &wd);

	FI_WALK(wq, (void)0, (qc = (struct drm_pto_npu_queue_create){ .sq_slots = 64 },
		     pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &qc)),
		do {
			if (!ret) {
				pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY,
					       &((struct drm_pto_npu_queue_destroy){ .queue_id = qc.queue_id }));
				pto_test_gem_close(self->fd, qc.handle);
			}
		} while (0));
	fi_report(_metadata, &wq);

	FI_WALK(wx, do {
			qc = (struct drm_pto_npu_queue_create){ .sq_slots = 64 };
			ASSERT_EQ(0, pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &qc));
			ASSERT_EQ(0, pto_test_gem_close(self->fd, qc.handle));
		} while (0),
		pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY,
			       &((struct drm_pto_npu_queue_destroy){ .queue_id = qc.queue_id })),
		do {
			if (ret)
				pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY,
					       &((struct drm_pto_npu_queue_destroy){ .queue_id = qc.queue_id }));
		} while (0));
	fi_report(_metadata, &wx);

	EXPECT_EQ(0, run_a_graph());
}

/* A raw queue on the context under test. */
struct rq {
	struct drm_pto_npu_queue_create qc;
	uint8_t *map;
	struct drm_pto_npu_ring_header *hdr;
	uint32_t cq_head;
};

static int rq_open(int fd, struct rq *q, uint32_t sq, uint32_t cq)
{
	memset(q, 0, sizeof(*q));
	q->qc.sq_slots = sq;
	q->qc.cq_entries = cq;
	if (pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_CREATE, &q->qc))
		return -errno;
	q->map = mmap(NULL, q->qc.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, (off_t)q->qc.mmap_offset);
	if (q->map == MAP_FAILED)
		return -errno;
	q->hdr = (void *)q->map;
	/* Fault the whole ring in now, not while a fault is armed. */
	memset(q->map + q->qc.sq_offset, 0, q->qc.ring_size - q->qc.sq_offset);
	return 0;
}

static void rq_close(int fd, struct rq *q)
{
	struct drm_pto_npu_queue_wait w = { .queue_id = q->qc.queue_id };
	int i;

	/* Consume everything, held completions too: a busy queue stays. */
	for (i = 0; i < 1000; i++) {
		__atomic_store_n(&q->hdr->cq_head,
				 __atomic_load_n(&q->hdr->cq_tail, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
		w.timeout_ns = 0;
		pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w);
		if (!w.inflight && !__atomic_load_n(&q->hdr->cq_held, __ATOMIC_ACQUIRE) &&
		    __atomic_load_n(&q->hdr->cq_tail, __ATOMIC_ACQUIRE) ==
		    __atomic_load_n(&q->hdr->cq_head, __ATOMIC_ACQUIRE))
			break;
		usleep(1000);
	}
	munmap(q->map, q->qc.ring_size);
	pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_DESTROY,
		       &((struct drm_pto_npu_queue_destroy){ .queue_id = q->qc.queue_id }));
	pto_test_gem_close(fd, q->qc.handle);
}

static void rq_push(struct rq *q, const void *entry, size_t size)
{
	uint32_t tail = q->hdr->sq_tail, i;

	for (i = 0; i < size / DRM_PTO_NPU_SQ_SLOT_SIZE; i++)
		memcpy(q->map + q->qc.sq_offset +
		       ((tail + i) & (q->qc.sq_slots - 1)) * DRM_PTO_NPU_SQ_SLOT_SIZE,
		       (const uint8_t *)entry + i * DRM_PTO_NPU_SQ_SLOT_SIZE,
		       DRM_PTO_NPU_SQ_SLOT_SIZE);
	__atomic_store_n(&q->hdr->sq_tail, tail + i, __ATOMIC_RELEASE);
}

static int rq_doorbell(int fd, struct rq *q, uint32_t syncobj, uint64_t point,
		       struct drm_pto_npu_queue_submit *s)
{
	*s = (struct drm_pto_npu_queue_submit){
		.queue_id = q->qc.queue_id, .syncobj = syncobj,
		.syncobj_point = point,
	};
	return pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT, s);
}

/* Reads LAST CQEs into @last (indexed by task_id - @first) until @n seen. */
static int rq_reap(int fd, struct rq *q, uint64_t first, unsigned int n,
		   int32_t *last, int64_t timeout_ns)
{
	int64_t deadline = pto_test_now_ns() + timeout_ns;
	unsigned int seen = 0;

	while (seen < n) {
		uint32_t tail = __atomic_load_n(&q->hdr->cq_tail, __ATOMIC_ACQUIRE);
		struct drm_pto_npu_queue_wait w = {
			.queue_id = q->qc.queue_id, .timeout_ns = deadline,
		};
		int ret;

		while (q->cq_head != tail) {
			const struct drm_pto_npu_cqe *c = (const void *)(q->map +
				q->qc.cq_offset + (q->cq_head & (q->qc.cq_entries - 1)) *
				sizeof(*c));

			if ((c->flags & DRM_PTO_NPU_CQE_F_LAST) &&
			    c->task_id >= first && c->task_id < first + n) {
				last[c->task_id - first] = c->status;
				seen++;
			}
			q->cq_head++;
		}
		__atomic_store_n(&q->hdr->cq_head, q->cq_head, __ATOMIC_RELEASE);
		if (seen >= n)
			break;
		ret = pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT, &w);
		if (ret == -ETIME && pto_test_now_ns() >= deadline)
			return -ETIME;
		if (ret && ret != -ETIME && ret != -EINTR)
			return ret;
	}
	return 0;
}

/* out[0, ARG0] = in[0, ARG0] + ARG1 (int64). */
static uint32_t add_kernel(int fd)
{
	struct pto_insn p[7];
	struct drm_pto_npu_kernel_create kc = { 0 };
	int n = 0;

	p[n++] = (struct pto_insn){ .op = PTO_OP_ARG, .dst = 0, .imm = 0 };
	p[n++] = (struct pto_insn){ .op = PTO_OP_ARG, .dst = 1, .imm = 1 };
	p[n++] = (struct pto_insn){ .op = PTO_OP_LDI, .dst = 2, .imm = 0 };
	p[n++] = (struct pto_insn){ .op = PTO_OP_GLD, .dst = 3, .a = 2, .b = 0, .imm = 0 };
	p[n] = (struct pto_insn){ .op = PTO_OP_ALU, .mode = PTO_ALU_ADD, .dst = 3, .a = 3, .b = 1 };
	n++;
	p[n++] = (struct pto_insn){ .op = PTO_OP_GST, .a = 2, .b = 0, .c = 3, .imm = 1 };
	p[n++] = (struct pto_insn){ .op = PTO_OP_END };
	kc.insns = (uintptr_t)p;
	kc.num_insns = n;
	kc.core_type = PTO_CORE_AIV;
	return pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &kc) ? 0 : kc.handle;
}

#define SUBMIT_TASKS 3
#define WAIT_TASKS 40

/* Just END. */
static uint32_t end_kernel(int fd)
{
	struct pto_insn p = { .op = PTO_OP_END };
	struct drm_pto_npu_kernel_create kc = {
		.insns = (uintptr_t)&p, .num_insns = 1, .core_type = PTO_CORE_AIV,
	};

	return pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &kc) ? 0 : kc.handle;
}

TEST_F_TIMEOUT(fi, submit_with_deps_tensors_syncobj_fails_cleanly, 600)
{
	struct fi_walk ws = { .name = "QUEUE_SUBMIT" }, ww = { .name = "QUEUE_WAIT" };
	struct drm_pto_npu_queue_submit s;
	unsigned int nomem = 0, dep_failed = 0, partial = 0, n;
	uint32_t kernel, kernel_end, in_h = 0, out_h = 0, syncobj;
	uint64_t point = 0;
	int64_t *in = MAP_FAILED, *out = MAP_FAILED;
	struct rq q;

	/* An END for every kernel, a wait on an empty queue, etc. */
	ASSERT_EQ(0, rq_open(self->fd, &q, 64, 256));
	kernel = add_kernel(self->fd);
	ASSERT_NE(0u, kernel);
	kernel_end = end_kernel(self->fd);
	ASSERT_NE(0u, kernel_end);
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	ASSERT_EQ(0, pto_test_memory(self->fd, &self->base));

	for (n = 1; n < FI_MAX_N; n++) {
		int32_t st[SUBMIT_TASKS];
		uint64_t first;
		long left;
		int ret, i;

		/* Fresh buffers: their first kernel mapping happens in the doorbell. */
		ASSERT_EQ(0, pto_test_bo_create(self->fd, 4096, &in_h, NULL));
		ASSERT_EQ(0, pto_test_bo_create(self->fd, 4096, &out_h, NULL));
		in = pto_test_bo_mmap(self->fd, in_h, NULL);
		ASSERT_NE(MAP_FAILED, in);
		for (i = 0; i < OUT_COLS; i++)
			in[i] = 1000 * i;
		for (i = 0; i < SUBMIT_TASKS; i++) {
			struct drm_pto_npu_tensor_arg t[2] = {
				pto_test_targ(in_h, PTO_ISA_I64, 0, 1, OUT_COLS),
				pto_test_targ(out_h, PTO_ISA_I64, 0, 1, OUT_COLS),
			};
			int64_t sc[2] = { i, 7 + i }, deps[2] = { -1, -2 };
			struct pto_test_sqe e;
			size_t size = pto_test_sqe_init(&e, kernel, 0, 1 + i, t, 2,
							 sc, 2, deps, i);

			e.hdr.user_data = i;
			rq_push(&q, &e, size);
		}
		point++;
		ASSERT_EQ(0, nth_arm(self->nth, n));
		ret = rq_doorbell(self->fd, &q, syncobj, point, &s);
		left = nth_disarm(self->nth);
		ASSERT_LE(0, left);
		first = s.first_task_id;
		if (ret) {
			if (ret == -ENOMEM)
				ws.errors++;
			else if (!ws.bad_ret)
				ws.bad_ret = ret, ws.bad_n = n;
			/* Nothing taken: the entries wait in the ring. */
			EXPECT_NE(q.hdr->sq_head, q.hdr->sq_tail);
		} else if (left == 0) {
			ws.absorbed++;
		}
		if (!ret && s.consumed < SUBMIT_TASKS)
			partial++;
		/* The rest, without faults: every entry taken once. */
		while (q.hdr->sq_head != q.hdr->sq_tail) {
			struct drm_pto_npu_queue_submit s2;

			ASSERT_EQ(0, rq_doorbell(self->fd, &q, 0, 0, &s2));
			if (ret) {
				first = s2.first_task_id;
				ret = 0;
			}
		}
		memset(st, 0xff, sizeof(st));
		ASSERT_EQ(0, rq_reap(self->fd, &q, first, SUBMIT_TASKS, st,
				     RUN_TIMEOUT_NS));
		out = pto_test_bo_mmap(self->fd, out_h, NULL);
		ASSERT_NE(MAP_FAILED, out);
		/* Each task ran, or failed to map a tensor, or depends on one that did. */
		for (i = 0; i < SUBMIT_TASKS; i++) {
			if (st[i] == DRM_PTO_NPU_STATUS_OK) {
				EXPECT_EQ(1000 * i + 7 + i, out[i]);
			} else if (st[i] == DRM_PTO_NPU_STATUS_NOMEM && left == 0) {
				nomem++;
			} else if (st[i] == DRM_PTO_NPU_STATUS_DEP_FAILED && left == 0) {
				dep_failed++;
			} else {
				EXPECT_EQ(DRM_PTO_NPU_STATUS_OK, st[i])
					TH_LOG("fail-nth %u: task %d status %d", n, i, st[i]);
			}
		}
		if (left > 0) {
			/* Not injected: the whole batch ran and signalled. */
			EXPECT_EQ(0, drmSyncobjTimelineWait(self->fd, &syncobj, &point, 1,
							    pto_test_now_ns() + RUN_TIMEOUT_NS,
							    0, NULL));
			ws.points = n - 1;
		}
		munmap(out, 4096);
		munmap(in, 4096);
		EXPECT_EQ(0, pto_test_gem_close(self->fd, in_h));
		EXPECT_EQ(0, pto_test_gem_close(self->fd, out_h));
		EXPECT_CONTEXT_BASELINE("QUEUE_SUBMIT", n);
		if (left > 0)
			break;
	}
	if (n == FI_MAX_N)
		ws.points = n;
	TH_LOG("QUEUE_SUBMIT: %u tasks STATUS_NOMEM, %u DEP_FAILED on them, %u partial doorbells",
	       nomem, dep_failed, partial);
	printf("# faults: QUEUE_SUBMIT: %u tasks completed STATUS_NOMEM, %u DEP_FAILED\n",
	       nomem, dep_failed);
	fi_report(_metadata, &ws);

	/* QUEUE_WAIT, with completions held for lack of CQ space. */
	rq_close(self->fd, &q);
	ASSERT_EQ(0, rq_open(self->fd, &q, 64, 4));
	for (n = 0; n < WAIT_TASKS; n++) {
		struct pto_test_sqe e;

		rq_push(&q, &e, pto_test_sqe_init(&e, kernel_end, 0, 1, NULL, 0,
						  NULL, 0, NULL, 0));
	}
	point = 1;
	ASSERT_EQ(0, drmSyncobjDestroy(self->fd, syncobj));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &syncobj));
	ASSERT_EQ(0, rq_doorbell(self->fd, &q, syncobj, 0, &s));
	ASSERT_EQ((uint32_t)WAIT_TASKS, s.consumed);
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &syncobj, 1,
				    pto_test_now_ns() + RUN_TIMEOUT_NS, 0, NULL));
	EXPECT_LT(0u, q.hdr->cq_held);
	ASSERT_EQ(0, pto_test_memory(self->fd, &self->base));
	FI_WALK(ww, __atomic_store_n(&q.hdr->cq_head,
				    __atomic_load_n(&q.hdr->cq_tail, __ATOMIC_ACQUIRE),
				    __ATOMIC_RELEASE),
		pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUEUE_WAIT,
			       &((struct drm_pto_npu_queue_wait){ .queue_id = q.qc.queue_id })),
		(void)0);
	fi_report(_metadata, &ww);
	TH_LOG("QUEUE_WAIT: %u completions still held", q.hdr->cq_held);

	drmSyncobjDestroy(self->fd, syncobj);
	pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY,
		       &((struct drm_pto_npu_kernel_destroy){ .handle = kernel }));
	pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY,
		       &((struct drm_pto_npu_kernel_destroy){ .handle = kernel_end }));
	/* Whatever is still held goes with the queue. */
	rq_close(self->fd, &q);
	self->base = self->mem0;
	EXPECT_CONTEXT_BASELINE("after submit", 0u);
	EXPECT_EQ(0, run_a_graph());
}

/*
 * Random failures under a whole workload: failslab and fail_page_alloc
 * with task-filter, only this thread marked make-it-fail, a tenth of its
 * allocations failing. Whatever fails must fail cleanly; at the end
 * everything is freed and the device works.
 */
TEST_F_TIMEOUT(fi, random_failures_under_a_workload, 600)
{
	struct drm_pto_npu_memory_info m;
	unsigned int rounds = 0, ok_rounds = 0, failed_steps = 0, r;
	int64_t end = pto_test_now_ns() + PTO_TEST_SEC(30);

	ASSERT_EQ(0, write_file(FAILSLAB "/probability", "2"));
	ASSERT_EQ(0, write_file(FAILPAGE "/probability", "2"));
	for (r = 0; r < 200 && pto_test_now_ns() < end; r++) {
		struct pto_tensor *out = NULL, *args[1];
		struct pto_device *dev = NULL;
		struct pto_kernel *k = NULL;
		struct pto_queue *q = NULL;
		struct pto_graph *g = NULL;
		int i, ret;

		rounds++;
		ASSERT_EQ(0, write_file("/proc/thread-self/make-it-fail", "1"));
		ret = pto_test_dev_open(&dev);
		if (!ret)
			ret = pto_queue_create(dev, 64, 0, &q);
		if (!ret)
			ret = pto_test_tensor2d(dev, PTO_DTYPE_I64, 1, 16, &out);
		if (!ret) {
			k = mark_kernel(dev);
			ret = k ? 0 : -ENOMEM;
		}
		if (!ret)
			ret = pto_graph_new(dev, &g);
		args[0] = out;
		for (i = 0; !ret && i < 16; i++) {
			int64_t sc[3] = { i, 1000 + i, 1 }, dep = i - 1;

			ret = pto_graph_add_task(g, &(struct pto_task_desc){
				.kernel_aiv = k, .block_num = 1 + i % 3,
				.tensors = args, .num_tensors = 1, .scalars = sc,
				.num_scalars = 3, .deps = &dep, .num_deps = i % 2 });
			ret = ret < 0 ? ret : 0;
		}
		if (!ret)
			ret = pto_graph_run(g, q, RUN_TIMEOUT_NS);
		/* The write itself may fail while the thread is marked. */
		for (i = 0; i < 1000 && write_file("/proc/thread-self/make-it-fail", "0"); i++)
			;
		ASSERT_GT(1000, i);
		if (!ret) {
			int64_t *po = pto_tensor_data(out);

			ok_rounds++;
			for (i = 0; i < 16; i++)
				EXPECT_EQ(1000 + i, po[i]);
		} else {
			/* A failed run: its tasks failed with a status, none hangs. */
			EXPECT_TRUE(ret == -ENOMEM || ret == -ENOSPC || ret == -EIO ||
				    ret == -EAGAIN || ret == -EINTR)
				TH_LOG("round %u: %s", r, strerror(-ret));
			if (ret == -EIO) {
				char buf[256];
				int idx = pto_graph_first_error(g, buf, sizeof(buf));

				EXPECT_EQ(PTO_STATUS_NOMEM,
					  pto_graph_task_status(g, idx, NULL, NULL))
					TH_LOG("%s", buf);
			}
			failed_steps++;
		}
		pto_graph_free(g);
		pto_kernel_free(k);
		pto_tensor_free(out);
		/* -EBUSY after a failed run, until its tasks complete. */
		for (i = 0; q && pto_queue_destroy(q) == -EBUSY && i < 600; i++) {
			struct pto_cqe cq[64];

			while (pto_queue_reap(q, cq, 64) > 0)
				;
			pto_queue_wait(q, pto_test_now_ns() + PTO_TEST_MSEC(100));
		}
		EXPECT_GT(600, i) TH_LOG("round %u: the queue stays busy", r);
		if (dev)
			pto_device_close(dev);
	}
	ASSERT_EQ(0, write_file(FAILSLAB "/probability", "0"));
	ASSERT_EQ(0, write_file(FAILPAGE "/probability", "0"));
	TH_LOG("%u rounds, %u ran, %u failed cleanly", rounds, ok_rounds, failed_steps);
	printf("# faults: random 2%% failures: %u rounds, %u ran, %u failed cleanly\n",
	       rounds, ok_rounds, failed_steps);
	EXPECT_LT(0u, failed_steps);
	ASSERT_EQ(0, pto_test_memory(self->fd, &m));
	EXPECT_EQ(self->mem0.device_bos, m.device_bos);
	EXPECT_EQ(self->mem0.device_bytes, m.device_bytes);
	EXPECT_EQ(0, run_a_graph());
}

/* ------------------------------------------------------------------ faults mid-graph */

FIXTURE(dev)
{
	struct pto_device *dev;
	struct pto_queue *q;
	int mon;
	long old_timeout;
};

FIXTURE_SETUP(dev)
{
	self->old_timeout = pto_test_param_read("timeout_ms");
	ASSERT_LT(0, self->old_timeout);
	self->mon = pto_test_open();
	ASSERT_LE(0, self->mon);
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_queue_create(self->dev, 0, 0, &self->q));
}

/* In the parent: restored even when the test dies. */
FIXTURE_TEARDOWN_PARENT(dev)
{
	if (self->old_timeout > 0)
		pto_test_param_write("timeout_ms", self->old_timeout);
	dbg_write("inject_hang", "0");
}

/*
 * A graph of two chains and some loose tasks; task 7 (chain A, SPMD)
 * writes outside its tensor. Chain A after it fails with DEP_FAILED
 * (including a task that also depends on chain B), chain B and the loose
 * tasks complete with their results.
 */
TEST_F(dev, gm_fault_mid_graph_fails_consumers_only)
{
	struct drm_pto_npu_counters c0, c1;
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k;
	struct pto_graph *g;
	int64_t *po;
	char err[256];
	int i;

	ASSERT_EQ(0, pto_test_counters(self->mon, &c0));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, OUT_COLS, &out));
	args[0] = out;
	po = pto_tensor_data(out);
	k = mark_kernel(self->dev);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	/* 0..4 chain B, 5..9 chain A (7 faults; 9 also needs 3), 10..13 loose. */
	for (i = 0; i < 14; i++) {
		int64_t col = i == 7 ? OUT_COLS + 5 : i;
		int64_t sc[3] = { col, 100 + i, 20 }, deps[2];
		uint32_t nd = 0;

		if ((i > 0 && i < 5) || (i > 5 && i < 10))
			deps[nd++] = i - 1;
		if (i == 9)
			deps[nd++] = 3;
		ASSERT_EQ(i, pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = i == 7 ? 4 : 1 + i % 2,
			.tensors = args, .num_tensors = 1, .scalars = sc,
			.num_scalars = 3, .deps = deps, .num_deps = nd }))
			TH_LOG("%s", pto_graph_error(g));
	}
	ASSERT_EQ(-EIO, pto_graph_run(g, self->q, RUN_TIMEOUT_NS));
	EXPECT_EQ(7, pto_graph_first_error(g, err, sizeof(err)));
	TH_LOG("%s", err);
	for (i = 0; i < 14; i++) {
		uint64_t detail = 0;
		int st = pto_graph_task_status(g, i, NULL, &detail);

		if (i == 7) {
			EXPECT_EQ(PTO_STATUS_GM_FAULT, st);
			EXPECT_EQ(0u, PTO_GM_FAULT_TENSOR(detail));
			EXPECT_EQ((uint64_t)OUT_COLS + 5, PTO_GM_FAULT_ELEMENT(detail));
		} else if (i > 7 && i < 10) {
			EXPECT_EQ(PTO_STATUS_DEP_FAILED, st) TH_LOG("task %d", i);
			EXPECT_EQ(0, po[i]);
		} else {
			EXPECT_EQ(PTO_STATUS_OK, st) TH_LOG("task %d", i);
			EXPECT_EQ(100 + i, po[i]);
		}
	}
	ASSERT_EQ(0, pto_test_counters(self->mon, &c1));
	EXPECT_LE(c0.faults + 1, c1.faults);
	pto_graph_free(g);
	pto_kernel_free(k);
	pto_tensor_free(out);
	EXPECT_EQ(0, run_a_graph());
}

/*
 * out[0, block] = 1 from every block; block arg0 writes out[0, OUT_COLS +
 * block] instead, outside the tensor. Nine scalar instructions: a block
 * that has started is never stopped by a cancel (checked every 256).
 */
static struct pto_kernel *block_fault_kernel(struct pto_device *dev,
					     char *err, size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_arg(kb, 1, 0);
	pto_kb_cmp(kb, PTO_CMP_EQ, 2, 0, 1);
	pto_kb_alui(kb, PTO_ALU_MUL, 2, 2, OUT_COLS);
	pto_kb_alu(kb, PTO_ALU_ADD, 2, 2, 0);
	pto_kb_ldi(kb, 3, 0);
	pto_kb_ldi(kb, 4, 1);
	pto_kb_gst(kb, 0, 3, 2, 4);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

/*
 * Two tasks of two blocks, one block of each writing outside its tensor.
 * Each CQE carries its own block's status, the failing block's is posted
 * last (LAST, the task's status). Either block faulting: it reads
 * GM_FAULT and is LAST; the other reads OK (CANCELLED if the fault came
 * before it ended), never GM_FAULT.
 */
TEST_F(dev, faulting_block_fails_alone_in_block_records)
{
	struct pto_tensor *out, *args[1];
	const struct pto_block_info *b;
	struct pto_kernel *k;
	struct pto_graph *g;
	unsigned int n, t;
	char err[256];

	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, OUT_COLS, &out));
	args[0] = out;
	k = block_fault_kernel(self->dev, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("%s", err);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	for (t = 0; t < 2; t++) {
		int64_t faulty = 1 - t;

		ASSERT_EQ((int)t, pto_graph_add_task(g, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 2, .tensors = args,
			.num_tensors = 1, .scalars = &faulty, .num_scalars = 1 }))
			TH_LOG("%s", pto_graph_error(g));
	}
	ASSERT_EQ(-EIO, pto_graph_run(g, self->q, RUN_TIMEOUT_NS));
	for (t = 0; t < 2; t++) {
		unsigned int f = 1 - t, ok = t;
		int other;

		EXPECT_EQ(PTO_STATUS_GM_FAULT,
			  pto_graph_task_status(g, t, NULL, NULL));
		ASSERT_EQ(0, pto_graph_task_blocks(g, t, &b, &n));
		ASSERT_EQ(2u, n);
		TH_LOG("task %u: block 0 %s%s, block 1 %s%s", t,
		       pto_status_name(b[0].status),
		       b[0].flags & PTO_BLOCK_RAN ? "" : " (never ran)",
		       pto_status_name(b[1].status),
		       b[1].flags & PTO_BLOCK_RAN ? "" : " (never ran)");
		EXPECT_NE(0u, b[f].flags & PTO_BLOCK_LAST);
		EXPECT_EQ(0u, b[ok].flags & PTO_BLOCK_LAST);
		EXPECT_EQ(PTO_STATUS_GM_FAULT, b[f].status);
		EXPECT_EQ(0u, PTO_GM_FAULT_TENSOR(b[f].detail));
		EXPECT_EQ((uint64_t)OUT_COLS + f, PTO_GM_FAULT_ELEMENT(b[f].detail));
		/* The other block: its own end, never the fault it did not have. */
		other = b[ok].status == PTO_STATUS_CANCELLED ?
			PTO_STATUS_CANCELLED : PTO_STATUS_OK;
		if (!(b[ok].flags & PTO_BLOCK_RAN))
			other = PTO_STATUS_CANCELLED;
		EXPECT_EQ(other, b[ok].status)
			TH_LOG("task %u block %u: %s", t, ok,
			       pto_status_name(b[ok].status));
	}
	pto_graph_free(g);
	pto_kernel_free(k);
	pto_tensor_free(out);
	EXPECT_EQ(0, run_a_graph());
}

static long dbg_read_long(const char *name)
{
	char buf[64];
	int n = dbg_read(name, buf, sizeof(buf));

	return n <= 0 ? (n ? n : -EIO) : strtol(buf, NULL, 10);
}

/* The value of "@key: N" in debugfs file @name, or a negative errno. */
static long dbg_read_key(const char *name, const char *key)
{
	char buf[512], *p;
	int n = dbg_read(name, buf, sizeof(buf));

	if (n <= 0)
		return n ? n : -EIO;
	for (p = buf; p; p = strchr(p, '\n')) {
		p += *p == '\n';
		if (!strncmp(p, key, strlen(key)) && p[strlen(key)] == ':')
			return strtol(p + strlen(key) + 1, NULL, 10);
	}
	return -ENOENT;
}

/*
 * Spare tasks once every task taken has been freed: no context has one in
 * flight (5 s at most), then a moment for the worker that freed the last
 * to put it on the spares (it does so just after).
 */
static long settled_spares(void)
{
	char buf[4096];
	int i;

	for (i = 0; i < 500; i++) {
		int n = dbg_read("queues", buf, sizeof(buf));
		char *p = buf;
		bool busy = false;

		if (n <= 0)
			return n ? n : -EIO;
		while ((p = strstr(p, "inflight="))) {
			p += strlen("inflight=");
			busy |= *p != '0';
		}
		if (!busy)
			break;
		usleep(10000);
	}
	usleep(50000);
	return dbg_read_key("spares", "spares");
}

/*
 * The memory of freed small tasks is kept for reuse, up to "max" per
 * device (debugfs "spares"): more tasks than that in flight at once fill
 * the spares exactly when they retire, a doorbell takes one per task it
 * takes, and they come back when those retire.
 * A failed task's record is used up: its memory goes back to the slab.
 */
TEST_F_TIMEOUT(dev, spare_tasks_are_bounded_and_reused, 120)
{
	struct pto_tensor *out, *args[1], *ws[2];
	struct pto_kernel *k, *gate;
	struct pto_cqe cqe[64];
	int64_t fault_sc[3] = { 0, 1, 1 };
	struct pto_device_info info;
	struct pto_kb *kb;
	char err[256];
	long max, held;
	unsigned int i, n, got = 0;
	int64_t t0;
	uint32_t consumed = 0;
	int over;
	/*
	 * A coherent queue: under the sanitizer (make check) a task carries
	 * hazard records, so it no longer fits a small task's memory, and
	 * small tasks are what this is about. Its 1M-iteration tasks need a
	 * budget beyond the default.
	 */
	struct pto_queue_params qp = { .flags = PTO_QUEUE_COHERENT,
				       .work_budget = PTO_TEST_LONG_BUDGET };
	struct pto_queue *q;

	max = dbg_read_key("spares", "max");
	if (max < 0)
		SKIP(return, "no debugfs spares file (%ld)", max);
	ASSERT_LT(2, max);
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &qp, &q));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, OUT_COLS, &out));
	args[0] = out;
	k = mark_kernel(self->dev);
	ASSERT_NE(NULL, k);

	/*
	 * More small tasks in flight at once than there are spares: they fill
	 * up, and no further. (Tasks that retire while the doorbell still
	 * takes entries hand their memory straight back to it. So a blocker
	 * takes every AIV core first: its blocks wait at a SOFT syncall for
	 * block 0, which first waits at a second one (used_cores 2) whose
	 * other arrival is this process's, once every task is in. All are
	 * then in flight at once, whatever the host's speed.)
	 */
	ASSERT_EQ(0, pto_device_query_info(self->dev, &info));
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", 60000));
	ASSERT_EQ(0, pto_kb_new(self->dev, PTO_CORE_AIV, &kb));
	over = pto_kb_label_new(kb);
	pto_kb_ldi(kb, 12, info.aiv_cores);
	pto_kb_ldi(kb, 13, 2);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_jnz(kb, 0, over);
	pto_kb_syncall_soft(kb, 1, 13);
	pto_kb_label_bind(kb, over);
	pto_kb_syncall_soft(kb, 0, 12);
	pto_kb_end(kb);
	gate = pto_test_kb_finish(kb, err, sizeof(err));
	ASSERT_NE(NULL, gate) TH_LOG("%s", err);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 16, &ws[0]));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, 16, &ws[1]));
	ASSERT_EQ(0, pto_queue_push_task(q, &(struct pto_task_desc){
		.kernel_aiv = gate, .block_num = info.aiv_cores, .tensors = ws,
		.num_tensors = 2 }));
	ASSERT_EQ(0, pto_queue_doorbell(q, 0, 0, &consumed, NULL));
	ASSERT_EQ(1u, consumed);
	n = max + 8 > 2000 ? 2000 : (unsigned int)max + 8;
	for (i = 0; i < n; i++) {
		int64_t sc[3] = { i % OUT_COLS, i, 50 };

		ASSERT_EQ(0, pto_queue_push_task(q, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 3 }));
		if ((i + 1) % 256 == 0 || i + 1 == n)
			ASSERT_EQ(0, pto_queue_doorbell(q, 0, 0, &consumed, NULL));
	}
	/* Everything is in: block 0's partner arrives, then all meet. */
	__atomic_fetch_add((int32_t *)pto_tensor_data(ws[1]), 1, __ATOMIC_SEQ_CST);
	n += info.aiv_cores;
	for (got = 0; got < n;) {
		int r = pto_queue_reap(q, cqe, 64), j;

		ASSERT_LE(0, r);
		if (!r) {
			ASSERT_EQ(0, pto_queue_wait(q, pto_time_ns() + RUN_TIMEOUT_NS));
			continue;
		}
		for (j = 0; j < r; j++) {
			EXPECT_EQ(PTO_STATUS_OK, cqe[j].info.status);
		}
		got += r;
	}
	ASSERT_EQ(max, settled_spares());

	/*
	 * 4 long tasks: the doorbell takes 4 spares. (Tasks of the same shape
	 * as the first run's, which fit a spare: how many bytes a task takes
	 * depends on the kernel's configuration.)
	 */
	t0 = pto_time_ns();
	for (i = 0; i < 4; i++) {
		int64_t sc[3] = { i, 7, 1000 };

		ASSERT_EQ(0, pto_queue_push_task(q, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 3 }));
	}
	ASSERT_EQ(0, pto_queue_doorbell(q, 0, 0, &consumed, NULL));
	ASSERT_EQ(4u, consumed);
	held = dbg_read_key("spares", "spares");
	/*
	 * 1 million iterations each: a task that retired before the read
	 * (posted its CQE first) may have handed its spare back already.
	 */
	got = pto_queue_reap(q, cqe, 64);
	ASSERT_LE(0, (int)got);
	EXPECT_LE(max - 4, held);
	EXPECT_GE(max - 4 + (long)got, held);
	while (got < 4) {
		int r = pto_queue_reap(q, cqe, 64);

		ASSERT_LE(0, r);
		if (!r) {
			ASSERT_EQ(0, pto_queue_wait(q, pto_time_ns() + RUN_TIMEOUT_NS));
		}
		got += r;
	}
	TH_LOG("4 tasks of 1M iterations: %lld ms; spares after the doorbell %ld of %ld",
	       (long long)(pto_time_ns() - t0) / 1000000, held, max);
	EXPECT_EQ(max, settled_spares());

	/* A task that faults keeps its record: its memory is not a spare. */
	fault_sc[0] = OUT_COLS + 1;
	ASSERT_EQ(0, pto_queue_push_task(q, &(struct pto_task_desc){
		.kernel_aiv = k, .block_num = 1, .tensors = args,
		.num_tensors = 1, .scalars = fault_sc, .num_scalars = 3 }));
	ASSERT_EQ(0, pto_queue_doorbell(q, 0, 0, &consumed, NULL));
	for (got = 0; !got;) {
		int r = pto_queue_reap(q, cqe, 1);

		ASSERT_LE(0, r);
		if (!r) {
			ASSERT_EQ(0, pto_queue_wait(q, pto_time_ns() + RUN_TIMEOUT_NS));
		}
		got = r;
	}
	EXPECT_EQ(PTO_STATUS_GM_FAULT, cqe[0].info.status);
	EXPECT_EQ(max - 1, settled_spares());
	EXPECT_EQ(0, pto_queue_destroy(q));
	pto_kernel_free(gate);
	pto_kernel_free(k);
	pto_tensor_free(ws[1]);
	pto_tensor_free(ws[0]);
	pto_tensor_free(out);
	EXPECT_EQ(0, run_a_graph());
}

/*
 * inject_hang = 1: the next unit to start hangs. A task alone on the
 * device takes it; its consumers, submitted after, fail with DEP_FAILED,
 * the tasks beside it complete, the timeouts counter counts one.
 */
TEST_F_TIMEOUT(dev, hung_core_times_out_and_device_goes_on, 120)
{
	struct drm_pto_npu_counters c0, c1;
	struct pto_tensor *out, *args[1];
	struct pto_cqe cqes[64];
	const struct pto_cqe *c;
	struct pto_kernel *k;
	uint64_t hung, first;
	uint32_t consumed;
	int64_t start, waited, *po;
	int i, n;

	if (!dev_debugfs() || dbg_read_long("inject_hang") < 0)
		SKIP(return, "no debugfs inject_hang");
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", HANG_TIMEOUT_MS));
	ASSERT_EQ(0, pto_test_counters(self->mon, &c0));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, OUT_COLS, &out));
	args[0] = out;
	po = pto_tensor_data(out);
	k = mark_kernel(self->dev);
	ASSERT_NE(NULL, k);

	ASSERT_EQ(0, dbg_write("inject_hang", "1"));
	EXPECT_EQ(1, dbg_read_long("inject_hang"));
	start = pto_test_now_ns();
	{
		int64_t sc[3] = { 0, 100, 1 };

		ASSERT_EQ(0, pto_queue_push_task(self->q, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 3 }));
	}
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &hung));
	ASSERT_EQ(1u, consumed);
	/* It started, and hangs. */
	for (waited = 0; dbg_read_long("inject_hang") != 0 && waited < 5000; waited++)
		usleep(1000);
	ASSERT_EQ(0, dbg_read_long("inject_hang"));

	/* Two consumers (a chain) and four independent tasks. */
	for (i = 1; i < 7; i++) {
		int64_t sc[3] = { i, 100 + i, 1 };
		int64_t dep = i == 1 ? (int64_t)hung : -1;

		ASSERT_EQ(0, pto_queue_push_task(self->q, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = 1 + i % 3, .tensors = args,
			.num_tensors = 1, .scalars = sc, .num_scalars = 3,
			.deps = &dep, .num_deps = i <= 2 }));
	}
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first));
	ASSERT_EQ(6u, consumed);
	n = pto_test_reap_lasts(self->q, cqes, 64, 7, RUN_TIMEOUT_NS);
	ASSERT_LT(0, n) TH_LOG("%s", strerror(-n));
	c = pto_test_find_last(cqes, n, hung);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_TIMEOUT, c->info.status);
	EXPECT_LE(PTO_TEST_MSEC(HANG_TIMEOUT_MS),
		  (int64_t)(c->info.ts_end - c->info.ts_start));
	TH_LOG("hung block ended after %lld ms (timeout %d ms), %lld ms after submit",
	       (long long)(c->info.ts_end - c->info.ts_start) / 1000000,
	       HANG_TIMEOUT_MS, (long long)(pto_test_now_ns() - start) / 1000000);
	for (i = 1; i < 7; i++) {
		c = pto_test_find_last(cqes, n, first + i - 1);
		ASSERT_NE(NULL, c) TH_LOG("task %d", i);
		if (i <= 2) {
			EXPECT_EQ(PTO_STATUS_DEP_FAILED, c->info.status) TH_LOG("task %d", i);
			EXPECT_EQ(0, po[i]);
		} else {
			EXPECT_EQ(PTO_STATUS_OK, c->info.status) TH_LOG("task %d", i);
			EXPECT_EQ(100 + i, po[i]);
		}
	}
	EXPECT_EQ(0, po[0]);
	ASSERT_EQ(0, pto_test_counters(self->mon, &c1));
	EXPECT_EQ(c0.timeouts + 1, c1.timeouts);
	pto_kernel_free(k);
	pto_tensor_free(out);
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", self->old_timeout));
	EXPECT_EQ(0, run_a_graph());
}

/* One block of an SPMD task hangs: the task times out, its siblings' blocks ran. */
TEST_F_TIMEOUT(dev, hung_block_of_spmd_task_times_out, 120)
{
	struct pto_tensor *out, *args[1];
	struct pto_kernel *k;
	struct pto_graph *g;
	const struct pto_block_info *b;
	unsigned int nb, i, hung = 0;
	int64_t sc[3] = { 0, 5, 1 };

	if (!dev_debugfs() || dbg_read_long("inject_hang") < 0)
		SKIP(return, "no debugfs inject_hang");
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", HANG_TIMEOUT_MS));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, OUT_COLS, &out));
	args[0] = out;
	k = mark_kernel(self->dev);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	ASSERT_EQ(0, pto_graph_add_task(g, &(struct pto_task_desc){
		.kernel_aiv = k, .block_num = 8, .tensors = args,
		.num_tensors = 1, .scalars = sc, .num_scalars = 3 }));
	ASSERT_EQ(1, pto_graph_add_task(g, &(struct pto_task_desc){
		.kernel_aiv = k, .block_num = 1, .tensors = args,
		.num_tensors = 1, .scalars = sc, .num_scalars = 3,
		.deps = (int64_t[]){ 0 }, .num_deps = 1 }));
	ASSERT_EQ(0, dbg_write("inject_hang", "1"));
	ASSERT_EQ(-EIO, pto_graph_run(g, self->q, RUN_TIMEOUT_NS));
	EXPECT_EQ(0, dbg_read_long("inject_hang"));
	EXPECT_EQ(PTO_STATUS_TIMEOUT, pto_graph_task_status(g, 0, NULL, NULL));
	EXPECT_EQ(PTO_STATUS_DEP_FAILED, pto_graph_task_status(g, 1, NULL, NULL));
	ASSERT_EQ(0, pto_graph_task_blocks(g, 0, &b, &nb));
	ASSERT_EQ(8u, nb);
	/* One block ran into the timeout; the others ran and ended at once. */
	for (i = 0; i < nb; i++) {
		int64_t ran = (int64_t)(b[i].ts_end - b[i].ts_start);

		EXPECT_NE(0u, b[i].flags & PTO_BLOCK_RAN);
		if (ran >= PTO_TEST_MSEC(HANG_TIMEOUT_MS)) {
			hung++;
			EXPECT_EQ(PTO_STATUS_TIMEOUT, b[i].status);
		} else if (!(b[i].flags & PTO_BLOCK_LAST)) {
			EXPECT_EQ(PTO_STATUS_OK, b[i].status) TH_LOG("block %u", i);
		}
	}
	EXPECT_EQ(1u, hung);
	pto_graph_free(g);
	pto_kernel_free(k);
	pto_tensor_free(out);
	ASSERT_EQ(0, pto_test_param_write("timeout_ms", self->old_timeout));
	EXPECT_EQ(0, run_a_graph());
}

/* ------------------------------------------------------------------ kill -9 */

/*
 * The child: two queues, thousands of tasks of every shape in flight (a
 * slow chain allowing early resolve, SPMD fans, a tiny CQ so completions
 * are held), some GM; says 'R' (or 'E') and waits to die.
 */
static void killed_child(int to_parent)
{
	struct pto_tensor *out, *args[1];
	struct pto_device *dev;
	struct pto_kernel *k;
	struct pto_queue *q1, *q2;
	struct pto_buffer *buf;
	uint32_t c1 = 0, c2 = 0;
	char msg = 'E';
	int i, ret;

	ret = pto_test_dev_open(&dev);
	if (!ret)
		ret = pto_queue_create(dev, 8192, 0, &q1);
	if (!ret)
		ret = pto_queue_create(dev, 4096, 0, &q2);
	if (!ret)
		ret = pto_test_tensor2d(dev, PTO_DTYPE_I64, 1, 16, &out);
	if (!ret)
		ret = pto_buffer_alloc(dev, 1 << 20, &buf);
	k = ret ? NULL : mark_kernel(dev);
	args[0] = out;
	for (i = 0; k && i < KILL_TASKS; i++) {
		bool chain = i < KILL_TASKS / 2;
		int64_t sc[3] = { i % 16, i, chain ? 100 : 1 }, dep = -1;

		if (pto_queue_push_task(chain ? q1 : q2, &(struct pto_task_desc){
			.kernel_aiv = k, .block_num = chain ? 1 : 1 + i % 8,
			.tensors = args, .num_tensors = 1, .scalars = sc,
			.num_scalars = 3, .deps = &dep,
			.num_deps = chain && i ? 1 : 0,
			.flags = chain ? PTO_TASK_EARLY_RESOLVE : 0 }))
			break;
	}
	if (k && i == KILL_TASKS &&
	    !pto_queue_doorbell(q1, 0, 0, &c1, NULL) &&
	    !pto_queue_doorbell(q2, 0, 0, &c2, NULL) &&
	    c1 + c2 == KILL_TASKS)
		msg = 'R';
	if (write(to_parent, &msg, 1) != 1)
		_exit(2);
	for (;;)
		pause();
}

/* debugfs: no context but @keep, no queue, every core idle, nothing ready. */
static int device_idle(int keep_contexts, char *why, size_t len)
{
	static char buf[1 << 16];
	int contexts = 0;
	char *l, *save = NULL;

	if (dbg_read("queues", buf, sizeof(buf)) < 0) {
		snprintf(why, len, "no debugfs queues");
		return 0;
	}
	for (l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "context ", 8)) {
			contexts++;
			if (!strstr(l, "inflight=0 ")) {
				snprintf(why, len, "%s", l);
				return 0;
			}
		} else if (strstr(l, "queue ")) {
			snprintf(why, len, "%s", l);
			return 0;
		}
	}
	if (contexts != keep_contexts) {
		snprintf(why, len, "%d contexts open, want %d", contexts, keep_contexts);
		return 0;
	}
	if (dbg_read("cores", buf, sizeof(buf)) < 0) {
		snprintf(why, len, "no debugfs cores");
		return 0;
	}
	for (l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strstr(l, "task=") ||
		    (!strncmp(l, "ready[", 6) && !strstr(l, ": 0"))) {
			snprintf(why, len, "%s", l);
			return 0;
		}
	}
	return 1;
}

TEST_F_TIMEOUT(dev, kill_9_twenty_times_leaves_nothing, 900)
{
	struct drm_pto_npu_memory_info mem0;
	int to_parent[2], round;
	char why[256] = "";

	if (!dev_debugfs())
		SKIP(return, "no debugfs");
	/* Only the monitor: the fixture's context has a queue of its own. */
	pto_queue_destroy(self->q);
	self->q = NULL;
	pto_device_close(self->dev);
	self->dev = NULL;
	ASSERT_EQ(0, pto_test_memory(self->mon, &mem0));
	ASSERT_EQ(0, pipe(to_parent));

	for (round = 0; round < KILL_ROUNDS; round++) {
		struct drm_pto_npu_counters before, at_kill, now;
		struct drm_pto_npu_memory_info mem;
		struct pollfd pfd = { .fd = to_parent[0], .events = POLLIN };
		int64_t t0;
		int status = 0, idle = 0;
		pid_t child;
		char msg = 0;

		ASSERT_EQ(0, pto_test_counters(self->mon, &before));
		child = fork();
		ASSERT_LE(0, child);
		if (!child) {
			close(to_parent[0]);
			killed_child(to_parent[1]);
		}
		ASSERT_EQ(1, poll(&pfd, 1, 300000)) TH_LOG("round %d: child silent", round);
		ASSERT_EQ(1, read(to_parent[0], &msg, 1));
		ASSERT_EQ('R', msg) TH_LOG("round %d: child setup failed", round);
		ASSERT_EQ(0, pto_test_counters(self->mon, &at_kill));
		EXPECT_EQ(before.tasks + KILL_TASKS, at_kill.tasks);
		EXPECT_GT(before.retired + KILL_TASKS, at_kill.retired);
		/* Let some run a little, then kill at varying moments. */
		usleep((round % 5) * 20000);
		ASSERT_EQ(0, kill(child, SIGKILL));
		ASSERT_EQ(child, waitpid(child, &status, 0));
		ASSERT_TRUE(WIFSIGNALED(status));

		t0 = pto_test_now_ns();
		for (;;) {
			ASSERT_EQ(0, pto_test_memory(self->mon, &mem));
			ASSERT_EQ(0, pto_test_counters(self->mon, &now));
			if (mem.device_bos == mem0.device_bos &&
			    mem.device_bytes == mem0.device_bytes &&
			    now.retired >= before.retired + KILL_TASKS &&
			    (idle = device_idle(1, why, sizeof(why))))
				break;
			if (pto_test_now_ns() - t0 > RELEASE_TIMEOUT_NS)
				break;
			usleep(10000);
		}
		EXPECT_TRUE(idle) TH_LOG("round %d: %s; bos %llu (start %llu), retired %llu (want %llu)",
					 round, why, (unsigned long long)mem.device_bos,
					 (unsigned long long)mem0.device_bos,
					 (unsigned long long)now.retired,
					 (unsigned long long)(before.retired + KILL_TASKS));
		if (!idle)
			break;
	}
	TH_LOG("%d rounds of kill -9 with %d tasks in flight", round, KILL_TASKS);
	printf("# kill -9: %d rounds, %d tasks in flight each, device idle after each\n",
	       round, KILL_TASKS);
	close(to_parent[0]);
	close(to_parent[1]);
	/* Another process runs a graph, with the right results. */
	EXPECT_EQ(0, run_a_graph_elsewhere());
}

TEST_HARNESS_MAIN
