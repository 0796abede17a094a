/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the graph replay kselftests (graph_replay.c,
 * graph_replay_fuzz.c): recording a graph for GRAPH_CREATE, launch
 * entries, submitting entries and reaping their final CQEs, the add and
 * mixed kernels, and the two graphs the tests launch. Compiled in lib/
 * like pto_test_lib.h's helpers (no kselftest harness here: the checks
 * stay in the tests). Uses libpto: includes pto_test_lib.h with
 * PTO_TEST_LIBPTO.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#ifndef PTO_TEST_GRAPH_H
#define PTO_TEST_GRAPH_H

#ifndef PTO_TEST_LIBPTO
#define PTO_TEST_LIBPTO
#endif
#include "pto_test_lib.h"

/* Every tensor of the add kernel: int32 [ROWS, COLS], TBYTES apart. */
#define PTO_TG_ROWS 4
#define PTO_TG_COLS 16
#define PTO_TG_TELEMS (PTO_TG_ROWS * PTO_TG_COLS)
#define PTO_TG_TBYTES (PTO_TG_TELEMS * 4)
/* What the tests fill output buffers with before a run. */
#define PTO_TG_SENTINEL (-7)
/* pto_tg_mismatches()'s @add for "nothing written" (all SENTINEL). */
#define PTO_TG_UNTOUCHED 0x7fff

#define PTO_GB_MAX_NODES 128
#define PTO_GB_MAX_EDGES 256
#define PTO_GB_MAX_BINDS 64
#define PTO_TG_NODE_BYTES (PTO_TEST_SQE_MAX_SLOTS * DRM_PTO_NPU_SQ_SLOT_SIZE)

/* A graph being recorded: node entries back to back, edges, bindings. */
struct pto_gb {
	uint32_t size, nodes, nedges, nbinds, ntp, nsp;
	struct drm_pto_npu_graph_edge edges[PTO_GB_MAX_EDGES];
	struct drm_pto_npu_graph_binding binds[PTO_GB_MAX_BINDS];
	uint8_t ent[PTO_GB_MAX_NODES * PTO_TG_NODE_BYTES];
};

/* Appends entry @e as the next node; returns its index. */
uint32_t pto_gb_node(struct pto_gb *g, const struct pto_test_sqe *e);
void pto_gb_edge(struct pto_gb *g, uint32_t p, uint32_t c, uint32_t flags);
/* A binding; the parameter counts follow (pto_gb_bind_raw(): they do not). */
void pto_gb_bind(struct pto_gb *g, uint32_t node, uint8_t kind, uint8_t arg,
		 uint16_t param);
void pto_gb_bind_raw(struct pto_gb *g, uint32_t node, uint8_t kind,
		     uint8_t arg, uint16_t param);
/* The header of node @k of @g's entries; tensor argument @i of node @k. */
struct drm_pto_npu_sqe *pto_gb_hdr(struct pto_gb *g, uint32_t k);
struct drm_pto_npu_tensor_arg *pto_gb_targ(struct pto_gb *g, uint32_t k,
					   uint32_t i);
/* GRAPH_CREATE arguments of @g (fields not in @g zero). */
void pto_gb_args(const struct pto_gb *g, struct drm_pto_npu_graph_create *c);
/* GRAPH_CREATE of @g: 0 or -errno; @c has the handle or the refusal. */
int pto_gb_create(int fd, const struct pto_gb *g,
		  struct drm_pto_npu_graph_create *c);
/*
 * GRAPH_CREATE arguments for @n copies of node @k of @g, without edges or
 * parameters; *@buf gets the entries (free it; NULL if out of memory).
 */
void pto_gb_repeat(struct pto_gb *g, uint32_t k, uint32_t n,
		   struct drm_pto_npu_graph_create *c, uint8_t **buf);
/* GRAPH_CREATE of pto_gb_repeat(): 0 or -errno; *@h the handle. */
int pto_gb_create_repeat(int fd, struct pto_gb *g, uint32_t k, uint32_t n,
			 struct drm_pto_npu_graph_create *c, uint32_t *h);

int pto_tg_destroy(int fd, uint32_t handle);

/* An int32 [ROWS, COLS] view at @off of buffer @h, direction @dir. */
struct drm_pto_npu_tensor_arg pto_tg_targ(uint32_t h, uint64_t off,
					  uint16_t dir);

/* An add-kernel entry: t1 = t0 + @add, after @spin idle iterations. */
void pto_tg_add_entry(struct pto_test_sqe *e, uint32_t k, uint32_t blocks,
		      const struct drm_pto_npu_tensor_arg *t, uint32_t nt,
		      int64_t add, int64_t spin, const int64_t *deps,
		      uint32_t nd, const struct drm_pto_npu_predicate *pred);

/* A launch of graph @graph: its bindings, dependencies and predicate. */
void pto_tg_launch_init(struct pto_test_sqe *e, uint32_t graph,
			const struct drm_pto_npu_tensor_arg *t, uint32_t nt,
			const int64_t *s, uint32_t ns, const int64_t *deps,
			uint32_t nd, const struct drm_pto_npu_predicate *pred);

size_t pto_tg_sqe_bytes(const struct pto_test_sqe *e);

