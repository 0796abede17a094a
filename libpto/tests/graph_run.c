// SPDX-License-Identifier: MIT
/*
 * Task graphs without a device: what pto_graph_add_task() refuses, and
 * pto_graph_run() against a device emulated over the same rings. The
 * emulation decodes every SQ entry as the module would (slot count,
 * dependencies absolute or relative to the entry's id), takes a few
 * entries per doorbell, posts one CQE per block in reverse block order
 * (or, like the module, in block order) and holds completions when the CQ
 * is full, so back-pressure on both rings, dependencies across doorbells
 * and result collection are exercised. As the module's, the last CQE of a
 * task carries the task's status, the others their block's own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pto/pto.h>

#include "internal.h"
#include "tap.h"

/* Scalar 0 of a task: which block faults (GM_FAULT, FAULT_DETAIL). */
#define FAULT_MAGIC 666		/* the highest block */
#define FAULT_BLOCK0_MAGIC 667	/* block 0 */
#define FAULT_CANCEL_MAGIC 668	/* block 0, and the last unit never ran */
#define FAULT_DETAIL ((UINT64_C(1) << 56) | 8192)
#define FIRST_ID 1000
#define FOREIGN UINT64_MAX

struct fake_task {
	uint64_t user_data;
	/* block_num as the entry gave it (a grid sentinel, unresolved) */
	uint32_t sqe_block_num;
	int32_t status;
	uint32_t num_deps;
	uint64_t deps[32];
};

struct fake {
	struct pto_device dev;
	struct pto_queue q;
	uint8_t *mem;
	uint64_t next_id;
	unsigned int take_per_doorbell;
	/* CQEs in block order, the highest block LAST (the module's order). */
	bool in_order;
	/* Ids other queues of the device handle take before each doorbell. */
	unsigned int foreign_per_doorbell;
	/* Completes nothing, and takes no more than stuck_cap entries. */
	bool stuck;
	unsigned int stuck_cap;
	unsigned int doorbells;
	unsigned int bad_entries;
	struct fake_task *tasks;
	size_t ntasks;
	size_t tasks_cap;
	struct drm_pto_npu_cqe *held;
	size_t nheld;
	size_t held_cap;
};

static struct drm_pto_npu_ring_header *fake_hdr(struct fake *f)
{
	return (struct drm_pto_npu_ring_header *)f->mem;
}

static void fake_read(struct fake *f, size_t pos, void *dst, size_t n)
{
	size_t size = (size_t)f->q.sq.nslots * DRM_PTO_NPU_SQ_SLOT_SIZE;
	uint8_t *d = dst;
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = f->q.sq.slots[(pos + i) % size];
}

static void fake_post(struct fake *f, const struct drm_pto_npu_cqe *c)
{
	struct drm_pto_npu_ring_header *h = fake_hdr(f);

	if (!f->nheld && h->cq_tail - h->cq_head < f->q.cq.nentries) {
		f->q.cq.cqes[h->cq_tail & (f->q.cq.nentries - 1)] = *c;
		__atomic_store_n(&h->cq_tail, h->cq_tail + 1, __ATOMIC_RELEASE);
		return;
	}
	if (f->nheld == f->held_cap) {
		f->held_cap = f->held_cap ? 2 * f->held_cap : 64;
		f->held = realloc(f->held, f->held_cap * sizeof(*f->held));
	}
	f->held[f->nheld++] = *c;
}

static void fake_flush(struct fake *f)
{
	struct drm_pto_npu_ring_header *h = fake_hdr(f);
	size_t i = 0;

	while (i < f->nheld && h->cq_tail - h->cq_head < f->q.cq.nentries) {
		f->q.cq.cqes[h->cq_tail & (f->q.cq.nentries - 1)] =
			f->held[i++];
		__atomic_store_n(&h->cq_tail, h->cq_tail + 1, __ATOMIC_RELEASE);
	}
	if (i) {
		memmove(f->held, f->held + i,
			(f->nheld - i) * sizeof(*f->held));
		f->nheld -= i;
	}
}

static struct fake_task *fake_task(struct fake *f, uint64_t id)
{
	if (id < FIRST_ID || id - FIRST_ID >= f->ntasks)
		return NULL;
	return &f->tasks[id - FIRST_ID];
}

static struct fake_task *fake_new_task(struct fake *f)
{
	if (f->ntasks == f->tasks_cap) {
		f->tasks_cap = f->tasks_cap ? 2 * f->tasks_cap : 64;
		f->tasks = realloc(f->tasks, f->tasks_cap * sizeof(*f->tasks));
	}
	f->next_id++;
	return &f->tasks[f->ntasks++];
}

/* One entry at slot index @head: decode, check, complete at once. */
static uint32_t fake_take(struct fake *f, uint32_t head)
{
	size_t pos = (size_t)(head & (f->q.sq.nslots - 1)) *
		     DRM_PTO_NPU_SQ_SLOT_SIZE;
	struct drm_pto_npu_sqe e;
	struct fake_task *t;
	int64_t scalars[PTO_MAX_ARGS] = { 0 }, deps[PTO_MAX_ARGS];
	int32_t status = DRM_PTO_NPU_STATUS_OK;
	uint64_t id = f->next_id;
	uint32_t i, b, faulty = 0;
	bool last_cancelled = false;
	size_t at;

	fake_read(f, pos, &e, sizeof(e));
	if (e.num_slots !=
	    pto_task_slots(e.num_tensors, e.num_scalars, e.num_deps,
			   e.flags & DRM_PTO_NPU_TASK_F_PREDICATE))
		f->bad_entries++;
	at = pos + sizeof(e) +
	     e.num_tensors * sizeof(struct drm_pto_npu_tensor_arg);
	fake_read(f, at, scalars, e.num_scalars * sizeof(int64_t));
	at += e.num_scalars * sizeof(int64_t);
	fake_read(f, at, deps, e.num_deps * sizeof(int64_t));

	t = fake_new_task(f);
	t->user_data = e.user_data;
	t->sqe_block_num = e.block_num;
	/* The grid sentinels, resolved as the module does at intake. */
	if (e.block_num == DRM_PTO_NPU_BLOCKS_ALL_AIV)
		e.block_num = f->dev.info.aiv_cores;
	else if (e.block_num == DRM_PTO_NPU_BLOCKS_ALL_CLUSTERS)
		e.block_num = f->dev.info.clusters;
	t->num_deps = e.num_deps;
	for (i = 0; i < e.num_deps; i++) {
		uint64_t dep = deps[i] > 0 ? (uint64_t)deps[i] :
					     id + (uint64_t)deps[i];
		struct fake_task *d = fake_task(f, dep);

		t->deps[i] = dep;
		if (!d || dep >= id)
			f->bad_entries++;
		else if (d->status != DRM_PTO_NPU_STATUS_OK)
			status = DRM_PTO_NPU_STATUS_DEP_FAILED;
	}
	if (status == DRM_PTO_NPU_STATUS_OK && e.num_scalars &&
	    scalars[0] >= FAULT_MAGIC && scalars[0] <= FAULT_CANCEL_MAGIC) {
		status = DRM_PTO_NPU_STATUS_GM_FAULT;
		faulty = scalars[0] == FAULT_MAGIC ? e.block_num - 1 : 0;
		last_cancelled = scalars[0] == FAULT_CANCEL_MAGIC;
	}
	t->status = status;

	if (f->stuck)
		return e.num_slots;
	if (status == DRM_PTO_NPU_STATUS_DEP_FAILED) {
		struct drm_pto_npu_cqe c = {
			.user_data = e.user_data,
			.task_id = id,
			.status = status,
			.flags = DRM_PTO_NPU_CQE_F_LAST,
		};

		fake_post(f, &c);
		return e.num_slots;
	}
	/*
	 * Reverse block order by default: the library sorts them back. As
	 * the module does, each CQE has its block's own status and the
	 * failing block's comes last (LAST); FAULT_CANCEL_MAGIC: the highest
	 * block was placed but never ran (CANCELLED).
	 */
	for (i = 0; i < e.block_num; i++) {
		bool last = i == e.block_num - 1, failed, ran;
		struct drm_pto_npu_cqe c;

		b = f->in_order ? i : e.block_num - 1 - i;
		if (status) {
			/* The faulting block last, the others in order. */
			b = last ? faulty : i + (i >= faulty);
		}
		failed = status && b == faulty;
		ran = !(last_cancelled && b == e.block_num - 1);
		c = (struct drm_pto_npu_cqe){
			.user_data = e.user_data,
			.task_id = id,
			.status = failed ? status :
				  ran ? 0 : DRM_PTO_NPU_STATUS_CANCELLED,
			.block = b,
			.core = (uint16_t)(b % 48),
			.core_type = PTO_CORE_AIV,
			.flags = (ran ? DRM_PTO_NPU_CQE_F_RAN : 0) |
				 (last ? DRM_PTO_NPU_CQE_F_LAST : 0),
			.detail = failed ? FAULT_DETAIL : 0,
			.ts_dispatch = id * 10 + 1,
			.ts_receive = id * 10 + 2,
			.ts_start = id * 10 + 3,
			.ts_end = id * 10 + 4,
			.ts_finish = id * 10 + 5,
		};

		fake_post(f, &c);
	}
	return e.num_slots;
}

