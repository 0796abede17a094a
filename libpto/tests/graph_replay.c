// SPDX-License-Identifier: MIT
/*
 * Graph replay without a device: what pto_graph_record() refuses before
 * anything reaches the device (a task with more producers than a node may
 * have), pto_graph_replay() against a recording of another graph, the
 * launch entry's predicate and dependencies (pto_graph_launch_push_ex()),
 * the recorded graph's handle, the binding refusal's message, and
 * pto_graph_exec_wait() with several launches in flight.
 *
 * The device is emulated: drmIoctl() is this file's (the executable's
 * definition wins over libdrm's), answering GRAPH_CREATE with a new
 * handle and counting the calls; a queue's rings are plain memory, its
 * doorbell takes every entry and its wait posts one CQE a call.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pto/pto.h>

#include "graph_internal.h"
#include "tap.h"

#define FIRST_ID 500
#define HANDLE0 40

/* ------------------------------------------------------------ the device */

static unsigned int creates, destroys, next_handle = HANDLE0;
static uint32_t last_edges;

int drmIoctl(int fd, unsigned long request, void *arg)
{
	(void)fd;
	if (request == DRM_IOCTL_PTO_NPU_GRAPH_CREATE) {
		struct drm_pto_npu_graph_create *c = arg;

		creates++;
		last_edges = c->num_edges;
		c->handle = ++next_handle;
		return 0;
	}
	if (request == DRM_IOCTL_PTO_NPU_GRAPH_DESTROY) {
		destroys++;
		return 0;
	}
	errno = ENOTTY;
	return -1;
}

struct fake {
	struct pto_device dev;
	struct pto_queue q;
	uint8_t *mem;
	uint64_t next_id;
	/* CQEs the next waits post, one a call. */
	struct drm_pto_npu_cqe post[16];
	unsigned int nposts, posted;
	unsigned int doorbells;
	/* The entries the doorbells took: launches get a final CQE posted. */
	bool complete_launches;
};

static struct drm_pto_npu_ring_header *fake_hdr(struct fake *f)
{
	return (struct drm_pto_npu_ring_header *)f->mem;
}

static void fake_post(struct fake *f, const struct drm_pto_npu_cqe *c)
{
	struct drm_pto_npu_ring_header *h = fake_hdr(f);

	f->q.cq.cqes[h->cq_tail & (f->q.cq.nentries - 1)] = *c;
	__atomic_store_n(&h->cq_tail, h->cq_tail + 1, __ATOMIC_RELEASE);
}

static int fake_submit(struct pto_queue *q, uint32_t syncobj, uint64_t point,
		       uint32_t *consumed, uint64_t *first_id)
{
	struct fake *f = q->priv;
	struct drm_pto_npu_ring_header *h = fake_hdr(f);
	uint32_t n = 0;

	(void)syncobj;
	(void)point;
	f->doorbells++;
	*first_id = f->next_id;
	while (h->sq_head != h->sq_tail) {
		const struct drm_pto_npu_sqe *e = (const void *)(
			q->sq.slots + (size_t)(h->sq_head & (q->sq.nslots - 1)) *
					      DRM_PTO_NPU_SQ_SLOT_SIZE);
		struct drm_pto_npu_cqe c = {
			.task_id = f->next_id++, .user_data = e->user_data,
			.flags = DRM_PTO_NPU_CQE_F_LAST | DRM_PTO_NPU_CQE_F_GRAPH,
			.ts_dispatch = 1,
		};

		if (f->complete_launches && f->nposts < 16)
			f->post[f->nposts++] = c;
		h->sq_head += e->num_slots;
		n++;
	}
	*consumed = n;
	return 0;
}

static int fake_wait(struct pto_queue *q, int64_t deadline_ns,
		     uint32_t *available, uint32_t *inflight)
{
	struct fake *f = q->priv;
	struct drm_pto_npu_ring_header *h = fake_hdr(f);

	(void)deadline_ns;
	if (f->posted < f->nposts &&
	    h->cq_tail - h->cq_head < f->q.cq.nentries)
		fake_post(f, &f->post[f->posted++]);
	*available = h->cq_tail - h->cq_head;
	*inflight = f->nposts - f->posted;
	return *available ? 0 : -ETIME;
}

