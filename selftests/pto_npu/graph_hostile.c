// SPDX-License-Identifier: GPL-2.0-only
/*
 * Graph replay against a hostile user (uapi 8): the shapes a member of
 * `render` may hand GRAPH_CREATE and a launch, each the regression test of
 * a report on the module at a2b2d3e.
 *
 *  - a node's fan-in: PTO_MAX_DEPS edges in run; one more is refused
 *    (GRAPH, FANIN), as is a duplicate edge (256 copies of 0 -> 1 were a
 *    heap overflow at the first launch);
 *  - a node whose counts need more slots than it has, at the very end of
 *    an entries buffer that ends at a guard page: refused (SLOTS) before
 *    anything reads past it (a KASAN slab-out-of-bounds);
 *  - a graph's units: under the context's in-flight cap with its launch's
 *    own, or refused at GRAPH_CREATE (GRAPH, UNITS); a launch whose units
 *    do not fit beside those in flight waits in its SQ (7.6 x the cap was
 *    taken);
 *  - kernels whose handles are gone count against the kernel cap while a
 *    graph holds them (3072 were alive against 1024);
 *  - the recorded nodes the caps admit take the kernel memory
 *    Documentation/limits.rst says (132 MiB were taken for 4096 nodes).
 *
 * The random shapes are graph_shape_fuzz.c's.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#define PTO_TEST_LIBPTO
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pto_test.h"
#include "lib/pto_test_graph.h"

#define RUN_TIMEOUT PTO_TEST_SEC(240)
#define TBYTES PTO_TG_TBYTES
#define IN DRM_PTO_NPU_TENSOR_F_IN
#define OUT DRM_PTO_NPU_TENSOR_F_OUT
/* Blocks of the big nodes: the most one entry may ask for. */
#define BIG_BLOCKS 8192

FIXTURE(gh)
{
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_kernel *k_add;
	uint32_t kadd, kend, hin, hout;
	int32_t *in, *out;
	int fd;
	struct drm_pto_npu_limits lim;
	struct drm_pto_npu_graph_create c;
	struct pto_gb *g;
	char err[512];
};

/* A kernel of the smallest program (END) on @fd: its handle, or 0. */
static uint32_t end_kernel(int fd)
{
	static const struct pto_insn end = { .op = PTO_OP_END };
	struct drm_pto_npu_kernel_create c = {
		.insns = (uintptr_t)&end, .num_insns = 1,
		.core_type = PTO_CORE_AIV,
	};

	return pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &c) ? 0 : c.handle;
}

static int kernel_destroy(int fd, uint32_t handle)
{
	struct drm_pto_npu_kernel_destroy d = { .handle = handle };

	return pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY, &d);
}

/* A node of END kernel @k, @blocks blocks, no arguments. */
static uint32_t end_node(struct pto_gb *g, uint32_t k, uint32_t blocks)
{
	struct pto_test_sqe e;

	pto_test_sqe_init_pred(&e, k, 0, blocks, NULL, 0, NULL, 0, NULL, 0, NULL);
	return pto_gb_node(g, &e);
}

FIXTURE_SETUP(gh)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev))
		TH_LOG("open %s", pto_test_device_path());
	self->fd = pto_device_fd(self->dev);
	ASSERT_EQ(0, pto_test_limits(self->fd, &self->lim));
	ASSERT_LT(0U, self->lim.max_inflight_units) TH_LOG("uapi < 8");
	ASSERT_EQ(0, pto_test_queue_long(self->dev, 0, 0, &self->q));
	self->k_add = pto_tg_build_add(self->dev, self->err, sizeof(self->err));
	ASSERT_NE(NULL, self->k_add) TH_LOG("add kernel: %s", self->err);
	self->kadd = pto_kernel_handle(self->k_add);
	ASSERT_NE(0U, self->kend = end_kernel(self->fd));
	ASSERT_NE(NULL, self->in = pto_tg_bo_new(self->fd, 4096, &self->hin));
	ASSERT_NE(NULL, self->out = pto_tg_bo_new(self->fd, 4096, &self->hout));
	ASSERT_NE(NULL, self->g = calloc(1, sizeof(*self->g)));
	pto_tg_fill(self->in, 4096 / 4, 1);
	pto_tg_fill(self->out, 4096 / 4, PTO_TG_SENTINEL);
}

FIXTURE_TEARDOWN(gh)
{
	free(self->g);
	pto_kernel_free(self->k_add);
	if (self->q)
		pto_queue_destroy(self->q);
	pto_device_close(self->dev);
}