static int fake_submit(struct pto_queue *q, uint32_t syncobj, uint64_t point,
		       uint32_t *consumed, uint64_t *first_id)
{
	struct fake *f = q->priv;
	struct drm_pto_npu_ring_header *h = fake_hdr(f);
	uint32_t tail = __atomic_load_n(&h->sq_tail, __ATOMIC_ACQUIRE);
	uint32_t head = h->sq_head, n = 0;

	(void)syncobj;
	(void)point;
	f->doorbells++;
	for (n = 0; n < f->foreign_per_doorbell; n++)
		*fake_new_task(f) = (struct fake_task){ .user_data = FOREIGN };
	n = 0;
	*first_id = f->next_id;
	while (head != tail &&
	       (!f->take_per_doorbell || n < f->take_per_doorbell) &&
	       !(f->stuck && f->ntasks >= f->stuck_cap)) {
		head += fake_take(f, head);
		n++;
	}
	__atomic_store_n(&h->sq_head, head, __ATOMIC_RELEASE);
	*consumed = n;
	return 0;
}

static int fake_wait(struct pto_queue *q, int64_t deadline_ns,
		     uint32_t *available, uint32_t *inflight)
{
	struct fake *f = q->priv;
	struct drm_pto_npu_ring_header *h = fake_hdr(f);

	fake_flush(f);
	*available = h->cq_tail - h->cq_head;
	*inflight = (uint32_t)f->nheld;
	if (*available)
		return 0;
	/* Nothing will ever come: sleep until the deadline, as the ioctl. */
	(void)deadline_ns;
	return -ETIME;
}

static const struct pto_queue_ops fake_ops = {
	.submit = fake_submit,
	.wait = fake_wait,
};

static struct fake *fake_new(uint32_t sq_slots, uint32_t cq_entries)
{
	struct fake *f = calloc(1, sizeof(*f));
	uint32_t sq_off = sizeof(struct drm_pto_npu_ring_header);
	uint32_t cq_off = sq_off + sq_slots * DRM_PTO_NPU_SQ_SLOT_SIZE;
	size_t size = cq_off + cq_entries * sizeof(struct drm_pto_npu_cqe);

	f->dev.fd = -1;
	f->dev.info = (struct pto_device_info){
		.clusters = 24,
		.aic_cores = 24,
		.aiv_cores = 48,
		.aiv_ub_size = 192 << 10,
	};
	f->dev.limits = (struct pto_limits){
		.max_tensor_args = 16,
		.max_scalar_args = 16,
		.max_deps = 32,
		.max_block_num = 8192,
		.timeout_ms = 10000,
	};
	f->mem = aligned_alloc(64, (size + 63) & ~(size_t)63);
	memset(f->mem, 0, size);
	TAP_CHECK_EQ(pto_queue_init_rings(&f->q, f->mem, size, sq_off, sq_slots,
					  cq_off, cq_entries),
		     0);
	f->q.dev = &f->dev;
	f->q.ops = &fake_ops;
	f->q.priv = f;
	f->next_id = FIRST_ID;
	return f;
}

static void fake_free(struct fake *f)
{
	free(f->tasks);
	free(f->held);
	free(f->mem);
	free(f);
}

static struct pto_kernel *fake_kernel(struct fake *f, uint32_t core,
				      uint32_t ntensors, uint32_t nscalars)
{
	struct pto_kernel *k = calloc(1, sizeof(*k));

	k->dev = &f->dev;
	k->handle = 7;
	k->core_type = core;
	k->num_tensor_args = ntensors;
	k->num_scalar_args = nscalars;
	return k;
}

static struct pto_buffer *fake_buffer(struct fake *f, size_t size,
				      uint32_t handle)
{
	struct pto_buffer *b = calloc(1, sizeof(*b));

	b->dev = &f->dev;
	b->map = calloc(1, size);
	b->size = size;
	b->handle = handle;
	return b;
}

static void free_buffer(struct pto_buffer *b)
{
	free(b->map);
	free(b);
}

static struct pto_tensor *matrix(struct pto_buffer *b, size_t offset,
				 enum pto_dtype dtype, int64_t rows,
				 int64_t cols)
{
	struct pto_tensor *t = NULL;

	TAP_CHECK_EQ(pto_tensor_view(b, offset, dtype, 2,
				     (int64_t[]){ rows, cols }, NULL, &t),
		     0);
	return t;
}

/* ------------------------------------------------------------- add */

struct add_fixture {
	struct fake *f;
	struct pto_graph *g;
	struct pto_kernel *aiv;
	struct pto_kernel *aic;
	struct pto_buffer *buf;
	struct pto_tensor *x;
	struct pto_tensor *y;
	struct pto_tensor *flags;
};

