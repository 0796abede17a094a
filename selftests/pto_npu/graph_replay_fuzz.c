// SPDX-License-Identifier: GPL-2.0-only
/*
 * Graph replay (uapi 7), the graph's and the launch's edges: what
 * GRAPH_CREATE, GRAPH_DESTROY and a launch entry refuse, and what the
 * device survives.
 *
 *  - GRAPH_CREATE, one test per refused field: -EINVAL with error_reason
 *    0 and error_node ~0 for the ioctl's own fields; a refused node with
 *    the reason a CQE would carry (GRAPH for dependencies or a nested
 *    launch), error_node = the node; a bad edge (GRAPH) or binding
 *    (BINDING), error_node = its index; -EFAULT; -ENOSPC past the
 *    context's recorded nodes; GRAPH_DESTROY's -EINVAL and -ENOENT; the
 *    graph limits in the size-negotiated QUERY;
 *  - a launch that does not match its graph: STATUS_INVALID, reason
 *    BINDING (detail = the parameter), GRAPH or FLAGS, nothing run;
 *  - a predicate on the launch; destroy and close with launches in
 *    flight; 10 000 launches;
 *  - random GRAPH_CREATE and launch fields: only documented errnos and
 *    statuses, and the device works after.
 *
 * The graph's semantics (nodes, edges, dependencies, faults, profiling)
 * are graph_replay.c's. The small graph of these tests: node 0 out = in +
 * s, node 1 out += 1 in place; tensor parameter 0 is IN, 1 is IN | OUT
 * (the OR of its uses), scalar parameter 0 is s.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#define PTO_TEST_LIBPTO
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "pto_test.h"
#include "lib/pto_test_graph.h"

#define RUN_TIMEOUT PTO_TEST_SEC(240)
#define TELEMS PTO_TG_TELEMS
#define TBYTES PTO_TG_TBYTES
#define SENTINEL PTO_TG_SENTINEL
#define UNTOUCHED PTO_TG_UNTOUCHED
#define IN DRM_PTO_NPU_TENSOR_F_IN
#define OUT DRM_PTO_NPU_TENSOR_F_OUT
/* "Do not check" for an error field. */
#define ANY 0x5a5a5a5au
#define NO_NODE 0xffffffffu

/* ------------------------------------------------------------ helpers */
/* The shared helpers: lib/pto_test_graph.c. */

FIXTURE(rf)
{
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_kernel *k_add;
	uint32_t kadd, hp, graph, hin, hout;
	int32_t *in, *out;
	int fd;
	struct drm_pto_npu_limits lim;
	struct drm_pto_npu_graph_create c;
	struct pto_gb *g;
	char err[512];
};

FIXTURE_SETUP(rf)
{
	unsigned int k;

	ASSERT_EQ(0, pto_test_dev_open(&self->dev))
		TH_LOG("open %s", pto_test_device_path());
	self->fd = pto_device_fd(self->dev);
	ASSERT_EQ(0, pto_test_limits(self->fd, &self->lim));
	ASSERT_LT(0U, self->lim.max_graph_nodes) TH_LOG("no graph replay (uapi < 7)");
	ASSERT_EQ(0, pto_test_queue_long(self->dev, 0, 0, &self->q));
	/* One final CQE per launch: reaped by LAST. */
	ASSERT_FALSE(pto_queue_profiling(self->q));
	self->k_add = pto_tg_build_add(self->dev, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->k_add) TH_LOG("add kernel: %s", self->err);
	self->kadd = pto_kernel_handle(self->k_add);
	ASSERT_EQ(0, pto_test_bo_create(self->fd, 2 * TBYTES, &self->hp, NULL));
	ASSERT_NE(NULL, self->g = malloc(sizeof(*self->g)));
	pto_tg_pair_record(self->g, self->kadd, self->hp, 0);
	ASSERT_EQ(0, pto_tg_pair_graph(self->fd, self->kadd, 0, &self->graph));
	ASSERT_NE(NULL, self->in = pto_tg_bo_new(self->fd, 4096, &self->hin));
	ASSERT_NE(NULL, self->out = pto_tg_bo_new(self->fd, 4096, &self->hout));
	for (k = 0; k < 4096 / 4; k++)
		self->in[k] = (int32_t)(k * 5 + 1);
	pto_tg_fill(self->out, 4096 / 4, SENTINEL);
}

FIXTURE_TEARDOWN(rf)
{
	free(self->g);
	pto_kernel_free(self->k_add);
	if (self->q)
		pto_queue_destroy(self->q);
	pto_device_close(self->dev);
}

/* ------------------------------------------------------------ GRAPH_CREATE */