/* GRAPH_CREATE of self->g: -EINVAL, @reason at @node with @detail. */
static void refused(struct __test_metadata *_metadata, FIXTURE_DATA(gh) *self,
		    uint32_t reason, uint32_t node, uint64_t detail)
{
	int ret = pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_GRAPH_CREATE, &self->c);

	if (!ret)
		pto_tg_destroy(self->fd, self->c.handle);
	ASSERT_EQ(-EINVAL, ret) TH_LOG("%s", strerror(-ret));
	EXPECT_EQ(reason, self->c.error_reason)
		TH_LOG("reason %s", pto_reason_name(self->c.error_reason));
	EXPECT_EQ(node, self->c.error_node);
	EXPECT_EQ(detail, self->c.error_detail);
}

/* The one final CQE of the launch of self->c's graph: @status. */
static void launch_ends(struct __test_metadata *_metadata,
			FIXTURE_DATA(gh) *self, int status)
{
	struct pto_test_sqe e;
	struct pto_cqe cqes[4];
	uint64_t id = 0;
	int n;

	pto_tg_launch_init(&e, self->c.handle, NULL, 0, NULL, 0, NULL, 0, NULL);
	n = pto_tg_run(self->q, &e, 1, cqes, 4, &id, RUN_TIMEOUT);
	ASSERT_LE(1, n) TH_LOG("run: %s", strerror(-n));
	ASSERT_NE(NULL, pto_tg_find_final(cqes, n, id));
	EXPECT_EQ(status, pto_tg_find_final(cqes, n, id)->info.status)
		TH_LOG("reason %s detail %llu",
		       pto_reason_name(pto_tg_find_final(cqes, n, id)->info.reason),
		       (unsigned long long)pto_tg_find_final(cqes, n, id)->info.detail);
}

/* @n END producers, then an add node (out = in + 3) they all feed. */
static uint32_t fan_in(FIXTURE_DATA(gh) *self, uint32_t n)
{
	struct drm_pto_npu_tensor_arg t[2] = { pto_tg_targ(self->hin, 0, IN),
					       pto_tg_targ(self->hout, 0, OUT) };
	struct pto_test_sqe e;
	uint32_t i, sink;

	memset(self->g, 0, sizeof(*self->g));
	for (i = 0; i < n; i++)
		end_node(self->g, self->kend, 1);
	pto_tg_add_entry(&e, self->kadd, 1, t, 2, 3, 0, NULL, 0, NULL);
	sink = pto_gb_node(self->g, &e);
	for (i = 0; i < n; i++)
		pto_gb_edge(self->g, i, sink, 0);
	pto_gb_args(self->g, &self->c);
	return sink;
}

TEST_F(gh, fan_in_at_the_dependency_cap_runs)
{
	fan_in(self, self->lim.max_deps);
	ASSERT_EQ(0, pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_GRAPH_CREATE, &self->c))
		TH_LOG("reason %s detail %llu", pto_reason_name(self->c.error_reason),
		       (unsigned long long)self->c.error_detail);
	launch_ends(_metadata, self, PTO_STATUS_OK);
	EXPECT_EQ(0, pto_tg_mismatches(self->in, self->out, 3));
	EXPECT_EQ(0, pto_tg_destroy(self->fd, self->c.handle));
}

TEST_F(gh, fan_in_past_the_dependency_cap_is_refused)
{
	/* Edges are recorded producer by producer: the cap's is the last. */
	fan_in(self, self->lim.max_deps + 1);
	refused(_metadata, self, DRM_PTO_NPU_REASON_GRAPH, self->lim.max_deps,
		DRM_PTO_NPU_GRAPH_EDGE_FANIN);
}

/* The report's graph: two nodes, 256 copies of the edge 0 -> 1. */
TEST_F(gh, duplicate_edges_are_refused)
{
	uint32_t i;

	end_node(self->g, self->kend, 1);
	end_node(self->g, self->kend, 1);
	for (i = 0; i < 256; i++)
		pto_gb_edge(self->g, 0, 1, i % 2 ? DRM_PTO_NPU_GRAPH_EDGE_F_INFERRED : 0);
	/* All of them: more than a node's fan-in, refused at the first past it. */
	pto_gb_args(self->g, &self->c);
	refused(_metadata, self, DRM_PTO_NPU_REASON_GRAPH, self->lim.max_deps,
		DRM_PTO_NPU_GRAPH_EDGE_FANIN);
	/* Twice (once ordering only): the second is a duplicate. */
	self->g->nedges = 2;
	pto_gb_args(self->g, &self->c);
	refused(_metadata, self, DRM_PTO_NPU_REASON_GRAPH, 1,
		DRM_PTO_NPU_GRAPH_EDGE_DUPLICATE);
	/* Once, it runs. */
	self->g->nedges = 1;
	pto_gb_args(self->g, &self->c);
	ASSERT_EQ(0, pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_GRAPH_CREATE, &self->c));
	launch_ends(_metadata, self, PTO_STATUS_OK);
}