static void add_setup(struct add_fixture *a)
{
	a->f = fake_new(64, 256);
	TAP_CHECK_EQ(pto_graph_new(&a->f->dev, &a->g), 0);
	a->aiv = fake_kernel(a->f, PTO_CORE_AIV, 2, 1);
	a->aiv->arg_dtype[0] = PTO_DTYPE_F32;
	a->aiv->arg_use[0] = PTO_ARG_READ;
	a->aiv->arg_use[1] = PTO_ARG_WRITTEN;
	a->aic = fake_kernel(a->f, PTO_CORE_AIC, 1, 0);
	a->buf = fake_buffer(a->f, 1 << 20, 5);
	a->x = matrix(a->buf, 0, PTO_DTYPE_F32, 64, 128);
	a->y = matrix(a->buf, 64 * 128 * 4, PTO_DTYPE_I32, 64, 128);
	a->flags = matrix(a->buf, 2 * 64 * 128 * 4, PTO_DTYPE_I32, 1, 16);
}

static void add_teardown(struct add_fixture *a)
{
	pto_graph_free(a->g);
	pto_tensor_free(a->x);
	pto_tensor_free(a->y);
	pto_tensor_free(a->flags);
	free_buffer(a->buf);
	free(a->aiv);
	free(a->aic);
	fake_free(a->f);
}

/* A valid AIV task over x, y with one scalar and the given deps. */
static struct pto_task_desc add_desc(struct add_fixture *a,
				     struct pto_tensor **tensors,
				     const int64_t *deps, uint32_t ndeps)
{
	static const int64_t scalar = 1;

	tensors[0] = a->x;
	tensors[1] = a->y;
	return (struct pto_task_desc){
		.name = "t",
		.kernel_aiv = a->aiv,
		.block_num = 1,
		.tensors = tensors,
		.num_tensors = 2,
		.scalars = &scalar,
		.num_scalars = 1,
		.deps = deps,
		.num_deps = ndeps,
	};
}

static void expect_refused(struct add_fixture *a, const struct pto_task_desc *d,
			   int err, const char *text)
{
	unsigned int before = pto_graph_task_count(a->g);

	TAP_CHECK_EQ(pto_graph_add_task(a->g, d), err);
	TAP_CHECK_EQ(pto_graph_task_count(a->g), before);
	if (!strstr(pto_graph_error(a->g), text)) {
		printf("#   message \"%s\" lacks \"%s\"\n",
		       pto_graph_error(a->g), text);
		TAP_CHECK(!"message");
	}
}

static void add_returns_indexes_and_copies_names(void)
{
	struct add_fixture a;
	struct pto_tensor *ts[2];
	struct pto_task_desc d;
	char name[16] = "first";

	add_setup(&a);
	d = add_desc(&a, ts, NULL, 0);
	d.name = name;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 0);
	strcpy(name, "changed");
	d.name = NULL;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 1);
	TAP_CHECK_EQ(pto_graph_task_count(a.g), 2);
	TAP_CHECK(!strcmp(pto_graph_task_name(a.g, 0), "first"));
	TAP_CHECK(!strcmp(pto_graph_task_name(a.g, 1), ""));
	TAP_CHECK(!strcmp(pto_graph_task_name(a.g, 9), ""));
	TAP_CHECK_EQ(pto_graph_task_status(a.g, 0, NULL, NULL),
		     PTO_STATUS_PENDING);
	TAP_CHECK_EQ(pto_graph_first_error(a.g, NULL, 0), -ENOENT);
	TAP_CHECK_EQ(pto_graph_error(a.g)[0], '\0');
	add_teardown(&a);
}

static void add_refuses_bad_kernels(void)
{
	struct add_fixture a;
	struct pto_tensor *ts[2];
	struct pto_task_desc d;

	add_setup(&a);
	d = add_desc(&a, ts, NULL, 0);
	d.kernel_aiv = NULL;
	expect_refused(&a, &d, -EINVAL, "task 0 't': no kernel");

	d = add_desc(&a, ts, NULL, 0);
	d.kernel_aiv = a.aic;
	expect_refused(&a, &d, -EINVAL, "kernel_aiv is an AIC kernel");

	d = add_desc(&a, ts, NULL, 0);
	d.kernel_aiv = NULL;
	d.kernel_aic = a.aiv;
	expect_refused(&a, &d, -EINVAL, "kernel_aic is an AIV kernel");

	d = add_desc(&a, ts, NULL, 0);
	d.num_tensors = 1;
	expect_refused(&a, &d, -EINVAL,
		       "kernel_aiv uses 2 tensor arguments, the task passes 1");

	d = add_desc(&a, ts, NULL, 0);
	d.num_scalars = 0;
	expect_refused(&a, &d, -EINVAL,
		       "kernel_aiv uses 1 scalar arguments, the task passes 0");
	add_teardown(&a);
}

static void add_refuses_bad_counts_and_flags(void)
{
	struct add_fixture a;
	struct pto_tensor *ts[2];
	struct pto_task_desc d;

	add_setup(&a);
	d = add_desc(&a, ts, NULL, 0);
	d.block_num = 0;
	expect_refused(&a, &d, -EINVAL, "block_num is 0");

	d.block_num = 8193;
	expect_refused(&a, &d, -E2BIG, "block_num 8193 over the device's 8192");

	d = add_desc(&a, ts, NULL, 0);
	d.flags = 1U << 5;
	expect_refused(&a, &d, -EINVAL, "unknown flags 0x20");

	d = add_desc(&a, ts, NULL, 0);
	d.flags = PTO_TASK_SYNC_START;
	d.block_num = 49;
	expect_refused(
		&a, &d, -EINVAL,
		"sync_start with 49 blocks: the device holds 48 at once");
	d.block_num = 48;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 0);

	d = add_desc(&a, ts, NULL, 0);
	d.num_scalars = 17;
	expect_refused(&a, &d, -E2BIG, "17 scalars, at most 16");

	d = add_desc(&a, ts, NULL, 0);
	d.scalars = NULL;
	expect_refused(&a, &d, -EINVAL, "its array is NULL");
	add_teardown(&a);
}

static void add_refuses_bad_tensors(void)
{
	struct add_fixture a;
	struct pto_tensor *ts[2], *bcast = NULL;
	struct pto_task_desc d;
	struct fake *other = fake_new(16, 16);
	struct pto_buffer *ob = fake_buffer(other, 4096, 9);

	add_setup(&a);
	d = add_desc(&a, ts, NULL, 0);
	ts[0] = a.y; /* the kernel loads tensor 0 as f32 */
	expect_refused(&a, &d, -EINVAL,
		       "tensor 0 is i32 but the AIV kernel uses it as f32");

	d = add_desc(&a, ts, NULL, 0);
	ts[1] = NULL;
	expect_refused(&a, &d, -EINVAL, "tensor 1 is NULL");

	d = add_desc(&a, ts, NULL, 0);
	ts[1] = matrix(ob, 0, PTO_DTYPE_I32, 1, 4);
	expect_refused(&a, &d, -EINVAL, "tensor 1 lives on another device");
	pto_tensor_free(ts[1]);

	TAP_CHECK_EQ(pto_tensor_view(a.buf, 0, PTO_DTYPE_F32, 2,
				     (int64_t[]){ 4, 4 }, (int64_t[]){ 0, 0 },
				     &bcast),
		     0);
	d = add_desc(&a, ts, NULL, 0);
	ts[0] = bcast;
	expect_refused(&a, &d, -EINVAL, "tensor 0: all-zero strides");
	pto_tensor_free(bcast);

	free_buffer(ob);
	fake_free(other);
	add_teardown(&a);
}