/* The CQE a task ends with: LAST, and not a node's. */
int pto_tg_is_final(const struct pto_cqe *c);
/* The final CQE of task @id among @n, or NULL. */
const struct pto_cqe *pto_tg_find_final(const struct pto_cqe *c, int n,
					uint64_t id);

/*
 * Pushes @n entries and rings once: 0 or -errno (-EIO: not all taken).
 * *@first (if not NULL) gets the first task id, @ids (if not NULL) all.
 */
int pto_tg_submit(struct pto_queue *q, const struct pto_test_sqe *es,
		  unsigned int n, uint64_t *first, uint64_t *ids);
/* Reads CQEs into @cqes until @n final ones: the CQEs read, or -errno. */
int pto_tg_reap(struct pto_queue *q, struct pto_cqe *cqes, unsigned int cap,
		unsigned int n, int64_t timeout_ns);
/* pto_tg_submit() then pto_tg_reap(); @ids gets the task ids. */
int pto_tg_run(struct pto_queue *q, const struct pto_test_sqe *es,
	       unsigned int n, struct pto_cqe *cqes, unsigned int cap,
	       uint64_t *ids, int64_t timeout_ns);

/* A new buffer of @size bytes, mapped; NULL on failure. */
int32_t *pto_tg_bo_new(int fd, size_t size, uint32_t *h);
void pto_tg_fill(int32_t *p, size_t n, int32_t v);
/* Elements of @p (@n) equal to @v. */
int pto_tg_count_eq(const int32_t *p, size_t n, int32_t v);
/* Elements of @out (TELEMS) that are not @in + @add (SENTINEL: UNTOUCHED). */
int pto_tg_mismatches(const int32_t *in, const int32_t *out, int32_t add);

/*
 * The add kernel: for each row r of its blocks' share (r = block_idx +
 * i * block_num), t1[r, :] = t0[r, :] + ARG0, after ARG1 idle iterations.
 */
struct pto_kernel *pto_tg_build_add(struct pto_device *dev, char *err,
				    size_t len);
/* A mixed pair: the AIC loads t0 and pushes it, the AIV pops, adds 1, stores t1. */
int pto_tg_build_mix(struct pto_device *dev, struct pto_kernel **aic,
		     struct pto_kernel **aiv, char *err, size_t len);
/*
 * The same pair for a split (@split: UP_DOWN, each AIV a half of the
 * rows), the AIV adding @add (0: it stores what it pops).
 */
int pto_tg_build_mix_split(struct pto_device *dev, int split, int add,
			   struct pto_kernel **aic, struct pto_kernel **aiv,
			   char *err, size_t len);

/*
 * The pipe graph (graph_replay.c): @n add nodes in a chain (named edges),
 * each after @spin idle iterations, node @spmd of 2 blocks; node 0 adds
 * scalar parameter 0 to tensor parameter 0 (IN), the others 1, the last
 * writes tensor parameter 1 (OUT): out = in + s + n - 1. Node i's
 * user_data is 0x100 + i. Recorded on buffers of its own, closed once
 * recorded (the graph holds them).
 */
int pto_tg_pipe_graph(int fd, uint32_t kadd, unsigned int n, int64_t spin,
		      unsigned int spmd, struct drm_pto_npu_graph_create *c);
/* A launch of a pipe graph on views @in_off of @hin and @out_off of @hout. */
void pto_tg_pipe_launch(struct pto_test_sqe *e, uint32_t graph, uint32_t hin,
			uint64_t in_off, uint32_t hout, uint64_t out_off,
			int64_t s, const int64_t *deps, uint32_t nd,
			const struct drm_pto_npu_predicate *pred);

/*
 * The small graph (graph_replay_fuzz.c): node 0 out = in + s, node 1 out
 * += 1 in place; tensor parameter 0 is IN, 1 is IN | OUT, scalar
 * parameter 0 is s. pto_tg_pair_record() records it into @g (zeroed
 * first) on buffer @hp (2 x TBYTES), @spin per node; pto_tg_pair_graph()
 * creates it on buffers of its own (closed: the graph holds them).
 */
void pto_tg_pair_record(struct pto_gb *g, uint32_t kadd, uint32_t hp,
			int64_t spin);
int pto_tg_pair_graph(int fd, uint32_t kadd, int64_t spin, uint32_t *handle);
/* A launch of the small graph: in (IN) and out (IN | OUT) views, scalar @s. */
void pto_tg_pair_launch(struct pto_test_sqe *e, uint32_t graph, uint32_t hin,
			uint64_t in_off, uint32_t hout, uint64_t out_off,
			int64_t s, const struct drm_pto_npu_predicate *pred);

/* Random fields (graph_replay_fuzz.c): a xorshift step of @s. */
uint64_t pto_tg_rnd(uint64_t *s);
/* A random value, small more often than not. */
uint32_t pto_tg_rnd_val(uint64_t *s);
/*
 * @g's GRAPH_CREATE arguments into @c with, by @r (random), one count or
 * flag of the ioctl, or one byte of @g's entries, edges or bindings, made
 * random (from @seed).
 */
void pto_tg_fuzz_record(struct pto_gb *g, struct drm_pto_npu_graph_create *c,
			uint64_t r, uint64_t *seed);
/* @n random launch fields of @e (header and first tensor args) made random. */
void pto_tg_fuzz_fields(struct pto_test_sqe *e, unsigned int n,
			uint64_t *seed);

#endif /* PTO_TEST_GRAPH_H */