/*
 * GRAPH_CREATE with self->c must fail with @err; with -EINVAL, @reason and
 * @node (ANY: not checked) in the error fields, and @detail unless ANY.
 */
static void refused(struct __test_metadata *_metadata, FIXTURE_DATA(rf) *self,
		    int err, uint32_t reason, uint32_t node, uint64_t detail)
{
	int ret;

	self->c.error_node = ANY;
	self->c.error_reason = ANY;
	self->c.error_detail = ANY;
	ret = pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_GRAPH_CREATE, &self->c);
	if (!ret)
		pto_tg_destroy(self->fd, self->c.handle);
	ASSERT_EQ(err, ret) TH_LOG("%s", strerror(-ret));
	if (err != -EINVAL)
		return;
	EXPECT_EQ(reason, self->c.error_reason)
		TH_LOG("reason %s", pto_reason_name(self->c.error_reason));
	if (node != ANY)
		EXPECT_EQ(node, self->c.error_node);
	if (detail != ANY)
		EXPECT_EQ(detail, self->c.error_detail);
}

/* The fixture's recording, as given, must be refused (-EINVAL). */
static void rec_refused(struct __test_metadata *_metadata,
			FIXTURE_DATA(rf) *self, uint32_t reason, uint32_t node,
			uint64_t detail)
{
	pto_gb_args(self->g, &self->c);
	refused(_metadata, self, -EINVAL, reason, node, detail);
}

TEST_F(rf, create_ok_handles_distinct)
{
	uint32_t h;

	ASSERT_EQ(0, pto_gb_create(self->fd, self->g, &self->c));
	h = self->c.handle;
	EXPECT_NE(0U, h);
	EXPECT_NE(self->graph, h);
	ASSERT_EQ(0, pto_gb_create(self->fd, self->g, &self->c));
	EXPECT_NE(h, self->c.handle);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, self->c.handle));
	EXPECT_EQ(0, pto_tg_destroy(self->fd, h));
	/* A duplicate edge is refused (uapi 8: graph_hostile.c). */
	pto_gb_edge(self->g, 0, 1, DRM_PTO_NPU_GRAPH_EDGE_F_INFERRED);
	EXPECT_EQ(-EINVAL, pto_gb_create(self->fd, self->g, &self->c));
	EXPECT_EQ((uint64_t)DRM_PTO_NPU_GRAPH_EDGE_DUPLICATE, self->c.error_detail);
}

TEST_F(rf, create_flags)
{
	pto_gb_args(self->g, &self->c);
	self->c.flags = 1;
	refused(_metadata, self, -EINVAL, 0, NO_NODE, ANY);
}

TEST_F(rf, create_zero_nodes)
{
	pto_gb_args(self->g, &self->c);
	self->c.num_nodes = 0;
	self->c.entries_size = 0;
	refused(_metadata, self, -EINVAL, 0, NO_NODE, ANY);
}

TEST_F(rf, create_too_many_nodes)
{
	uint8_t *buf;

	pto_gb_repeat(self->g, 0, self->lim.max_graph_nodes + 1, &self->c, &buf);
	ASSERT_NE(NULL, buf);
	refused(_metadata, self, -EINVAL, 0, NO_NODE, ANY);
	/* As many as the cap: taken. */
	free(buf);
	pto_gb_repeat(self->g, 0, self->lim.max_graph_nodes, &self->c, &buf);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_GRAPH_CREATE,
				    &self->c)) TH_LOG("reason %s node %u",
			pto_reason_name(self->c.error_reason), self->c.error_node);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, self->c.handle));
	free(buf);
}

/* A count past its cap, over a zeroed array that large. */
static void over_cap(struct __test_metadata *_metadata, FIXTURE_DATA(rf) *self,
		     uint32_t which)
{
	uint32_t n = (which ? self->lim.max_graph_bindings :
			      self->lim.max_graph_edges) + 1;
	void *a = calloc(n, 16);

	ASSERT_NE(NULL, a);
	pto_gb_args(self->g, &self->c);
	if (which) {
		self->c.bindings = (uintptr_t)a;
		self->c.num_bindings = n;
	} else {
		self->c.edges = (uintptr_t)a;
		self->c.num_edges = n;
	}
	refused(_metadata, self, -EINVAL, 0, NO_NODE, ANY);
	free(a);
}

TEST_F(rf, create_too_many_edges)
{
	over_cap(_metadata, self, 0);
}

TEST_F(rf, create_too_many_bindings)
{
	over_cap(_metadata, self, 1);
}

TEST_F(rf, create_too_many_tensor_params)
{
	pto_gb_args(self->g, &self->c);
	self->c.num_tensor_params = 17;
	refused(_metadata, self, -EINVAL, 0, NO_NODE, ANY);
}