static const struct pto_queue_ops fake_ops = {
	.submit = fake_submit,
	.wait = fake_wait,
};

static struct fake *fake_new(uint32_t cq_entries)
{
	struct fake *f = calloc(1, sizeof(*f));
	uint32_t sq_off = sizeof(struct drm_pto_npu_ring_header);
	uint32_t cq_off = sq_off + 64 * DRM_PTO_NPU_SQ_SLOT_SIZE;
	size_t size = cq_off + cq_entries * sizeof(struct drm_pto_npu_cqe);

	f->dev.fd = -1;
	f->dev.info = (struct pto_device_info){ .clusters = 24, .aic_cores = 24,
						.aiv_cores = 48,
						.aiv_ub_size = 192 << 10 };
	f->dev.limits = (struct pto_limits){ .max_tensor_args = 16,
					     .max_scalar_args = 16,
					     .max_deps = 32,
					     .max_block_num = 8192,
					     .timeout_ms = 10000 };
	f->mem = aligned_alloc(64, (size + 63) & ~(size_t)63);
	memset(f->mem, 0, size);
	TAP_CHECK_EQ(pto_queue_init_rings(&f->q, f->mem, size, sq_off, 64,
					  cq_off, cq_entries),
		     0);
	f->q.dev = &f->dev;
	f->q.ops = &fake_ops;
	f->q.priv = f;
	f->next_id = FIRST_ID;
	return f;
}

/* ------------------------------------------------------------ graphs */

/* Kernel (x in, y out), one buffer: x, y, and rows of y one by one. */
struct fx {
	struct fake *f;
	struct pto_kernel k;
	struct pto_buffer buf;
	struct pto_tensor *x, *y, *row[48];
};

static struct pto_tensor *view(struct fx *a, size_t off, enum pto_dtype dt,
			       int64_t rows, int64_t cols,
			       const int64_t *strides)
{
	struct pto_tensor *t = NULL;

	TAP_CHECK_EQ(pto_tensor_view(&a->buf, off, dt, 2,
				     (int64_t[]){ rows, cols }, strides, &t),
		     0);
	return t;
}

static void fx_setup(struct fx *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	a->f = fake_new(8);
	a->k = (struct pto_kernel){ .dev = &a->f->dev, .handle = 7,
				    .core_type = PTO_CORE_AIV,
				    .num_tensor_args = 2 };
	a->k.arg_dtype[0] = PTO_DTYPE_F32;
	a->k.arg_use[0] = PTO_ARG_READ;
	a->k.arg_use[1] = PTO_ARG_WRITTEN;
	a->buf = (struct pto_buffer){ .dev = &a->f->dev, .size = 1 << 20,
				      .handle = 5 };
	a->buf.map = calloc(1, a->buf.size);
	a->x = view(a, 0, PTO_DTYPE_F32, 48, 16, NULL);
	a->y = view(a, 65536, PTO_DTYPE_I32, 48, 16, NULL);
	for (i = 0; i < 48; i++)
		a->row[i] = view(a, 65536 + (size_t)i * 64, PTO_DTYPE_I32, 1,
				 16, NULL);
}

static void fx_teardown(struct fx *a)
{
	int i;

	pto_tensor_free(a->x);
	pto_tensor_free(a->y);
	for (i = 0; i < 48; i++)
		pto_tensor_free(a->row[i]);
	free(a->buf.map);
	free(a->f->mem);
	free(a->f);
}

/* A task reading x and writing (OUT) or reading (IN) tensor @t. */
static int add(struct fx *a, struct pto_graph *g, struct pto_tensor *t,
	       uint8_t dir)
{
	struct pto_tensor *ts[2] = { a->x, t };
	uint8_t dirs[2] = { PTO_ARG_IN, dir };
	struct pto_task_desc d = { .kernel_aiv = &a->k, .block_num = 1,
				   .tensors = ts, .num_tensors = 2,
				   .tensor_dirs = dirs };

	return pto_graph_add_task(g, &d);
}

/* @n tasks each writing a row of y, then one reading all of y. */
static struct pto_graph *reduction(struct fx *a, int n)
{
	struct pto_graph *g = NULL;
	int i;