static void add_refuses_deps_not_on_earlier_tasks(void)
{
	struct add_fixture a;
	struct pto_tensor *ts[2];
	struct pto_task_desc d;
	int64_t deps[4];

	add_setup(&a);
	d = add_desc(&a, ts, NULL, 0);
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 0);
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 1);

	deps[0] = 2; /* itself */
	d = add_desc(&a, ts, deps, 1);
	expect_refused(
		&a, &d, -EINVAL,
		"task 2 't': dependency 0 is 2: not an earlier task (0..1)");
	deps[0] = 0;
	deps[1] = 5;
	d = add_desc(&a, ts, deps, 2);
	expect_refused(&a, &d, -EINVAL, "dependency 1 is 5");
	deps[1] = -1;
	expect_refused(&a, &d, -EINVAL, "dependency 1 is -1");

	/* repeats are dropped */
	deps[0] = 1;
	deps[1] = 0;
	deps[2] = 1;
	deps[3] = 0;
	d = add_desc(&a, ts, deps, 4);
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 2);
	add_teardown(&a);
}

static void add_checks_predicates(void)
{
	struct add_fixture a;
	struct pto_tensor *ts[3], *elsewhere;
	struct pto_predicate p = {
		.tensor = 2, .op = PTO_CMP_GT, .row = 0, .col = 3, .literal = 0
	};
	struct pto_task_desc d;
	int64_t dep = 0;

	add_setup(&a);
	/* task 0 writes flags through its tensor 1 */
	d = add_desc(&a, ts, NULL, 0);
	ts[1] = a.flags;
	d.name = "producer";
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 0);

	d = add_desc(&a, ts, NULL, 0);
	ts[2] = a.flags;
	d.num_tensors = 3;
	d.predicate = &p;
	expect_refused(
		&a, &d, -EINVAL,
		"the predicate's operand is written by task 0 'producer' (its tensor 1), which is not a dependency");

	d.deps = &dep;
	d.num_deps = 1;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 1);

	/* an element the producer does not write needs no dependency */
	elsewhere = matrix(a.buf, 3 * 64 * 128 * 4, PTO_DTYPE_I64, 2, 4);
	ts[2] = elsewhere;
	d.deps = NULL;
	d.num_deps = 0;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 2);

	p.row = 2;
	expect_refused(&a, &d, -EINVAL,
		       "predicate element [2, 3] outside tensor 2's 2x4 view");
	p.row = 0;
	p.op = (enum pto_cmp)6;
	expect_refused(&a, &d, -EINVAL, "unknown predicate comparison 6");
	p.op = PTO_CMP_EQ;
	ts[2] = a.x;
	expect_refused(
		&a, &d, -EINVAL,
		"predicate on tensor 2 of dtype f32: the operand must be a signed integer");
	p.tensor = 3;
	expect_refused(&a, &d, -EINVAL, "predicate on tensor 3 of 3");
	pto_tensor_free(elsewhere);
	add_teardown(&a);
}

/* ------------------------------------------------------------- run */

struct run_fixture {
	struct fake *f;
	struct pto_graph *g;
	struct pto_kernel *k;
	struct pto_buffer *buf;
	struct pto_tensor *x;
};

static void run_setup(struct run_fixture *r, uint32_t sq, uint32_t cq)
{
	r->f = fake_new(sq, cq);
	TAP_CHECK_EQ(pto_graph_new(&r->f->dev, &r->g), 0);
	r->k = fake_kernel(r->f, PTO_CORE_AIV, 1, 1);
	r->buf = fake_buffer(r->f, 1 << 16, 3);
	r->x = matrix(r->buf, 0, PTO_DTYPE_F32, 64, 128);
}

static void run_teardown(struct run_fixture *r)
{
	pto_graph_free(r->g);
	pto_tensor_free(r->x);
	free_buffer(r->buf);
	free(r->k);
	fake_free(r->f);
}

static int run_add(struct run_fixture *r, const char *name, uint32_t blocks,
		   int64_t scalar, const int64_t *deps, uint32_t ndeps)
{
	struct pto_tensor *ts[1] = { r->x };
	struct pto_task_desc d = {
		.name = name,
		.kernel_aiv = r->k,
		.block_num = blocks,
		.tensors = ts,
		.num_tensors = 1,
		.scalars = &scalar,
		.num_scalars = 1,
		.deps = deps,
		.num_deps = ndeps,
	};

	return pto_graph_add_task(r->g, &d);
}

/* Every entry the fake took names the graph's dependencies. */
static void check_deps_seen(struct run_fixture *r, const int64_t (*deps)[3],
			    const uint32_t *ndeps, size_t n)
{
	size_t i = 0, k, j;

	TAP_CHECK_EQ(r->f->bad_entries, 0);
	for (k = 0; k < r->f->ntasks; k++) {
		const struct fake_task *t = &r->f->tasks[k];

		if (t->user_data == FOREIGN)
			continue;
		TAP_CHECK(i < n);
		if (i >= n)
			break;
		TAP_CHECK_EQ(t->user_data & UINT32_MAX, i);
		TAP_CHECK_EQ(t->num_deps, ndeps[i]);
		for (j = 0; j < t->num_deps && j < ndeps[i]; j++)
			TAP_CHECK_EQ(fake_task(r->f, t->deps[j])->user_data,
				     (uint64_t)r->f->q.run_seq << 32 |
					     (uint64_t)deps[i][j]);
		i++;
	}
	TAP_CHECK_EQ(i, n);
}

static void run_streams_through_small_rings(void)
{
	enum { N = 60, BLOCKS = 3 };
	struct run_fixture r;
	int64_t deps[N][3];
	uint32_t ndeps[N];
	const struct pto_block_info *b;
	unsigned int nb, i, k;
	char msg[64];

	/* 8 SQ slots (3 per entry), CQ of 4: both rings fill up. */
	run_setup(&r, 8, 4);
	r.f->take_per_doorbell = 3;
	for (i = 0; i < N; i++) {
		ndeps[i] = 0;
		if (i >= 1)
			deps[i][ndeps[i]++] = i - 1;
		if (i >= 7)
			deps[i][ndeps[i]++] = i - 7;
		if (i >= 30 && i % 5 == 0)
			deps[i][ndeps[i]++] = 2;
		snprintf(msg, sizeof(msg), "task_%u", i);
		TAP_CHECK_EQ(run_add(&r, msg, BLOCKS, i, deps[i], ndeps[i]),
			     (int)i);
	}
	TAP_CHECK_EQ(pto_graph_run(r.g, &r.f->q, 0), 0);
	TAP_CHECK_EQ(pto_graph_error(r.g)[0], '\0');
	TAP_CHECK(r.f->doorbells >= N / 3);
	check_deps_seen(&r, (const int64_t(*)[3])deps, ndeps, N);

	for (i = 0; i < N; i++) {
		TAP_CHECK_EQ(pto_graph_task_status(r.g, i, NULL, NULL),
			     PTO_STATUS_OK);
		TAP_CHECK_EQ(pto_graph_task_id(r.g, i), FIRST_ID + i);
		TAP_CHECK_EQ(pto_graph_task_blocks(r.g, i, &b, &nb), 0);
		TAP_CHECK_EQ(nb, BLOCKS);
		for (k = 0; k < nb; k++) {
			TAP_CHECK_EQ(b[k].block, k);
			TAP_CHECK_EQ(b[k].core_type, PTO_CORE_AIV);
			TAP_CHECK(b[k].flags & PTO_BLOCK_RAN);
			TAP_CHECK_EQ(b[k].ts_start, (FIRST_ID + i) * 10 + 3);
		}
		TAP_CHECK(b[0].flags & PTO_BLOCK_LAST);
	}
	TAP_CHECK_EQ(pto_graph_first_error(r.g, msg, sizeof(msg)), -ENOENT);
	TAP_CHECK_EQ(msg[0], '\0');
	run_teardown(&r);
}