TEST_F(rf, create_too_many_scalar_params)
{
	pto_gb_args(self->g, &self->c);
	self->c.num_scalar_params = 17;
	refused(_metadata, self, -EINVAL, 0, NO_NODE, ANY);
}

TEST_F(rf, create_entries_size_not_slots)
{
	pto_gb_args(self->g, &self->c);
	self->c.entries_size -= 32;
	refused(_metadata, self, -EINVAL, 0, NO_NODE, ANY);
}

/*
 * Entries that do not add up to entries_size (uapi.rst: SLOTS): a slot
 * left over after the last node (error_node ~0, detail the bytes the
 * nodes took), or node 1's 3 slots past the end (node 1, detail 3).
 */
TEST_F(rf, create_entries_size_mismatch)
{
	pto_gb_args(self->g, &self->c);
	self->c.entries_size += DRM_PTO_NPU_SQ_SLOT_SIZE;
	refused(_metadata, self, -EINVAL, DRM_PTO_NPU_REASON_SLOTS, NO_NODE,
		self->g->size);
	self->c.entries_size -= 2 * DRM_PTO_NPU_SQ_SLOT_SIZE;
	refused(_metadata, self, -EINVAL, DRM_PTO_NPU_REASON_SLOTS, 1, 3);
}

/* Node 1 with a dependency (same slots: 2 tensors, 2 scalars, 1 dep). */
TEST_F(rf, create_node_with_deps)
{
	int64_t *body = (int64_t *)(pto_gb_targ(self->g, 1, 2));

	pto_gb_hdr(self->g, 1)->num_deps = 1;
	body[2] = -1;
	rec_refused(_metadata, self, DRM_PTO_NPU_REASON_GRAPH, 1, 1);
}

TEST_F(rf, create_node_graph_flag)
{
	pto_gb_hdr(self->g, 1)->flags |= DRM_PTO_NPU_TASK_F_GRAPH;
	rec_refused(_metadata, self, DRM_PTO_NPU_REASON_GRAPH, 1, 0);
}

TEST_F(rf, create_node_bad_kernel)
{
	pto_gb_hdr(self->g, 1)->kernel_aiv = self->kadd + 1000;
	rec_refused(_metadata, self, DRM_PTO_NPU_REASON_KERNEL, 1, ANY);
}

TEST_F(rf, create_node_bad_tensor_handle)
{
	pto_gb_targ(self->g, 0, 1)->handle = self->hp + 1000;
	rec_refused(_metadata, self, DRM_PTO_NPU_REASON_TENSOR_HANDLE, 0, 1);
}

TEST_F(rf, create_node_tensor_range)
{
	pto_gb_targ(self->g, 1, 0)->offset = 4096;
	rec_refused(_metadata, self, DRM_PTO_NPU_REASON_TENSOR_RANGE, 1, 0);
}

TEST_F(rf, create_node_predicate)
{
	struct drm_pto_npu_tensor_arg t[2] = { pto_tg_targ(self->hp, 0, IN),
					       pto_tg_targ(self->hp, TBYTES, OUT) };
	struct drm_pto_npu_predicate p = { .tensor = 2 };
	int64_t s[2] = { 0, 0 };
	struct pto_test_sqe e;

	pto_test_sqe_init_pred(&e, self->kadd, 0, 1, t, 2, s, 2, NULL, 0, &p);
	pto_gb_node(self->g, &e);
	pto_gb_edge(self->g, 1, 2, 0);
	rec_refused(_metadata, self, DRM_PTO_NPU_REASON_PREDICATE, 2, ANY);
}

/*
 * A bad edge, appended after the good one: error_node = 1, its index;
 * GRAPH (detail 1: consumer outside the graph, else 0), or RESERVED for
 * its pad or flags (uapi.rst).
 */
static void edge_refused(struct __test_metadata *_metadata,
			 FIXTURE_DATA(rf) *self,
			 struct drm_pto_npu_graph_edge e, uint32_t reason,
			 uint64_t detail)
{
	self->g->edges[self->g->nedges++] = e;
	rec_refused(_metadata, self, reason, 1, detail);
}

TEST_F(rf, create_edge_backward)
{
	edge_refused(_metadata, self, (struct drm_pto_npu_graph_edge){ .producer = 1 },
		     DRM_PTO_NPU_REASON_GRAPH, 0);
}

TEST_F(rf, create_edge_to_itself)
{
	edge_refused(_metadata, self, (struct drm_pto_npu_graph_edge){ .producer = 1, .consumer = 1 },
		     DRM_PTO_NPU_REASON_GRAPH, 0);
}

