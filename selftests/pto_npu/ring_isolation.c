// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cross-core ring of a mixed task and another context (issue #29,
 * finding 2): an AIV part that has pushed its tiles and ended gives its core
 * back to the scheduler while the block's AIC may not have popped them yet.
 * Another context's units then run on that AIV, its local memory scrubbed
 * and overwritten. The AIC's POPs must still read exactly what the AIV
 * pushed (the slots left the UB at the part's end), never zeros and never
 * the other context's bytes.
 *
 * The child process (another context) fills every AIV's whole UB with a
 * marker, task after task, until the parent's mixed task has completed; the
 * parent checks its output word for word and that a marker unit ran on its
 * block's AIV between that part's end and the AIC's end (the case tested
 * happened; a run where it did not is repeated, a few times at most).
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

/* The tile that crosses the ring: R x C int32. */
#define R 16
#define C 16
/* Tiles the AIV pushes (as many slots: it never waits for the AIC). */
#define STEPS 4
/* Marker tiles: rows of MC int32, as many as the UB holds. */
#define MR 32
#define MC 128
#define MARKER 0x5a5a5a5a
#define RUN_TIMEOUT PTO_TEST_SEC(120)
#define ATTEMPTS 5
/* The cube's spin: SPIN_FIRST iterations, four times more each attempt. */
#define SPIN_FIRST 200000
#define SPIN_INNER 50000
/* Marker blocks the child records (core, start) of. */
#define MAX_SEEN 8192

struct seen {
	uint32_t n;
	struct {
		uint16_t core;
		uint64_t ts_start;
	} b[MAX_SEEN];
};

/* AIV: TLOAD x rows, +1, PUSH, STEPS times. AIC: spin, POP, TSTORE out. */
static int build_pair(struct pto_device *dev, int64_t spin,
		      struct pto_kernel **aic, struct pto_kernel **aiv,
		      char *err, size_t len)
{
	struct pto_kb *kb;
	int tx, tp, to;

	if (pto_kb_new(dev, PTO_CORE_AIC, &kb))
		return -ENOMEM;
	tx = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_L1, R, C);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_ldi(kb, 9, 0);
	/* Two nested loops: one LOOP's count is at most 2^20. */
	pto_kb_loopi(kb, 11, spin / SPIN_INNER);
	pto_kb_loopi(kb, 10, SPIN_INNER);
	pto_kb_alui(kb, PTO_ALU_ADD, 9, 9, 1);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_loopi(kb, 1, STEPS);
	pto_kb_alui(kb, PTO_ALU_MUL, 2, 1, R);
	pto_kb_pop(kb, tx);
	pto_kb_tstore(kb, tx, 1, 2, 0);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	*aic = pto_test_kb_finish(kb, err, len);
	if (!*aic)
		return -EINVAL;
	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return -ENOMEM;
	tp = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, R, C);
	to = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, R, C);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_loopi(kb, 1, STEPS);
	pto_kb_alui(kb, PTO_ALU_MUL, 2, 1, R);
	pto_kb_tload(kb, tp, 0, 2, 0);
	pto_kb_tbinsi(kb, PTO_TBIN_ADD, to, tp, 1);
	pto_kb_push(kb, to);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	*aiv = pto_test_kb_finish(kb, err, len);
	return *aiv ? 0 : -EINVAL;
}

/* Every tile of the UB filled with MARKER: the whole local memory written. */
static struct pto_kernel *build_marker(struct pto_device *dev, uint32_t ub,
				       char *err, size_t len)
{
	unsigned int i, n = ub / (MR * MC * 4);
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_ldi(kb, 0, MARKER);
	for (i = 0; i < n; i++)
		pto_kb_tfill(kb, pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB,
					     MR, MC), 0);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

/* One marker launch on every AIV; its blocks' cores and starts into @s. */
static int marker_run(struct pto_device *dev, struct pto_queue *q,
		      struct pto_kernel *k, unsigned int aivs, struct seen *s)
{
	const struct pto_block_info *b;
	struct pto_graph *g;
	unsigned int n = 0, i;
	int ret;

	if (pto_graph_new(dev, &g))
		return -ENOMEM;
	ret = pto_graph_add_task(g, &(struct pto_task_desc){
					    .kernel_aiv = k, .block_num = aivs });
	if (ret >= 0)
		ret = pto_graph_run(g, q, RUN_TIMEOUT);
	if (!ret && !pto_graph_task_blocks(g, 0, &b, &n))
		for (i = 0; i < n && s->n < MAX_SEEN; i++, s->n++) {
			s->b[s->n].core = b[i].core;
			s->b[s->n].ts_start = b[i].ts_start;
		}
	pto_graph_free(g);
	return ret;
}

/* The other context: markers until @stop_fd is readable. */
static void child(int ready_fd, int stop_fd, struct seen *s)
{
	struct pto_device *dev;
	struct pto_device_info info;
	struct pto_queue *q;
	struct pto_kernel *k;
	struct pollfd p = { .fd = stop_fd, .events = POLLIN };
	char err[256], c = 1;

	if (pto_test_dev_open(&dev) || pto_queue_create(dev, 0, 0, &q) ||
	    pto_device_query_info(dev, &info))
		_exit(2);
	k = build_marker(dev, info.aiv_ub_size, err, sizeof(err));
	if (!k)
		_exit(3);
	if (write(ready_fd, &c, 1) != 1)
		_exit(4);
	while (poll(&p, 1, 0) == 0)
		if (marker_run(dev, q, k, 2 * info.clusters, s))
			_exit(5);
	_exit(0);
}