/* Other queues' entries between doorbells do not shift dependencies. */
static void run_deps_hold_with_other_queues(void)
{
	enum { N = 40 };
	struct run_fixture r;
	int64_t deps[N][3];
	uint32_t ndeps[N];
	unsigned int i;

	run_setup(&r, 32, 8);
	r.f->take_per_doorbell = 3; /* of ten that fit: the rest withdrawn */
	r.f->foreign_per_doorbell = 5;
	for (i = 0; i < N; i++) {
		ndeps[i] = 0;
		if (i >= 1)
			deps[i][ndeps[i]++] = i - 1;
		if (i >= 2)
			deps[i][ndeps[i]++] = i - 2;
		if (i >= 11)
			deps[i][ndeps[i]++] = i - 11;
		TAP_CHECK_EQ(run_add(&r, NULL, 2, 0, deps[i], ndeps[i]),
			     (int)i);
	}
	TAP_CHECK_EQ(pto_graph_run(r.g, &r.f->q, 0), 0);
	check_deps_seen(&r, (const int64_t(*)[3])deps, ndeps, N);
	TAP_CHECK(pto_graph_task_id(r.g, N - 1) - pto_graph_task_id(r.g, 0) >
		  N - 1);
	run_teardown(&r);
}

static void run_reports_the_first_failure(void)
{
	struct run_fixture r;
	int64_t dep;
	char msg[128], name[32];
	int reason, i;
	uint64_t detail;

	run_setup(&r, 16, 16);
	for (i = 0; i < 8; i++) {
		dep = i - 1;
		snprintf(name, sizeof(name), "exp_chain_%d", i);
		TAP_CHECK_EQ(run_add(&r, name, 1, i == 3 ? FAULT_MAGIC : 0,
				     &dep, i ? 1 : 0),
			     i);
	}
	/* independent of the chain: still runs */
	TAP_CHECK_EQ(run_add(&r, "side", 1, 0, NULL, 0), 8);

	TAP_CHECK_EQ(pto_graph_run(r.g, &r.f->q, 0), -EIO);
	TAP_CHECK_EQ(pto_graph_first_error(r.g, msg, sizeof(msg)), 3);
	TAP_CHECK(!strcmp(
		msg,
		"task 3 'exp_chain_3': GM fault on tensor 1 at element 8192"));
	TAP_CHECK(!strcmp(pto_graph_error(r.g), msg));
	for (i = 0; i < 3; i++)
		TAP_CHECK_EQ(pto_graph_task_status(r.g, i, NULL, NULL),
			     PTO_STATUS_OK);
	TAP_CHECK_EQ(pto_graph_task_status(r.g, 3, &reason, &detail),
		     PTO_STATUS_GM_FAULT);
	TAP_CHECK_EQ(detail, FAULT_DETAIL);
	for (i = 4; i < 8; i++)
		TAP_CHECK_EQ(pto_graph_task_status(r.g, i, NULL, NULL),
			     PTO_STATUS_DEP_FAILED);
	TAP_CHECK_EQ(pto_graph_task_status(r.g, 8, NULL, NULL), PTO_STATUS_OK);
	run_teardown(&r);
}

static void run_names_the_faulting_block(void)
{
	struct run_fixture r;
	const struct pto_block_info *b;
	unsigned int nb;
	char msg[128];

	run_setup(&r, 16, 64);
	TAP_CHECK_EQ(run_add(&r, "spmd", 8, FAULT_MAGIC, NULL, 0), 0);
	TAP_CHECK_EQ(pto_graph_run(r.g, &r.f->q, 0), -EIO);
	TAP_CHECK_EQ(pto_graph_first_error(r.g, msg, sizeof(msg)), 0);
	TAP_CHECK(!strcmp(
		msg,
		"task 0 'spmd' block 7: GM fault on tensor 1 at element 8192"));
	TAP_CHECK_EQ(pto_graph_task_blocks(r.g, 0, &b, &nb), 0);
	TAP_CHECK_EQ(nb, 8);
	TAP_CHECK_EQ(b[7].status, PTO_STATUS_GM_FAULT);
	TAP_CHECK_EQ(b[6].status, PTO_STATUS_OK);
	/* The faulting block's CQE is the task's (LAST); block 0 ran OK. */
	TAP_CHECK(b[7].flags & PTO_BLOCK_LAST);
	TAP_CHECK_EQ(b[0].status, PTO_STATUS_OK);
	run_teardown(&r);
}

/*
 * Each block reads its own status, CQEs in the module's order (each its
 * own status, the failing block's LAST): the block that faulted its
 * fault, the others OK; a block placed that never ran CANCELLED; never
 * the other block's GM_FAULT.
 */