/*
 * The last node declares 16 tensors in the one slot of an END entry; its
 * entries end at a PROT_NONE page, as the kernel's copy of them ends.
 */
TEST_F(gh, node_counts_past_its_slots_at_the_buffer_end_are_refused)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *map, *at;
	uint32_t last;

	end_node(self->g, self->kend, 1);
	last = end_node(self->g, self->kend, 1);
	pto_gb_hdr(self->g, last)->num_tensors = self->lim.max_tensor_args;
	pto_gb_args(self->g, &self->c);
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + page, page, PROT_NONE));
	at = map + page - self->c.entries_size;
	memcpy(at, self->g->ent, self->c.entries_size);
	self->c.entries = (uintptr_t)at;
	refused(_metadata, self, DRM_PTO_NPU_REASON_SLOTS, last, 1);
	/* The same entries one byte short of the page: -EFAULT, not a read. */
	self->c.entries = (uintptr_t)(at + 1);
	EXPECT_EQ(-EFAULT, pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_GRAPH_CREATE,
					  &self->c));
	munmap(map, 2 * page);
}

/*
 * A launch takes its graph's units and its own at once: a graph of fewer
 * units than max_inflight_units is taken, one that leaves no room for its
 * launch's own record is refused at the node that fills it.
 */
TEST_F(gh, graph_units_past_the_in_flight_cap_are_refused)
{
	uint32_t fit = (self->lim.max_inflight_units - 1) / BIG_BLOCKS, h;
	uint8_t *buf;
	int ret;

	end_node(self->g, self->kend, BIG_BLOCKS);
	ASSERT_EQ(0, pto_gb_create_repeat(self->fd, self->g, 0, fit, &self->c, &h));
	EXPECT_EQ(0, pto_tg_destroy(self->fd, h));
	pto_gb_repeat(self->g, 0, fit + 1, &self->c, &buf);
	ASSERT_NE(NULL, buf);
	ret = pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_GRAPH_CREATE, &self->c);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_REASON_GRAPH, self->c.error_reason);
	EXPECT_EQ(fit, self->c.error_node);
	EXPECT_EQ((uint64_t)DRM_PTO_NPU_GRAPH_UNITS, self->c.error_detail);
	free(buf);
}

/*
 * A gate: it spins reading the flag at its tensor 0 (an int64 1 x 1 view)
 * until the test sets it to 1, then faults (a GLD one row past the view):
 * its consumers stay in flight exactly until the test opens it, however
 * fast the host (queue_uapi.c's cap test).
 */
static uint32_t gate_kernel(int fd)
{
	static const struct pto_insn gate[] = {
		{ .op = PTO_OP_LDI, .dst = 0, .imm = PTO_MAX_LOOP_COUNT },
		{ .op = PTO_OP_LDI, .dst = 2, .imm = 1000 },
		{ .op = PTO_OP_LDI, .dst = 4, .imm = 0 },
		{ .op = PTO_OP_LOOP, .dst = 1, .b = 0 },
		{ .op = PTO_OP_GLD, .dst = 5, .a = 4, .b = 4 },
		{ .op = PTO_OP_GLD, .dst = 6, .a = 5, .b = 4 },
		{ .op = PTO_OP_LOOP, .dst = 3, .b = 2 },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_ENDLOOP },
		{ .op = PTO_OP_END },
	};
	struct drm_pto_npu_kernel_create c = {
		.insns = (uintptr_t)gate, .num_insns = 10,
		.core_type = PTO_CORE_AIV,
	};

	return pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, &c) ? 0 : c.handle;
}

/*
 * Two launches of a graph of more than half the unit cap: the first waits
 * behind the gate, the second stays in the SQ (the doorbell takes two
 * entries) until the first's CQE is posted; then a doorbell takes it at
 * once (its nodes no longer count from the moment that CQE is seen, not
 * from when a worker frees the launch), and it runs, its predicate false.
 */