TEST_F(rf, create_edge_consumer_out_of_range)
{
	edge_refused(_metadata, self, (struct drm_pto_npu_graph_edge){ .consumer = 2 },
		     DRM_PTO_NPU_REASON_GRAPH, 1);
}

TEST_F(rf, create_edge_pad)
{
	edge_refused(_metadata, self,
		     (struct drm_pto_npu_graph_edge){ 0, 1, 0, 1 },
		     DRM_PTO_NPU_REASON_RESERVED, 0);
}

TEST_F(rf, create_edge_flags)
{
	edge_refused(_metadata, self,
		     (struct drm_pto_npu_graph_edge){ 0, 1, 2, 0 },
		     DRM_PTO_NPU_REASON_RESERVED, 0);
}

/*
 * A bad binding, appended after the 5 good ones: error_node = 5; detail
 * (uapi.rst) 0: no such node or kind, 1: no such argument or parameter,
 * 2: a second layout for its parameter.
 */
static void bind_refused(struct __test_metadata *_metadata,
			 FIXTURE_DATA(rf) *self, uint32_t node, uint8_t kind,
			 uint8_t arg, uint16_t param, uint64_t detail)
{
	pto_gb_bind_raw(self->g, node, kind, arg, param);
	rec_refused(_metadata, self, DRM_PTO_NPU_REASON_BINDING, 5, detail);
}

TEST_F(rf, create_binding_node_out_of_range)
{
	bind_refused(_metadata, self, 2, DRM_PTO_NPU_BIND_TENSOR, 0, 0, 0);
}

TEST_F(rf, create_binding_tensor_arg_out_of_range)
{
	bind_refused(_metadata, self, 0, DRM_PTO_NPU_BIND_TENSOR, 2, 0, 1);
}

TEST_F(rf, create_binding_scalar_arg_out_of_range)
{
	bind_refused(_metadata, self, 1, DRM_PTO_NPU_BIND_SCALAR, 2, 0, 1);
}

TEST_F(rf, create_binding_tensor_param_out_of_range)
{
	bind_refused(_metadata, self, 1, DRM_PTO_NPU_BIND_TENSOR, 0, 2, 1);
}

TEST_F(rf, create_binding_scalar_param_out_of_range)
{
	bind_refused(_metadata, self, 1, DRM_PTO_NPU_BIND_SCALAR, 0, 1, 1);
}

TEST_F(rf, create_binding_kind)
{
	bind_refused(_metadata, self, 1, 2, 0, 0, 0);
}

/* Parameter 2 (tensor) or 1 (scalar) bound nowhere: error_node ~0, detail it. */
TEST_F(rf, create_unused_tensor_param)
{
	self->g->ntp = 3;
	rec_refused(_metadata, self, DRM_PTO_NPU_REASON_BINDING, NO_NODE, 2);
}

TEST_F(rf, create_unused_scalar_param)
{
	self->g->nsp = 2;
	rec_refused(_metadata, self, DRM_PTO_NPU_REASON_BINDING, NO_NODE, 1);
}

/*
 * A node 2 whose tensor 0 is a [2, 32] view (the same bytes as [4, 16]):
 * recorded alone, fine; parameter 0 bound to it as well, refused.
 */
TEST_F(rf, create_param_uses_of_two_shapes)
{
	struct drm_pto_npu_tensor_arg t[2] = {
		pto_test_targ(self->hp, PTO_ISA_I32, 0, 2, 32),
		pto_tg_targ(self->hp, TBYTES, OUT),
	};
	struct pto_test_sqe e;

	t[0].flags = IN;
	pto_tg_add_entry(&e, self->kadd, 1, t, 2, 0, 0, NULL, 0, NULL);
	pto_gb_node(self->g, &e);
	ASSERT_EQ(0, pto_gb_create(self->fd, self->g, &self->c))
		TH_LOG("the [2, 32] node alone: reason %s",
		       pto_reason_name(self->c.error_reason));
	EXPECT_EQ(0, pto_tg_destroy(self->fd, self->c.handle));
	bind_refused(_metadata, self, 2, DRM_PTO_NPU_BIND_TENSOR, 0, 0, 2);
}

TEST_F(rf, create_efault)
{
	pto_gb_args(self->g, &self->c);
	self->c.entries = 8;
	refused(_metadata, self, -EFAULT, 0, ANY, ANY);
	pto_gb_args(self->g, &self->c);
	self->c.edges = 8;
	refused(_metadata, self, -EFAULT, 0, ANY, ANY);
	pto_gb_args(self->g, &self->c);
	self->c.bindings = 8;
	refused(_metadata, self, -EFAULT, 0, ANY, ANY);
}