static void run_blocks_read_their_own_status(void)
{
	static const struct {
		const char *name;
		int64_t scalar;
		int status[2];
		uint64_t detail[2];
	} want[] = {
		{ "block1_faults", FAULT_MAGIC,
		  { PTO_STATUS_OK, PTO_STATUS_GM_FAULT }, { 0, FAULT_DETAIL } },
		{ "block0_faults", FAULT_BLOCK0_MAGIC,
		  { PTO_STATUS_GM_FAULT, PTO_STATUS_OK },
		  { FAULT_DETAIL, 0 } },
		{ "block1_cancelled", FAULT_CANCEL_MAGIC,
		  { PTO_STATUS_GM_FAULT, PTO_STATUS_CANCELLED },
		  { FAULT_DETAIL, 0 } },
		{ "ok", 0, { PTO_STATUS_OK, PTO_STATUS_OK }, { 0, 0 } },
	};
	struct run_fixture r;
	const struct pto_block_info *b;
	uint64_t detail;
	unsigned int nb, i, k;
	char msg[128];

	run_setup(&r, 16, 64);
	r.f->in_order = true;
	for (i = 0; i < PTO_ARRAY_SIZE(want); i++)
		TAP_CHECK_EQ(run_add(&r, want[i].name, 2, want[i].scalar, NULL,
				     0),
			     (int)i);
	TAP_CHECK_EQ(pto_graph_run(r.g, &r.f->q, 0), -EIO);
	for (i = 0; i < PTO_ARRAY_SIZE(want); i++) {
		/* The task's own status is untouched. */
		TAP_CHECK_EQ(pto_graph_task_status(r.g, i, NULL, &detail),
			     want[i].scalar ? PTO_STATUS_GM_FAULT :
					      PTO_STATUS_OK);
		TAP_CHECK_EQ(detail, want[i].scalar ? FAULT_DETAIL : 0);
		TAP_CHECK_EQ(pto_graph_task_blocks(r.g, i, &b, &nb), 0);
		TAP_CHECK_EQ(nb, 2);
		for (k = 0; k < nb && k < 2; k++) {
			TAP_CHECK_EQ(b[k].block, k);
			TAP_CHECK_EQ(b[k].status, want[i].status[k]);
			TAP_CHECK_EQ(b[k].detail, want[i].detail[k]);
			if (b[k].status != want[i].status[k])
				printf("#   task %u block %u: %s, want %s\n", i,
				       k, pto_status_name(b[k].status),
				       pto_status_name(want[i].status[k]));
		}
		/* LAST: the faulting block's record, else the highest. */
		TAP_CHECK(b[want[i].scalar == FAULT_MAGIC || !want[i].scalar ?
			    1 : 0].flags & PTO_BLOCK_LAST);
	}
	TAP_CHECK_EQ(pto_graph_first_error(r.g, msg, sizeof(msg)), 0);
	TAP_CHECK(!strcmp(
		msg,
		"task 0 'block1_faults' block 1: GM fault on tensor 1 at element 8192"));
	run_teardown(&r);
}

static void run_again_ignores_stale_completions(void)
{
	struct run_fixture r;
	struct drm_pto_npu_cqe stale = {
		.status = DRM_PTO_NPU_STATUS_GM_FAULT,
		.flags = DRM_PTO_NPU_CQE_F_LAST,
	};
	const struct pto_block_info *b;
	unsigned int nb;
	int64_t dep = 0;

	run_setup(&r, 16, 16);
	TAP_CHECK_EQ(run_add(&r, "a", 2, 0, NULL, 0), 0);
	TAP_CHECK_EQ(run_add(&r, "b", 2, 0, &dep, 1), 1);
	TAP_CHECK_EQ(pto_graph_run(r.g, &r.f->q, 0), 0);
	/* a late completion of the first run, naming task 1 */
	stale.user_data = (uint64_t)r.f->q.run_seq << 32 | 1;
	fake_post(r.f, &stale);
	TAP_CHECK_EQ(pto_graph_run(r.g, &r.f->q, 0), 0);
	TAP_CHECK_EQ(pto_graph_task_status(r.g, 1, NULL, NULL), PTO_STATUS_OK);
	TAP_CHECK_EQ(pto_graph_task_blocks(r.g, 1, &b, &nb), 0);
	TAP_CHECK_EQ(nb, 2);
	TAP_CHECK_EQ(pto_graph_task_id(r.g, 1), FIRST_ID + 3);
	/* the second run's dependency is the second run's task 0 */
	TAP_CHECK_EQ(r.f->tasks[3].deps[0], FIRST_ID + 2);
	run_teardown(&r);
}

static void run_times_out_and_withdraws(void)
{
	struct run_fixture r;
	int64_t t0;
	int i;

	run_setup(&r, 8, 16);
	r.f->stuck = true;
	r.f->stuck_cap = 3;
	r.f->take_per_doorbell = 2;
	for (i = 0; i < 10; i++)
		TAP_CHECK_EQ(run_add(&r, "stuck", 1, 0, NULL, 0), i);
	t0 = pto_time_ns();
	TAP_CHECK_EQ(pto_graph_run(r.g, &r.f->q, 20 * 1000 * 1000), -ETIME);
	TAP_CHECK(pto_time_ns() - t0 >= 20 * 1000 * 1000);
	TAP_CHECK(strstr(pto_graph_error(r.g), "timed out") != NULL);
	for (i = 0; i < 10; i++)
		TAP_CHECK_EQ(pto_graph_task_status(r.g, i, NULL, NULL),
			     PTO_STATUS_PENDING);
	/* three taken; nothing left published for a later doorbell */
	TAP_CHECK_EQ(r.f->ntasks, 3);
	TAP_CHECK_EQ(pto_graph_task_id(r.g, 2), FIRST_ID + 2);
	TAP_CHECK_EQ(pto_graph_task_id(r.g, 3), 0);
	TAP_CHECK_EQ(fake_hdr(r.f)->sq_tail, fake_hdr(r.f)->sq_head);
	TAP_CHECK_EQ(pto_graph_first_error(r.g, NULL, 0), 0);
	run_teardown(&r);
}

static void run_refuses_a_busy_or_foreign_queue(void)
{
	struct run_fixture r;
	struct fake *other = fake_new(8, 8);
	uint8_t raw[64] = { 0 };

	run_setup(&r, 8, 8);
	TAP_CHECK_EQ(run_add(&r, "x", 1, 0, NULL, 0), 0);
	TAP_CHECK_EQ(pto_graph_run(r.g, &other->q, 0), -EINVAL);
	TAP_CHECK_EQ(pto_queue_push_raw(&r.f->q, raw, sizeof(raw)), 0);
	TAP_CHECK_EQ(pto_graph_run(r.g, &r.f->q, 0), -EBUSY);
	TAP_CHECK(strstr(pto_graph_error(r.g), "doorbell") != NULL);
	fake_free(other);
	run_teardown(&r);
}

static void run_ten_thousand_tasks(void)
{
	enum { N = 10000 };
	struct run_fixture r;
	int64_t deps[2];
	unsigned int i;

	run_setup(&r, 1024, 4096);
	r.f->take_per_doorbell = 100;
	for (i = 0; i < N; i++) {
		uint32_t n = 0;

		if (i)
			deps[n++] = i - 1;
		if (i >= 1000)
			deps[n++] = i - 1000;
		TAP_CHECK_EQ(run_add(&r, NULL, 1 + i % 4, 0, deps, n), (int)i);
	}
	TAP_CHECK_EQ(pto_graph_run(r.g, &r.f->q, 0), 0);
	TAP_CHECK_EQ(r.f->bad_entries, 0);
	for (i = 1000; i < N; i += 997) {
		const struct fake_task *t = &r.f->tasks[i];

		TAP_CHECK_EQ(t->num_deps, 2);
		TAP_CHECK_EQ(t->deps[0], FIRST_ID + i - 1);
		TAP_CHECK_EQ(t->deps[1], FIRST_ID + i - 1000);
	}
	run_teardown(&r);
}

/* ------------------------------------------------------------- infer */

/* Task @idx's dependencies are exactly @want (inferred: @inf each). */
static void expect_deps(const struct pto_graph *g, unsigned int idx,
			const uint32_t *want, const uint8_t *inf, int n)
{
	uint32_t deps[8];
	uint8_t got_inf[8];
	int i, got = pto_graph_task_deps(g, idx, deps, got_inf, 8);

	TAP_CHECK_EQ(got, n);
	for (i = 0; i < n && i < got; i++) {
		TAP_CHECK_EQ(deps[i], want[i]);
		TAP_CHECK_EQ(got_inf[i], inf[i]);
	}
}