TEST_F(gh, launch_waits_in_the_sq_until_its_units_fit)
{
	uint32_t fill = (self->lim.max_inflight_units / 2) / BIG_BLOCKS + 1, i;
	struct drm_pto_npu_predicate p = { .tensor = 0, .op = PTO_CMP_GT };
	struct drm_pto_npu_tensor_arg b[2] = { pto_tg_targ(self->hin, 0, IN),
					       pto_tg_targ(self->hout, 0, IN | OUT) };
	struct drm_pto_npu_tensor_arg tflag;
	const int64_t s5 = 5, dep = -1;
	struct pto_test_sqe es[3];
	struct pto_cqe cqes[8];
	uint32_t graph, hp, hflag, kgate, consumed = 0;
	volatile int64_t *flag;
	uint64_t first = 0, id = 0;
	int n;

	ASSERT_NE(0U, kgate = gate_kernel(self->fd));
	ASSERT_EQ(0, pto_test_bo_create(self->fd, 4096, &hflag, NULL));
	flag = pto_test_bo_mmap(self->fd, hflag, NULL);
	ASSERT_NE(MAP_FAILED, (void *)flag);
	tflag = pto_test_targ(hflag, PTO_ISA_I64, 0, 1, 1);
	ASSERT_EQ(0, pto_test_bo_create(self->fd, 2 * TBYTES, &hp, NULL));
	pto_tg_pair_record(self->g, self->kadd, hp, 0);
	for (i = 0; i < fill; i++)
		end_node(self->g, self->kend, BIG_BLOCKS);
	ASSERT_EQ(0, pto_gb_create(self->fd, self->g, &self->c));
	graph = self->c.handle;
	self->in[0] = 0;
	pto_test_sqe_init(&es[0], kgate, 0, 1, &tflag, 1, NULL, 0, NULL, 0);
	pto_tg_launch_init(&es[1], graph, b, 2, &s5, 1, &dep, 1, &p);
	pto_tg_launch_init(&es[2], graph, b, 2, &s5, 1, NULL, 0, &p);
	EXPECT_EQ(-EIO, pto_tg_submit(self->q, es, 3, &first, NULL));
	/* Nothing completes before the gate opens: the third still waits. */
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &id));
	EXPECT_EQ(0U, consumed);
	*flag = 1;
	n = pto_tg_reap(self->q, cqes, 8, 2, RUN_TIMEOUT);
	ASSERT_EQ(2, n) TH_LOG("reap: %s", strerror(-n));
	ASSERT_NE(NULL, pto_tg_find_final(cqes, n, first));
	EXPECT_EQ(PTO_STATUS_GM_FAULT, pto_tg_find_final(cqes, n, first)->info.status);
	ASSERT_NE(NULL, pto_tg_find_final(cqes, n, first + 1));
	EXPECT_EQ(PTO_STATUS_DEP_FAILED,
		  pto_tg_find_final(cqes, n, first + 1)->info.status);
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &id));
	EXPECT_EQ(1U, consumed);
	EXPECT_EQ(first + 2, id);
	n = pto_tg_reap(self->q, cqes, 8, 1, RUN_TIMEOUT);
	ASSERT_EQ(1, n) TH_LOG("reap: %s", strerror(-n));
	ASSERT_NE(NULL, pto_tg_find_final(cqes, n, first + 2));
	EXPECT_EQ(PTO_STATUS_SKIPPED, pto_tg_find_final(cqes, n, first + 2)->info.status);
	EXPECT_EQ(PTO_TG_SENTINEL, self->out[0]) TH_LOG("a predicated-off node ran");
	EXPECT_EQ(0, pto_tg_destroy(self->fd, graph));
	munmap((void *)flag, 4096);
	pto_test_gem_close(self->fd, hflag);
	pto_test_gem_close(self->fd, hp);
}

/*
 * Kernels whose handles were destroyed under a graph stay alive, and
 * count: the fixture's two, then one per graph up to the cap.
 */
TEST_F_TIMEOUT(gh, kernels_held_by_graphs_count_against_the_cap, 120)
{
	uint32_t cap = self->lim.max_kernels_per_context, i, k, graph = 0;

	for (i = 2; i < cap; i++) {
		ASSERT_NE(0U, k = end_kernel(self->fd)) TH_LOG("kernel %u", i);
		memset(self->g, 0, sizeof(*self->g));
		end_node(self->g, k, 1);
		ASSERT_EQ(0, pto_gb_create(self->fd, self->g, &self->c));
		graph = self->c.handle;
		ASSERT_EQ(0, kernel_destroy(self->fd, k));
	}
	EXPECT_EQ(0U, end_kernel(self->fd)) TH_LOG("a kernel past the cap");
	/* A graph gone, its kernel with it: room for one. */
	ASSERT_EQ(0, pto_tg_destroy(self->fd, graph));
	EXPECT_NE(0U, k = end_kernel(self->fd));
	EXPECT_EQ(0U, end_kernel(self->fd));
}