/* GRAPH_CREATE of @n copies of node 0: 0 or -errno; *@h the handle. */
#define create_n(n, h) \
	pto_gb_create_repeat(self->fd, self->g, 0, n, &self->c, h)

/*
 * The context's recorded nodes up to max_graph_nodes_per_context exactly
 * (graphs of max_graph_nodes, then the rest), then -ENOSPC; one graph
 * destroyed, its nodes can be recorded again.
 */
TEST_F(rf, create_enospc_nodes_per_context)
{
	uint32_t per = self->lim.max_graph_nodes_per_context;
	uint32_t n = self->lim.max_graph_nodes, made = 0, i, *h;
	int ret = 0;

	ASSERT_LT(0U, n);
	ASSERT_NE(NULL, h = calloc(per / n + 3, sizeof(*h)));
	ASSERT_EQ(0, pto_tg_destroy(self->fd, self->graph));
	while (made < per / n + 1 && !ret)
		if (!(ret = create_n(n, &h[made])))
			made++;
	EXPECT_EQ(-ENOSPC, ret) TH_LOG("after %u graphs: %s", made, strerror(-ret));
	EXPECT_EQ(per / n, made);
	if (per % n) {
		EXPECT_EQ(0, create_n(per % n, &h[made])) TH_LOG("the rest");
		made++;
	}
	EXPECT_EQ(-ENOSPC, create_n(1, &h[made]));
	ASSERT_LT(0U, made);
	EXPECT_EQ(0, pto_tg_destroy(self->fd, h[0]));
	EXPECT_EQ(0, create_n(n, &h[0])) TH_LOG("room again");
	for (i = 0; i < made; i++)
		EXPECT_EQ(0, pto_tg_destroy(self->fd, h[i]));
	free(h);
}

TEST_F(rf, destroy_unknown_pad_twice)
{
	struct drm_pto_npu_graph_destroy d = { .handle = self->graph, .pad = 1 };

	EXPECT_EQ(-ENOENT, pto_tg_destroy(self->fd, self->graph + 1000));
	EXPECT_EQ(-ENOENT, pto_tg_destroy(self->fd, 0));
	EXPECT_EQ(-EINVAL, pto_test_ioctl(self->fd,
					  DRM_IOCTL_PTO_NPU_GRAPH_DESTROY, &d));
	EXPECT_EQ(0, pto_tg_destroy(self->fd, self->graph));
	EXPECT_EQ(-ENOENT, pto_tg_destroy(self->fd, self->graph));
}

/* The graph limits: appended, size-negotiated, nonzero. */
TEST_F(rf, query_graph_limits)
{
	struct drm_pto_npu_limits lim;
	struct drm_pto_npu_query q = { .type = DRM_PTO_NPU_QUERY_LIMITS };
	uint32_t old = offsetof(struct drm_pto_npu_limits, max_graph_nodes);

	ASSERT_EQ(0, pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUERY, &q));
	EXPECT_EQ(sizeof(lim), q.size);
	memset(&lim, 0xa5, sizeof(lim));
	q.size = old;
	q.data = (uintptr_t)&lim;
	ASSERT_EQ(0, pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_QUERY, &q));
	EXPECT_EQ(old, q.size);
	EXPECT_EQ(0xa5a5a5a5U, lim.max_graph_nodes) TH_LOG("written past size");
	EXPECT_EQ(0xa5a5a5a5U, lim.max_graph_nodes_per_context);
	EXPECT_LT(0U, self->lim.max_graph_nodes);
	EXPECT_LT(0U, self->lim.max_graph_edges);
	EXPECT_LT(0U, self->lim.max_graph_bindings);
	EXPECT_LE(self->lim.max_graph_nodes,
		  self->lim.max_graph_nodes_per_context);
}

/* ------------------------------------------------------------ launches */

/*
 * Launch @e (on out view 0) must end INVALID with @reason (and @detail
 * unless ANY), nothing written; a good launch after it (out view 1) runs.
 */