static void add_infers_deps_from_directions(void)
{
	struct add_fixture a;
	struct pto_tensor *ts[2], *x2;
	struct pto_task_desc d;
	uint8_t dirs[2];
	int64_t dep = 2;

	add_setup(&a);
	x2 = matrix(a.buf, 3 * 64 * 128 * 4, PTO_DTYPE_F32, 64, 128);
	d = add_desc(&a, ts, NULL, 0);
	d.tensor_dirs = dirs;
	/* 0: reads x, writes y. */
	dirs[0] = PTO_ARG_IN;
	dirs[1] = PTO_ARG_OUT;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 0);
	/* 1: the same: y write-after-write on 0 (x: both only read). */
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 1);
	/* 2: writes x (after 0's and 1's reads), reads y (1's write; 0's is covered). */
	dirs[0] = PTO_ARG_OUT;
	dirs[1] = PTO_ARG_IN;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 2);
	/* 3: no directions: nothing inferred. */
	d.tensor_dirs = NULL;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 3);
	/* 4: names 2, which it would also infer (x read-after-write): one edge. */
	d.tensor_dirs = dirs;
	dirs[0] = PTO_ARG_IN;
	dirs[1] = 0;
	d.deps = &dep;
	d.num_deps = 1;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 4);
	/* 5: INOUT on a range nobody touched. */
	ts[0] = x2;
	dirs[0] = PTO_ARG_INOUT;
	d.deps = NULL;
	d.num_deps = 0;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 5);
	/*
	 * 6: x INOUT: after 2's write and 4's read (2 is also 4's producer:
	 * transitively redundant edges are kept, as the device links them);
	 * 5 is elsewhere.
	 */
	ts[0] = a.x;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 6);

	expect_deps(a.g, 0, NULL, NULL, 0);
	expect_deps(a.g, 1, (uint32_t[]){ 0 }, (uint8_t[]){ 1 }, 1);
	expect_deps(a.g, 2, (uint32_t[]){ 0, 1 }, (uint8_t[]){ 1, 1 }, 2);
	expect_deps(a.g, 3, NULL, NULL, 0);
	expect_deps(a.g, 4, (uint32_t[]){ 2 }, (uint8_t[]){ 0 }, 1);
	expect_deps(a.g, 5, NULL, NULL, 0);
	expect_deps(a.g, 6, (uint32_t[]){ 2, 4 }, (uint8_t[]){ 1, 1 }, 2);
	/* Bad arguments; a count without room. */
	TAP_CHECK_EQ(pto_graph_task_deps(a.g, 7, NULL, NULL, 0), -EINVAL);
	TAP_CHECK_EQ(pto_graph_task_deps(NULL, 0, NULL, NULL, 0), -EINVAL);
	TAP_CHECK_EQ(pto_graph_task_deps(a.g, 2, NULL, NULL, 1), -EINVAL);
	TAP_CHECK_EQ(pto_graph_task_deps(a.g, 2, NULL, NULL, 0), 2);
	pto_tensor_free(x2);
	add_teardown(&a);
}

static void add_refuses_bad_directions(void)
{
	struct add_fixture a;
	struct pto_tensor *ts[2];
	struct pto_task_desc d;
	uint8_t dirs[2] = { PTO_ARG_IN, 4 };

	add_setup(&a);
	d = add_desc(&a, ts, NULL, 0);
	d.tensor_dirs = dirs;
	expect_refused(&a, &d, -EINVAL, "tensor 1: direction 0x4");
	dirs[1] = 0x80;
	expect_refused(&a, &d, -EINVAL, "direction 0x80");
	/* The queue refuses it too, before writing anything. */
	TAP_CHECK_EQ(pto_queue_push_task(&a.f->q, &d), -EINVAL);
	add_teardown(&a);
}

static void deps_json_marks_inferred_edges(void)
{
	char path[] = "/tmp/pto-infer-XXXXXX", text[8192];
	struct add_fixture a;
	struct pto_tensor *ts[2];
	struct pto_task_desc d;
	uint8_t dirs[2] = { PTO_ARG_IN, PTO_ARG_OUT };
	int64_t dep = 0;
	size_t n;
	FILE *f;
	int fd;

	add_setup(&a);
	d = add_desc(&a, ts, NULL, 0);
	d.tensor_dirs = dirs;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 0);
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 1);
	d.tensor_dirs = NULL;
	d.deps = &dep;
	d.num_deps = 1;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 2);
	fd = mkstemp(path);
	TAP_CHECK(fd >= 0);
	close(fd);
	TAP_CHECK_EQ(pto_graph_write_deps(a.g, path), 0);
	f = fopen(path, "r");
	TAP_CHECK(f != NULL);
	n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	text[n] = '\0';
	if (f)
		fclose(f);
	unlink(path);
	TAP_CHECK(strstr(text, "{\"pred\": 0, \"succ\": 1, \"inferred\": true}") != NULL);
	TAP_CHECK(strstr(text, "{\"pred\": 0, \"succ\": 2}") != NULL);
	TAP_CHECK(strstr(text, "\"dir\": \"in\"") != NULL);
	TAP_CHECK(strstr(text, "\"dir\": \"out\"") != NULL);
	add_teardown(&a);
}

/*
 * HardSyncallOccupancy at build time: the grid of a HARD launch is sized
 * from the device (PTO_GRID_ALL_AIV / _ALL_CLUSTERS); a literal, even one
 * that matches this device, is refused, the message naming the sentinel.
 */
static void add_checks_hard_syncall_grid(void)
{
	struct add_fixture a;
	struct pto_tensor *ts[2];
	struct pto_task_desc d;

	add_setup(&a);
	a.aiv->hard_sync = PTO_SYNC_AIV;
	d = add_desc(&a, ts, NULL, 0);
	d.flags = PTO_TASK_SYNC_START;
	d.block_num = 48;
	expect_refused(&a, &d, -EINVAL,
		       "not a literal 48 blocks: a literal that matches today's device breaks on another; use block_num = PTO_GRID_ALL_AIV (an AIV launch, PTO_SYNC_AIV)");
	d.block_num = 47;
	expect_refused(&a, &d, -EINVAL, "HardSyncallOccupancy");
	d.block_num = PTO_GRID_ALL_CLUSTERS;
	expect_refused(&a, &d, -EINVAL,
		       "not a grid of 24 blocks: a literal that matches today's device breaks on another; use block_num = PTO_GRID_ALL_AIV");
	d.block_num = PTO_GRID_ALL_AIV;
	d.flags = 0;
	expect_refused(&a, &d, -EINVAL, "needs PTO_TASK_SYNC_START");
	d.flags = PTO_TASK_SYNC_START;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 0);

	a.aic->hard_sync = PTO_SYNC_AIC;
	d = (struct pto_task_desc){ .kernel_aic = a.aic, .block_num = 24,
				    .flags = PTO_TASK_SYNC_START,
				    .tensors = ts, .num_tensors = 1 };
	expect_refused(&a, &d, -EINVAL,
		       "use block_num = PTO_GRID_ALL_CLUSTERS (an AIC launch)");
	d.block_num = PTO_GRID_ALL_CLUSTERS;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 1);

	/* Without a HARD syncall, a sentinel is just the device's count. */
	a.aiv->hard_sync = 0;
	d = add_desc(&a, ts, NULL, 0);
	d.block_num = PTO_GRID_ALL_AIV;
	d.flags = PTO_TASK_SYNC_START;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 2);
	d.block_num = PTO_GRID_ALL_CLUSTERS;
	d.flags = 0;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 3);
	add_teardown(&a);
}