	TAP_CHECK_EQ(pto_graph_new(&a->f->dev, &g), 0);
	for (i = 0; i < n; i++)
		TAP_CHECK_EQ(add(a, g, a->row[i], PTO_ARG_OUT), i);
	TAP_CHECK_EQ(add(a, g, a->y, PTO_ARG_IN), n);
	return g;
}

static void expect_msg(const char *msg, const char *text)
{
	if (!strstr(msg, text)) {
		printf("#   message \"%s\" lacks \"%s\"\n", msg, text);
		TAP_CHECK(!"message");
	}
}

/* ------------------------------------------------------------ the tests */

/*
 * A reduction over 40 earlier writers: 40 inferred producers, over the
 * 32 a node may have: refused with no GRAPH_CREATE; pto_graph_run() is
 * still free to send it (the device infers there). 32 producers record.
 */
static void record_refuses_producers_over_the_cap(void)
{
	struct pto_graph_exec *x = (void *)1;
	struct pto_graph *g;
	struct fx a;

	fx_setup(&a);
	g = reduction(&a, 40);
	creates = 0;
	TAP_CHECK_EQ(pto_graph_record(g, NULL, 0, NULL, 0, &x), -E2BIG);
	TAP_CHECK(x == NULL);
	TAP_CHECK_EQ(creates, 0);
	expect_msg(pto_graph_error(g), "task 40 has 40 producers (0 named, 40 inferred");
	expect_msg(pto_graph_error(g), "may have 32 (max_deps)");
	pto_graph_free(g);

	g = reduction(&a, 32);
	TAP_CHECK_EQ(pto_graph_record(g, NULL, 0, NULL, 0, &x), 0);
	TAP_CHECK_EQ(creates, 1);
	TAP_CHECK_EQ(last_edges, 32);
	pto_graph_exec_free(x);
	pto_graph_free(g);
	/* The device's own cap when it reports one below 32. */
	a.f->dev.limits.max_deps = 8;
	g = reduction(&a, 9);
	TAP_CHECK_EQ(pto_graph_record(g, NULL, 0, NULL, 0, &x), -E2BIG);
	expect_msg(pto_graph_error(g), "may have 8 (max_deps)");
	TAP_CHECK_EQ(creates, 1);
	pto_graph_free(g);
	fx_teardown(&a);
}

/*
 * Two graphs of the same tasks, each recorded: replaying one's recording
 * with the other is refused with nothing published; so is a replay after
 * a task was added; the right pair runs. The getter gives the handle.
 */
static void replay_refuses_another_graphs_recording(void)
{
	const struct pto_tensor *p[1];
	struct pto_graph *g1, *g2;
	struct pto_graph_exec *x1, *x2;
	struct fx a;

	fx_setup(&a);
	a.f->complete_launches = true;
	g1 = reduction(&a, 2);
	g2 = reduction(&a, 2);
	p[0] = a.x;
	TAP_CHECK_EQ(pto_graph_record(g1, p, 1, NULL, 0, &x1), 0);
	TAP_CHECK_EQ(pto_graph_record(g2, p, 1, NULL, 0, &x2), 0);
	TAP_CHECK_EQ(pto_graph_exec_handle(x1), next_handle - 1);
	TAP_CHECK_EQ(pto_graph_exec_handle(x2), next_handle);
	TAP_CHECK_EQ(pto_graph_exec_handle(NULL), 0);
	TAP_CHECK_EQ(pto_graph_exec_nodes(x1), pto_graph_exec_nodes(x2));

	TAP_CHECK_EQ(pto_graph_replay(g2, x1, &a.f->q, p, NULL, 0), -EINVAL);
	expect_msg(pto_graph_error(g2), "not recorded from it");
	TAP_CHECK_EQ(pto_graph_replay(g1, x2, &a.f->q, p, NULL, 0), -EINVAL);
	TAP_CHECK_EQ(fake_hdr(a.f)->sq_tail, 0);
	TAP_CHECK_EQ(a.f->doorbells, 0);

	TAP_CHECK_EQ(pto_graph_replay(g1, x1, &a.f->q, p, NULL, 0), 0);
	TAP_CHECK_EQ(pto_graph_task_status(g1, 2, NULL, NULL), PTO_STATUS_OK);
	TAP_CHECK_EQ(a.f->doorbells, 1);
	TAP_CHECK_EQ(add(&a, g1, a.row[3], PTO_ARG_OUT), 3);
	TAP_CHECK_EQ(pto_graph_replay(g1, x1, &a.f->q, p, NULL, 0), -EINVAL);
	expect_msg(pto_graph_error(g1), "added since");
	TAP_CHECK_EQ(a.f->doorbells, 1);
	pto_graph_exec_free(x1);
	pto_graph_exec_free(x2);
	pto_graph_free(g1);
	pto_graph_free(g2);
	fx_teardown(&a);
}