static void launch_refused(struct __test_metadata *_metadata,
			   FIXTURE_DATA(rf) *self, struct pto_test_sqe *e,
			   uint32_t reason, uint64_t detail)
{
	struct pto_test_sqe es[2];
	struct pto_cqe cqes[8];
	const struct pto_cqe *c;
	uint64_t first = 0;
	int n;

	es[0] = *e;
	pto_tg_pair_launch(&es[1], self->graph, self->hin, TBYTES, self->hout,
			   TBYTES, 3, NULL);
	ASSERT_EQ(0, pto_tg_submit(self->q, es, 2, &first, NULL));
	n = pto_test_reap_lasts(self->q, cqes, 8, 2, RUN_TIMEOUT);
	ASSERT_LE(2, n) TH_LOG("reap: %s", strerror(-n));
	ASSERT_NE(NULL, c = pto_test_find_last(cqes, n, first));
	EXPECT_EQ(PTO_STATUS_INVALID, c->info.status);
	EXPECT_EQ(reason, c->info.reason)
		TH_LOG("reason %s detail %llu", pto_reason_name(c->info.reason),
		       (unsigned long long)c->info.detail);
	if (detail != ANY)
		EXPECT_EQ(detail, c->info.detail);
	EXPECT_FALSE(!!(c->info.flags & PTO_BLOCK_RAN));
	/* uapi.rst: every refusal of a launch is a graph CQE. */
	EXPECT_TRUE(!!(c->info.flags & DRM_PTO_NPU_CQE_F_GRAPH));
	EXPECT_EQ(0, pto_tg_mismatches(self->in, self->out, UNTOUCHED)) TH_LOG("it ran");
	ASSERT_NE(NULL, c = pto_test_find_last(cqes, n, first + 1));
	EXPECT_EQ(PTO_STATUS_OK, c->info.status);
	EXPECT_EQ(0, pto_tg_mismatches(self->in + TELEMS, self->out + TELEMS, 3 + 1));
}

/* A launch of the fixture's graph on view 0, to be spoilt. */
static struct pto_test_sqe *good(FIXTURE_DATA(rf) *self,
				 struct pto_test_sqe *e)
{
	pto_tg_pair_launch(e, self->graph, self->hin, 0, self->hout, 0, 2, NULL);
	return e;
}

#define TARGS(e) ((struct drm_pto_npu_tensor_arg *)(e)->body)

/* Tensors or scalars short or over, the body re-encoded to match. */
static void counts_refused(struct __test_metadata *_metadata,
			   FIXTURE_DATA(rf) *self, uint32_t nt, uint32_t ns)
{
	struct drm_pto_npu_tensor_arg t[3] = {
		pto_tg_targ(self->hin, 0, IN), pto_tg_targ(self->hout, 0, IN | OUT),
		pto_tg_targ(self->hin, TBYTES * 2, IN),
	};
	int64_t s[2] = { 2, 2 };
	struct pto_test_sqe e;

	pto_test_sqe_init(&e, 0, 0, 1, t, nt, s, ns, NULL, 0);
	e.hdr.flags = DRM_PTO_NPU_TASK_F_GRAPH;
	e.hdr.reserved[0] = self->graph;
	/* uapi.rst: detail the expected count. */
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_BINDING,
		       nt != 2 ? 2 : 1);
}

TEST_F(rf, launch_too_few_tensors)
{
	counts_refused(_metadata, self, 1, 1);
}

TEST_F(rf, launch_too_many_tensors)
{
	counts_refused(_metadata, self, 3, 1);
}

TEST_F(rf, launch_too_few_scalars)
{
	counts_refused(_metadata, self, 2, 0);
}

TEST_F(rf, launch_too_many_scalars)
{
	counts_refused(_metadata, self, 2, 2);
}

TEST_F(rf, launch_dtype_mismatch)
{
	struct pto_test_sqe e;

	TARGS(good(self, &e))[1].dtype = PTO_ISA_I64;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_BINDING, 1);
}

TEST_F(rf, launch_shape_mismatch)
{
	struct pto_test_sqe e;

	TARGS(good(self, &e))[0].shape[0] = 2;
	TARGS(&e)[0].shape[1] = 32;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_BINDING, 0);
}

/* Parameter 1 is IN | OUT (its uses' OR): OUT alone does not match. */
TEST_F(rf, launch_direction_mismatch)
{
	struct pto_test_sqe e;

	TARGS(good(self, &e))[1].flags = OUT;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_BINDING, 1);
	TARGS(good(self, &e))[0].flags = IN | OUT;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_BINDING, 0);
}

TEST_F(rf, launch_unknown_handle)
{
	struct pto_test_sqe e;

	good(self, &e)->hdr.reserved[0] = self->graph + 1000;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_GRAPH, 0);
	good(self, &e)->hdr.reserved[0] = 0;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_GRAPH, 0);
	/* reserved[1..3] and a handle past 32 bits: RESERVED. */
	good(self, &e)->hdr.reserved[0] |= 1ull << 32;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_RESERVED, ANY);
	good(self, &e)->hdr.reserved[2] = 1;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_RESERVED, ANY);
}