/* A SOFT syncall's workspace: at least 16 int32 elements. */
static void add_checks_soft_workspace(void)
{
	struct add_fixture a;
	struct pto_tensor *ts[2], *small;
	struct pto_task_desc d;

	add_setup(&a);
	a.aiv->soft_ws[1] = true;
	a.aiv->arg_dtype[1] = PTO_DTYPE_I32;
	d = add_desc(&a, ts, NULL, 0);
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 0);
	small = matrix(a.buf, 3 * 64 * 128 * 4, PTO_DTYPE_I32, 3, 5);
	ts[1] = small;
	expect_refused(&a, &d, -EINVAL,
		       "tensor 1 is a SOFT syncall workspace of 15 elements: it needs 16 int32");
	ts[1] = a.flags;
	TAP_CHECK_EQ(pto_graph_add_task(a.g, &d), 1);
	pto_tensor_free(small);
	add_teardown(&a);
}

/* A grid sentinel goes to the device as is; the blocks come back resolved. */
static void run_sends_grid_sentinels(void)
{
	const struct pto_block_info *b;
	struct run_fixture r;
	unsigned int n = 0, i;

	run_setup(&r, 16, 256);
	TAP_CHECK_EQ(run_add(&r, "all_aiv", PTO_GRID_ALL_AIV, 0, NULL, 0), 0);
	TAP_CHECK_EQ(run_add(&r, "all_clusters", PTO_GRID_ALL_CLUSTERS, 0,
			     NULL, 0), 1);
	TAP_CHECK_EQ(run_add(&r, "literal", 5, 0, NULL, 0), 2);
	TAP_CHECK_EQ(pto_graph_run(r.g, &r.f->q, 0), 0);
	TAP_CHECK_EQ(r.f->ntasks, 3);
	TAP_CHECK_EQ(r.f->tasks[0].sqe_block_num, DRM_PTO_NPU_BLOCKS_ALL_AIV);
	TAP_CHECK_EQ(r.f->tasks[1].sqe_block_num,
		     DRM_PTO_NPU_BLOCKS_ALL_CLUSTERS);
	TAP_CHECK_EQ(r.f->tasks[2].sqe_block_num, 5);
	TAP_CHECK_EQ(pto_graph_task_blocks(r.g, 0, &b, &n), 0);
	TAP_CHECK_EQ(n, 48);
	for (i = 0; i < n; i++)
		TAP_CHECK_EQ(b[i].block, i);
	TAP_CHECK_EQ(pto_graph_task_blocks(r.g, 1, &b, &n), 0);
	TAP_CHECK_EQ(n, 24);
	TAP_CHECK_EQ(pto_graph_task_blocks(r.g, 2, &b, &n), 0);
	TAP_CHECK_EQ(n, 5);
	run_teardown(&r);
}

static void status_and_reason_names(void)
{
	TAP_CHECK(!strcmp(pto_status_name(PTO_STATUS_OK), "OK"));
	TAP_CHECK(!strcmp(pto_status_name(PTO_STATUS_GM_FAULT), "GM_FAULT"));
	TAP_CHECK(!strcmp(pto_status_name(PTO_STATUS_PENDING), "PENDING"));
	TAP_CHECK(!strcmp(pto_status_name(PTO_STATUS_UNREPORTED),
			  "UNREPORTED"));
	TAP_CHECK(!strcmp(pto_status_name(PTO_STATUS_NOMEM), "NOMEM"));
	TAP_CHECK(!strcmp(pto_status_name(PTO_STATUS_WORK_BUDGET), "WORK_BUDGET"));
	TAP_CHECK(!strcmp(pto_status_name(PTO_STATUS_WORKSPACE), "WORKSPACE"));
	TAP_CHECK(!strcmp(pto_status_name(13), "UNKNOWN"));
	TAP_CHECK(!strcmp(pto_status_name(-3), "UNKNOWN"));
	TAP_CHECK(!strcmp(pto_reason_name(PTO_REASON_TENSOR_RANGE),
			  "TENSOR_RANGE"));
	TAP_CHECK(
		!strcmp(pto_reason_name(PTO_REASON_SYNC_START), "SYNC_START"));
	TAP_CHECK(!strcmp(pto_reason_name(PTO_REASON_SLOT_BUDGET),
			  "SLOT_BUDGET"));
	TAP_CHECK(!strcmp(pto_reason_name(PTO_REASON_SYNCALL), "SYNCALL"));
	TAP_CHECK(!strcmp(pto_reason_name(PTO_REASON_INFERRED_DEPS),
			  "INFERRED_DEPS"));
	TAP_CHECK(!strcmp(pto_reason_name(PTO_REASON_GRAPH), "GRAPH"));
	TAP_CHECK(!strcmp(pto_reason_name(PTO_REASON_BINDING), "BINDING"));
	TAP_CHECK(!strcmp(pto_reason_name(22), "UNKNOWN"));
	TAP_CHECK_EQ(PTO_GM_FAULT_TENSOR(FAULT_DETAIL), 1);
	TAP_CHECK_EQ(PTO_GM_FAULT_ELEMENT(FAULT_DETAIL), 8192);
}

TAP_MAIN(TAP_TEST(add_returns_indexes_and_copies_names),
	 TAP_TEST(add_refuses_bad_kernels),
	 TAP_TEST(add_refuses_bad_counts_and_flags),
	 TAP_TEST(add_refuses_bad_tensors),
	 TAP_TEST(add_refuses_deps_not_on_earlier_tasks),
	 TAP_TEST(add_checks_predicates),
	 TAP_TEST(add_infers_deps_from_directions),
	 TAP_TEST(add_refuses_bad_directions),
	 TAP_TEST(deps_json_marks_inferred_edges),
	 TAP_TEST(run_streams_through_small_rings),
	 TAP_TEST(run_deps_hold_with_other_queues),
	 TAP_TEST(run_reports_the_first_failure),
	 TAP_TEST(run_names_the_faulting_block),
	 TAP_TEST(run_blocks_read_their_own_status),
	 TAP_TEST(run_again_ignores_stale_completions),
	 TAP_TEST(run_times_out_and_withdraws),
	 TAP_TEST(run_refuses_a_busy_or_foreign_queue),
	 TAP_TEST(run_ten_thousand_tasks), TAP_TEST(add_checks_hard_syncall_grid),
	 TAP_TEST(add_checks_soft_workspace),
	 TAP_TEST(run_sends_grid_sentinels), TAP_TEST(status_and_reason_names))