/*
 * One attempt: the mixed task beside the child's markers, its output
 * checked. *@hit: a marker unit ran on the block's AIV inside the window.
 */
static void attempt(struct __test_metadata *_metadata, struct pto_device *dev,
		    struct pto_queue *q, int64_t spin, struct seen *s, int *hit)
{
	int rfd[2], sfd[2], status;
	struct pto_kernel *aic, *aiv;
	struct pto_tensor *x, *out, *args[2];
	const struct pto_block_info *b;
	struct pto_graph *g;
	unsigned int n = 0, i;
	char err[256], c;
	int32_t *px, *po;
	pid_t pid;

	ASSERT_EQ(0, build_pair(dev, spin, &aic, &aiv, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, pto_test_tensor2d(dev, PTO_DTYPE_I32, STEPS * R, C, &x));
	ASSERT_EQ(0, pto_test_tensor2d(dev, PTO_DTYPE_I32, STEPS * R, C, &out));
	px = pto_tensor_data(x);
	for (i = 0; i < STEPS * R * C; i++)
		px[i] = (int32_t)(7 * i + 3);
	ASSERT_EQ(0, pipe(rfd));
	ASSERT_EQ(0, pipe(sfd));
	s->n = 0;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		child(rfd[1], sfd[0], s);
	ASSERT_EQ(1, read(rfd[0], &c, 1));
	args[0] = x;
	args[1] = out;
	ASSERT_EQ(0, pto_graph_new(dev, &g));
	ASSERT_LE(0, pto_graph_add_task(g, &(struct pto_task_desc){
		.kernel_aic = aic, .kernel_aiv = aiv, .block_num = 1,
		.split_mode = PTO_SPLIT_NONE, .slot_num = STEPS,
		.tensors = args, .num_tensors = 2 }));
	EXPECT_EQ(0, pto_graph_run(g, q, RUN_TIMEOUT))
		TH_LOG("%s", pto_graph_error(g));
	ASSERT_EQ(1, write(sfd[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the marker context failed: status 0x%x", status);
	po = pto_tensor_data(out);
	for (i = 0; i < STEPS * R * C; i++)
		if (po[i] != px[i] + 1)
			break;
	EXPECT_EQ((unsigned int)(STEPS * R * C), i)
		TH_LOG("out[%u] = 0x%x, pushed 0x%x%s", i, po[i], px[i] + 1,
		       po[i] == MARKER ? ": the other context's marker" : "");
	/* Unit 0 is the AIC, unit 1 the AIV. */
	ASSERT_EQ(0, pto_graph_task_blocks(g, 0, &b, &n));
	ASSERT_EQ(2U, n);
	for (i = 0; i < s->n; i++)
		if (s->b[i].core == b[1].core &&
		    s->b[i].ts_start > b[1].ts_end &&
		    s->b[i].ts_start < b[0].ts_end)
			*hit = 1;
	TH_LOG("AIV %u ended %llu us before the AIC; %u marker blocks, %s in between",
	       b[1].core, (unsigned long long)(b[0].ts_end - b[1].ts_end) / 1000,
	       s->n, *hit ? "one" : "none");
	pto_graph_free(g);
	pto_tensor_free(x);
	pto_tensor_free(out);
	pto_kernel_free(aic);
	pto_kernel_free(aiv);
	close(rfd[0]);
	close(rfd[1]);
	close(sfd[0]);
	close(sfd[1]);
}

FIXTURE(ring)
{
	struct pto_device *dev;
	struct pto_queue *q;
	struct seen *s;
};

FIXTURE_SETUP(ring)
{
	struct pto_limits lim;
	struct pto_queue_params p = { 0 };

	self->s = mmap(NULL, sizeof(*self->s), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, (void *)self->s);
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_device_query_limits(self->dev, &lim));
	/* The longest cube spin is counted, not timed: the largest budget. */
	p.work_budget = lim.max_work_budget;
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &p, &self->q));
}

FIXTURE_TEARDOWN(ring)
{
	pto_queue_destroy(self->q);
	pto_device_close(self->dev);
	munmap(self->s, sizeof(*self->s));
}

TEST_F_TIMEOUT(ring, popped_slots_are_the_pushed_ones_with_another_context_on_the_aiv,
	       240)
{
	int64_t spin = SPIN_FIRST;
	int i, hit = 0;

	/* Longer cube spins until the window holds a marker unit. */
	for (i = 0; i < ATTEMPTS && !hit && !_metadata->exit_code; i++, spin *= 4)
		attempt(_metadata, self->dev, self->q, spin, self->s, &hit);
	if (!hit && !_metadata->exit_code)
		SKIP(return, "no marker unit ran in the window in %d attempts",
		     ATTEMPTS);
}

TEST_HARNESS_MAIN