/* KASAN in this kernel (its report function in /proc/kallsyms)? */
static int kernel_has_kasan(void)
{
	char line[256];
	int found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, " kasan_report\n") != NULL;
	if (f)
		fclose(f);
	return found;
}

/* MemFree of /proc/meminfo, KiB (0 if unreadable). */
static long mem_free_kib(void)
{
	char line[128];
	long kib = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemFree: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/*
 * The recorded nodes the caps admit, held by one context: graphs of
 * max_graph_nodes add nodes (2 tensors, 2 scalars), FANIN edges into each,
 * up to max_graph_nodes_per_context. The kernel memory they take (MemFree)
 * stays within Documentation/limits.rst's figure for that shape: 112
 * bytes a node, 56 a tensor, 8 a scalar, 8 an edge, and 1 KiB a graph.
 */
#define FANIN 16
TEST_F_TIMEOUT(gh, recorded_nodes_at_the_caps_hold_the_documented_memory, 240)
{
	uint32_t n = self->lim.max_graph_nodes, i, k, j, ng, e = 0;
	uint32_t graphs = self->lim.max_graph_nodes_per_context / n;
	struct drm_pto_npu_tensor_arg t[2] = { pto_tg_targ(self->hin, 0, IN),
					       pto_tg_targ(self->hout, 0, OUT) };
	struct drm_pto_npu_graph_edge *edges;
	uint32_t *handles = calloc(graphs, sizeof(*handles));
	struct pto_test_sqe en;
	long before, used, bound;
	uint8_t *buf;

	pto_tg_add_entry(&en, self->kadd, 1, t, 2, 3, 0, NULL, 0, NULL);
	pto_gb_node(self->g, &en);
	edges = calloc((size_t)n * FANIN, sizeof(*edges));
	ASSERT_NE(NULL, edges);
	ASSERT_NE(NULL, handles);
	for (i = 1; i < n; i++)
		for (k = 1; k <= FANIN && k <= i; k++)
			edges[e++] = (struct drm_pto_npu_graph_edge){
				.producer = i - k, .consumer = i };
	ASSERT_GE(self->lim.max_graph_edges, e);
	/* The fixture's graphs: none; its buffers and kernels are there already. */
	before = mem_free_kib();
	for (ng = 0; ng < graphs; ng++) {
		pto_gb_repeat(self->g, 0, n, &self->c, &buf);
		ASSERT_NE(NULL, buf);
		self->c.edges = (uintptr_t)edges;
		self->c.num_edges = e;
		ASSERT_EQ(0, pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_GRAPH_CREATE,
					    &self->c)) TH_LOG("graph %u", ng);
		handles[ng] = self->c.handle;
		free(buf);
	}
	/* One more node is past the context's cap. */
	memset(&self->c, 0, sizeof(self->c));
	pto_gb_args(self->g, &self->c);
	EXPECT_EQ(-ENOSPC, pto_test_ioctl(self->fd, DRM_IOCTL_PTO_NPU_GRAPH_CREATE,
					  &self->c));
	used = before - mem_free_kib();
	bound = ((long)graphs * n * (112 + 2 * 56 + 2 * 8) + (long)graphs * e * 8 +
		 graphs * 1024L) / 1024;
	TH_LOG("%u nodes, %u edges: %ld KiB (%ld bytes a node), documented %ld KiB",
	       graphs * n, graphs * e, used, used * 1024 / ((long)graphs * n), bound);
	/*
	 * MemFree also counts the allocator's own: slab rounding and vmalloc
	 * pages (430 bytes a node measured on Debian's 6.12 for these 368).
	 * Twice the figure and 2 MiB catch a template per node (a2b2d3e:
	 * some 30 KiB a node). Under KASAN its redzones and the quarantine
	 * that holds each node's freed validation task count too, by how
	 * much depends on what ran before (671 and 1259 bytes a node
	 * measured): reported there, not judged.
	 */
	if (!kernel_has_kasan())
		EXPECT_LE(used, 2 * bound + 2048);
	for (j = 0; j < ng; j++)
		EXPECT_EQ(0, pto_tg_destroy(self->fd, handles[j]));
	free(handles);
	free(edges);
}

TEST_HARNESS_MAIN