/* The launch entry at slot @slot: header and body. */
struct entry {
	struct drm_pto_npu_sqe hdr;
	struct drm_pto_npu_tensor_arg t[2];
	int64_t deps[2];
	struct drm_pto_npu_predicate pred;
};

/*
 * A launch with two dependencies and a predicate on its tensor 1: the
 * entry carries them after the bindings (no scalars); bad extras are
 * refused with nothing published.
 */
static void launch_carries_predicate_and_deps(void)
{
	const struct pto_predicate pr = { .tensor = 1, .op = PTO_CMP_GT,
					  .row = 0, .col = 3, .literal = 9 };
	const int64_t deps[2] = { -1, 77 };
	struct pto_graph_launch_opts o = { .user_data = 0xabc, .deps = deps,
					   .num_deps = 2, .predicate = &pr };
	const struct pto_tensor *p[2];
	struct pto_graph_exec *x;
	struct pto_graph *g;
	struct entry e;
	struct fx a;

	fx_setup(&a);
	g = reduction(&a, 1);
	p[0] = a.x;
	p[1] = a.y;
	TAP_CHECK_EQ(pto_graph_record(g, p, 2, NULL, 0, &x), 0);
	TAP_CHECK_EQ(pto_graph_launch_push_ex(x, &a.f->q, p, NULL, &o), 0);
	memcpy(&e, a.f->q.sq.slots, sizeof(e));
	TAP_CHECK_EQ(e.hdr.flags, DRM_PTO_NPU_TASK_F_GRAPH | DRM_PTO_NPU_TASK_F_PREDICATE);
	TAP_CHECK_EQ(e.hdr.user_data, 0xabc);
	TAP_CHECK_EQ(e.hdr.reserved[0], pto_graph_exec_handle(x));
	TAP_CHECK_EQ(e.hdr.num_tensors, 2);
	TAP_CHECK_EQ(e.hdr.num_deps, 2);
	TAP_CHECK_EQ(e.hdr.num_slots, pto_task_slots(2, 0, 2, true));
	TAP_CHECK_EQ(e.t[1].handle, 5);
	TAP_CHECK_EQ(e.deps[0], -1);
	TAP_CHECK_EQ(e.deps[1], 77);
	TAP_CHECK_EQ(e.pred.tensor, 1);
	TAP_CHECK_EQ(e.pred.op, PTO_CMP_GT);
	TAP_CHECK_EQ(e.pred.col, 3);
	TAP_CHECK_EQ(e.pred.literal, 9);

	a.f->q.sq.slots[0] = 0;
	TAP_CHECK_EQ(pto_graph_launch_push_ex(x, &a.f->q, p, NULL, NULL), 0);
	memcpy(&e, a.f->q.sq.slots + (size_t)pto_task_slots(2, 0, 2, true) *
					     DRM_PTO_NPU_SQ_SLOT_SIZE,
	       sizeof(e.hdr));
	TAP_CHECK_EQ(e.hdr.flags, DRM_PTO_NPU_TASK_F_GRAPH);
	TAP_CHECK_EQ(e.hdr.num_deps, 0);

	{
		uint32_t tail = fake_hdr(a.f)->sq_tail;
		struct pto_predicate far = pr;
		int64_t zero = 0, many[33];

		far.tensor = 2;
		o.predicate = &far;
		TAP_CHECK_EQ(pto_graph_launch_push_ex(x, &a.f->q, p, NULL, &o), -EINVAL);
		o.predicate = NULL;
		o.deps = &zero;
		o.num_deps = 1;
		TAP_CHECK_EQ(pto_graph_launch_push_ex(x, &a.f->q, p, NULL, &o), -EINVAL);
		memset(many, 0xff, sizeof(many));
		o.deps = many;
		o.num_deps = 33;
		TAP_CHECK_EQ(pto_graph_launch_push_ex(x, &a.f->q, p, NULL, &o), -E2BIG);
		o.num_deps = 0;
		o.reserved[2] = 1;
		TAP_CHECK_EQ(pto_graph_launch_push_ex(x, &a.f->q, p, NULL, &o), -EINVAL);
		TAP_CHECK_EQ(fake_hdr(a.f)->sq_tail, tail);
	}
	pto_graph_exec_free(x);
	pto_graph_free(g);
	fx_teardown(&a);
}