TEST_F(rf, launch_kernels_set)
{
	struct pto_test_sqe e;

	good(self, &e)->hdr.kernel_aiv = self->kadd;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_GRAPH, 1);
	good(self, &e)->hdr.kernel_aic = self->kadd;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_GRAPH, 1);
}

TEST_F(rf, launch_block_num_split_slot_num)
{
	struct pto_test_sqe e;

	good(self, &e)->hdr.block_num = 2;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_GRAPH, 2);
	good(self, &e)->hdr.split_mode = 1;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_GRAPH, 3);
	good(self, &e)->hdr.slot_num = 1;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_GRAPH, 3);
}

/*
 * The checks every entry passes before it is parsed (issue #46, item 7):
 * block_num 0 or past its cap, the slots and the counts; a graph CQE each.
 */
TEST_F(rf, launch_refused_by_the_entry_checks)
{
	struct pto_test_sqe e;

	good(self, &e)->hdr.block_num = 0;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_BLOCK_NUM, 0);
	/* Past any cap (&pto_limits.max_block_num), not a BLOCKS_ALL_* value. */
	good(self, &e)->hdr.block_num = 1u << 20;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_BLOCK_NUM, 1u << 20);
	good(self, &e)->hdr.num_tensors = 3;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_SLOTS, ANY);
	good(self, &e)->hdr.num_deps = 33;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_COUNTS, ANY);
}

TEST_F(rf, launch_sync_start_or_early_resolve)
{
	struct pto_test_sqe e;

	good(self, &e)->hdr.flags |= DRM_PTO_NPU_TASK_F_SYNC_START;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_FLAGS, ANY);
	good(self, &e)->hdr.flags |= DRM_PTO_NPU_TASK_F_EARLY_RESOLVE;
	launch_refused(_metadata, self, &e, DRM_PTO_NPU_REASON_FLAGS, ANY);
}

/*
 * A predicate on the launch, on its tensor 0 (in[0, 0] > 0): false, the
 * launch ends SKIPPED (one CQE) with no node run, and an entry on it runs;
 * true, it runs.
 */
TEST_F(rf, launch_predicate)
{
	struct drm_pto_npu_predicate p = { .tensor = 0, .op = PTO_CMP_GT };
	struct drm_pto_npu_tensor_arg t[2] = {
		pto_tg_targ(self->hin, TBYTES, IN), pto_tg_targ(self->hout, 2 * TBYTES, OUT) };
	struct pto_test_sqe es[3];
	struct pto_cqe cqes[8];
	const struct pto_cqe *c;
	uint64_t first = 0;
	int64_t dep = -1;
	int n;

	self->in[0] = 0;
	pto_tg_pair_launch(&es[0], self->graph, self->hin, 0, self->hout, 0, 5, &p);
	pto_tg_add_entry(&es[1], self->kadd, 1, t, 2, 2, 0, &dep, 1, NULL);
	pto_tg_pair_launch(&es[2], self->graph, self->hin, TBYTES, self->hout,
			   TBYTES, 5, &p);
	ASSERT_EQ(0, pto_tg_submit(self->q, es, 3, &first, NULL));
	n = pto_test_reap_lasts(self->q, cqes, 8, 3, RUN_TIMEOUT);
	EXPECT_EQ(3, n) TH_LOG("reap: %s", strerror(-n));
	ASSERT_NE(NULL, c = pto_test_find_last(cqes, n, first));
	EXPECT_EQ(PTO_STATUS_SKIPPED, c->info.status);
	EXPECT_TRUE(!!(c->info.flags & DRM_PTO_NPU_CQE_F_GRAPH));
	EXPECT_EQ(0, pto_tg_mismatches(self->in, self->out, UNTOUCHED)) TH_LOG("a node ran");
	ASSERT_NE(NULL, c = pto_test_find_last(cqes, n, first + 1));
	EXPECT_EQ(PTO_STATUS_OK, c->info.status);
	ASSERT_NE(NULL, c = pto_test_find_last(cqes, n, first + 2));
	EXPECT_EQ(PTO_STATUS_OK, c->info.status);
	EXPECT_EQ(0, pto_tg_mismatches(self->in + TELEMS, self->out + TELEMS, 5 + 1));
	EXPECT_EQ(0, pto_tg_mismatches(self->in + TELEMS, self->out + 2 * TELEMS, 2));
}

/* ------------------------------------------------------------ random fields */

/*
 * The small recording with one count or flag of the ioctl, or one byte of
 * its entries, edges or bindings, made random: 0, -EINVAL with a known
 * reason, -EFAULT, -ENOSPC or -ENOMEM, nothing else.
 */
static void fuzz_create(struct __test_metadata *_metadata,
			FIXTURE_DATA(rf) *self, uint64_t *seed)
{
	uint64_t r = pto_tg_rnd(seed);
	struct pto_gb *g = self->g;
	int ret;

	pto_tg_pair_record(g, self->kadd, self->hp, 0);
	pto_tg_fuzz_record(g, &self->c, r, seed);
	ret = pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_GRAPH_CREATE, &self->c);
	ASSERT_TRUE(!ret || ret == -EINVAL || ret == -EFAULT || ret == -ENOSPC ||
		    ret == -ENOMEM) TH_LOG("create: %s", strerror(-ret));
	if (ret == -EINVAL)
		ASSERT_GE(DRM_PTO_NPU_REASON_BINDING, (int)self->c.error_reason);
	if (!ret) {
		ASSERT_NE(0U, self->c.handle);
		ASSERT_EQ(0, pto_tg_destroy(self->fd, self->c.handle));
	}
}

/*
 * A good launch with one to three fields made random (its slots and
 * buffer handles kept: what may run writes only the test's buffer): it
 * ends OK, INVALID (a known reason), SKIPPED or DEP_FAILED; or, turned
 * into a plain entry of the add kernel (flags and kernel random), with
 * the faults a view or loop count of its own may give it.
 */
static void fuzz_launch(struct __test_metadata *_metadata,
			FIXTURE_DATA(rf) *self, uint64_t *seed)
{
	unsigned int n = 1 + pto_tg_rnd(seed) % 3;
	struct pto_test_sqe e;
	struct pto_cqe cqes[4];
	const struct pto_cqe *c;
	uint64_t first = 0;
	int got;

	good(self, &e);
	pto_tg_fuzz_fields(&e, n, seed);
	ASSERT_EQ(0, pto_tg_submit(self->q, &e, 1, &first, NULL));
	got = pto_test_reap_lasts(self->q, cqes, 4, 1, RUN_TIMEOUT);
	ASSERT_LT(0, got) TH_LOG("reap: %s", strerror(-got));
	ASSERT_NE(NULL, c = pto_test_find_last(cqes, got, first));
	ASSERT_TRUE(c->info.status == PTO_STATUS_OK ||
		    c->info.status == PTO_STATUS_INVALID ||
		    c->info.status == PTO_STATUS_SKIPPED ||
		    c->info.status == PTO_STATUS_DEP_FAILED ||
		    c->info.status == PTO_STATUS_GM_FAULT ||
		    c->info.status == PTO_STATUS_LOOP_FAULT)
		TH_LOG("status %s", pto_status_name(c->info.status));
	if (c->info.status == PTO_STATUS_INVALID)
		ASSERT_GE(DRM_PTO_NPU_REASON_BINDING, (int)c->info.reason);
}

/* PTO_GR_FUZZ_ITERS (300) of each, PTO_GR_FUZZ_SEED (1); the device works after. */
TEST_F_TIMEOUT(rf, fuzz_create_and_launch, 900)
{
	const char *it = getenv("PTO_GR_FUZZ_ITERS"), *sd = getenv("PTO_GR_FUZZ_SEED");
	unsigned long iters = it ? strtoul(it, NULL, 0) : 300, i;
	uint64_t seed = sd ? strtoull(sd, NULL, 0) : 1, first = 0;
	struct pto_test_sqe e;
	struct pto_cqe cqes[4];

	TH_LOG("PTO_GR_FUZZ_SEED=%llu PTO_GR_FUZZ_ITERS=%lu",
	       (unsigned long long)seed, iters);
	seed = seed * 2654435761u + 1;
	for (i = 0; i < iters; i++) {
		fuzz_create(_metadata, self, &seed);
		fuzz_launch(_metadata, self, &seed);
	}
	pto_tg_pair_record(self->g, self->kadd, self->hp, 0);
	ASSERT_EQ(0, pto_gb_create(self->fd, self->g, &self->c));
	EXPECT_EQ(0, pto_tg_destroy(self->fd, self->c.handle));
	pto_tg_pair_launch(&e, self->graph, self->hin, 2 * TBYTES, self->hout,
			   3 * TBYTES, 4, NULL);
	ASSERT_EQ(0, pto_tg_submit(self->q, &e, 1, &first, NULL));
	ASSERT_EQ(1, pto_test_reap_lasts(self->q, cqes, 4, 1, RUN_TIMEOUT));
	EXPECT_EQ(first, cqes[0].task_id);
	EXPECT_EQ(PTO_STATUS_OK, cqes[0].info.status);
	EXPECT_EQ(0, pto_tg_mismatches(self->in + 2 * TELEMS, self->out + 3 * TELEMS,
				4 + 1));
}

TEST_HARNESS_MAIN