/* A replay bound to @bad as parameter @i: refused, @text in the message. */
static void bad_binding(struct fx *a, struct pto_graph *g,
			struct pto_graph_exec *x, unsigned int i,
			struct pto_tensor *bad, const char *text)
{
	const struct pto_tensor *p[2] = { a->x, a->y };

	p[i] = bad;
	TAP_CHECK_EQ(pto_graph_replay(g, x, &a->f->q, p, NULL, 0), -EINVAL);
	expect_msg(pto_graph_error(g), text);
	TAP_CHECK_EQ(fake_hdr(a->f)->sq_tail, 0);
}

/* Each refused binding names its parameter and the field that differs. */
static void replay_names_the_binding_field(void)
{
	const struct pto_tensor *p[2];
	struct pto_tensor *t;
	struct pto_graph_exec *x;
	struct pto_graph *g;
	struct fx a;

	fx_setup(&a);
	g = reduction(&a, 1);
	p[0] = a.x;
	p[1] = a.y;
	TAP_CHECK_EQ(pto_graph_record(g, p, 2, NULL, 0, &x), 0);
	bad_binding(&a, g, x, 0, a.y, "tensor parameter 0: dtype i32, recorded f32");
	t = view(&a, 4096, PTO_DTYPE_I32, 24, 32, NULL);
	bad_binding(&a, g, x, 1, t, "tensor parameter 1: shape [24, 32], recorded [48, 16]");
	pto_tensor_free(t);
	t = view(&a, 4096, PTO_DTYPE_I32, 48, 16, (int64_t[]){ 32, 1 });
	bad_binding(&a, g, x, 1, t, "tensor parameter 1: strides [32, 1], recorded [16, 1]");
	pto_tensor_free(t);
	bad_binding(&a, g, x, 1, NULL, "tensor parameter 1: NULL");
	pto_graph_exec_free(x);
	pto_graph_free(g);
	fx_teardown(&a);
}

static struct drm_pto_npu_cqe launch_cqe(uint64_t id, int32_t status)
{
	return (struct drm_pto_npu_cqe){
		.task_id = id, .status = status, .block = 1,
		.flags = DRM_PTO_NPU_CQE_F_LAST | DRM_PTO_NPU_CQE_F_GRAPH,
	};
}

static void post_launch(struct fake *f, uint64_t id, int32_t status)
{
	struct drm_pto_npu_cqe c = launch_cqe(id, status);

	fake_post(f, &c);
}

/*
 * Launches 10..13 in flight, completing out of order among an entry's
 * completion and node completions: each wait gets its own launch's CQE,
 * the others stay in the CQ (in order) for theirs; with the CQ full of
 * others' launches, -ENOSPC; nothing coming, -ETIME.
 */
static void exec_wait_keeps_other_launches(void)
{
	struct drm_pto_npu_cqe node = launch_cqe(12, PTO_STATUS_OK);
	struct drm_pto_npu_cqe plain = launch_cqe(20, PTO_STATUS_OK);
	struct pto_cqe res, got[8];
	struct fake *f = fake_new(8);
	int i;

	node.flags = DRM_PTO_NPU_CQE_F_NODE | DRM_PTO_NPU_CQE_F_GRAPH |
		     DRM_PTO_NPU_CQE_F_LAST;
	plain.flags = DRM_PTO_NPU_CQE_F_LAST;
	post_launch(f, 11, PTO_STATUS_GM_FAULT);
	fake_post(f, &plain);
	fake_post(f, &node);
	post_launch(f, 12, PTO_STATUS_OK);
	post_launch(f, 10, PTO_STATUS_OK);
	/* 13 comes later, posted by the third wait. */
	f->post[0] = launch_cqe(30, PTO_STATUS_OK);
	f->post[1] = launch_cqe(31, PTO_STATUS_OK);
	f->post[2] = launch_cqe(13, PTO_STATUS_OK);
	f->nposts = 3;

	TAP_CHECK_EQ(pto_graph_exec_wait(&f->q, 12, 0, &res), 0);
	TAP_CHECK_EQ(res.task_id, 12);
	TAP_CHECK(res.info.flags & PTO_BLOCK_GRAPH);
	/* 11 then 10 left, in their order. */
	TAP_CHECK_EQ(f->q.cq.cqes[*f->q.cq.head & 7].task_id, 11);
	TAP_CHECK_EQ(*f->q.cq.tail - *f->q.cq.head, 2);
	TAP_CHECK_EQ(pto_graph_exec_wait(&f->q, 13, 0, &res), 0);
	TAP_CHECK_EQ(res.task_id, 13);
	TAP_CHECK_EQ(pto_graph_exec_wait(&f->q, 10, 0, &res), 0);
	TAP_CHECK_EQ(res.task_id, 10);
	TAP_CHECK_EQ(pto_graph_exec_wait(&f->q, 11, 0, &res), -EIO);
	TAP_CHECK_EQ(res.info.status, PTO_STATUS_GM_FAULT);
	/* 30 and 31 are still there for pto_queue_reap(). */
	TAP_CHECK_EQ(pto_queue_reap(&f->q, got, 8), 2);
	TAP_CHECK_EQ(got[0].task_id, 30);
	TAP_CHECK_EQ(got[1].task_id, 31);

	for (i = 0; i < 8; i++)
		post_launch(f, 100 + i, 0);
	TAP_CHECK_EQ(pto_graph_exec_wait(&f->q, 99, 0, NULL), -ENOSPC);
	TAP_CHECK_EQ(pto_queue_reap(&f->q, got, 8), 8);
	TAP_CHECK_EQ(got[7].task_id, 107);
	post_launch(f, 200, 0);
	TAP_CHECK_EQ(pto_graph_exec_wait(&f->q, 99, 5000000, NULL), -ETIME);
	TAP_CHECK_EQ(pto_queue_reap(&f->q, got, 8), 1);
	TAP_CHECK_EQ(pto_graph_exec_wait(&f->q, 99, 1000000, NULL), -ETIME);
	TAP_CHECK_EQ(pto_graph_exec_wait(&f->q, 0, 0, NULL), -EINVAL);
	free(f->mem);
	free(f);
}

/*
 * A profiling queue: each kept completion's profile record moves with it
 * (a record per CQE position), so pto_queue_reap_prof() reads the right
 * one afterwards.
 */
static void exec_wait_moves_profile_records(void)
{
	struct drm_pto_npu_prof profs[8];
	struct pto_block_prof bp[8];
	struct fake *f = fake_new(8);
	struct pto_cqe got[8];
	int i;

	memset(profs, 0, sizeof(profs));
	f->q.cq.profs = profs;
	f->q.cq.prof_stride = sizeof(profs[0]);
	for (i = 0; i < 4; i++) {
		profs[i].wait_ns = 1000 + (uint64_t)i;
		post_launch(f, 40 + (uint64_t)i, PTO_STATUS_OK);
	}
	TAP_CHECK_EQ(pto_graph_exec_wait(&f->q, 42, 0, NULL), 0);
	TAP_CHECK_EQ(pto_queue_reap_prof(&f->q, got, bp, 8), 3);
	TAP_CHECK_EQ(got[0].task_id, 40);
	TAP_CHECK_EQ(bp[0].wait_ns, 1000);
	TAP_CHECK_EQ(got[1].task_id, 41);
	TAP_CHECK_EQ(bp[1].wait_ns, 1001);
	TAP_CHECK_EQ(got[2].task_id, 43);
	TAP_CHECK_EQ(bp[2].wait_ns, 1003);
	free(f->mem);
	free(f);
}

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(record_refuses_producers_over_the_cap),
		TAP_TEST(replay_refuses_another_graphs_recording),
		TAP_TEST(launch_carries_predicate_and_deps),
		TAP_TEST(replay_names_the_binding_field),
		TAP_TEST(exec_wait_keeps_other_launches),
		TAP_TEST(exec_wait_moves_profile_records),
	};

	return tap_run(tests, sizeof(tests) / sizeof(tests[0]));
}
