/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
#ifndef __PTO_GRAPH_H__
#define __PTO_GRAPH_H__

#include <linux/cleanup.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>

#include "pto_drv.h"

struct drm_device;
struct drm_file;
struct pto_core;
struct pto_gbuild;
struct pto_infer_rec;
struct pto_queue;
struct pto_sched;
struct pto_targ;
struct pto_task;

/* enum pto_graph_role - &pto_task.graph */
enum pto_graph_role {
	PTO_GRAPH_NONE = 0,	/* an entry */
	PTO_GRAPH_LAUNCH = 1,	/* a launch: the graph's head and tail */
	PTO_GRAPH_NODE = 2,	/* a node of a launch */
};

/**
 * struct pto_gnode - one recorded node: what its validated entry resolved
 *                    to, all a launch needs to make its task (no entry is
 *                    kept, and no task: pto_launch_node())
 * @kern: its kernels (a reference each), by &enum pto_cidx
 * @user_data: the entry's
 * @flags: the entry's task flags
 * @block_num: blocks, sentinels resolved
 * @ring_base: a mixed node's ring offset in the UB
 * @bar_parties: a HARD syncall's parties, or 0
 * @c2v_bytes: a mixed node's cube-to-vector slot bytes per part
 * @v2c_bytes: its vector-to-cube slot bytes per part
 * @targ0: index of its first tensor argument in &pto_graph.targs
 * @scal0: index of its first scalar in &pto_graph.scalars
 * @edge0: index of its first incoming edge in &pto_graph.in
 * @nedges: incoming edges (its fanin at each launch)
 * @bind0: index of its first binding in &pto_graph.bind
 * @nbind: its bindings
 * @pred: its predicate (DRM_PTO_NPU_TASK_F_PREDICATE)
 * @slot_num: a mixed node's ring slots
 * @num_tensors: tensor arguments
 * @num_scalars: scalar arguments
 * @split: a mixed node's &enum drm_pto_npu_split_mode
 * @nparts: units per block
 * @directed: some tensor argument has a direction
 * @tbound: its tensor arguments set by a binding (one each at most)
 * @sbound: its scalar arguments set by a binding
 */
struct pto_gnode {
	struct pto_kernel *kern[PTO_NUM_CIDX];
	u64 user_data;
	u32 flags;
	u32 block_num;
	u32 ring_base;
	u32 bar_parties;
	u32 c2v_bytes;
	u32 v2c_bytes;
	u32 targ0;
	u32 scal0;
	u32 edge0;
	u32 nedges;
	u32 bind0;
	u32 nbind;
	struct drm_pto_npu_predicate pred;
	u8 slot_num;
	u8 num_tensors;
	u8 num_scalars;
	u8 split;
	u8 nparts;
	bool directed;
	u16 tbound;
	u16 sbound;
};

/**
 * struct pto_gin - an incoming edge of a node
 * @producer: the node it waits for
 * @inferred: orders only (DRM_PTO_NPU_GRAPH_EDGE_F_INFERRED)
 */
struct pto_gin {
	u32 producer;
	bool inferred;
};

/**
 * struct pto_gparam - a tensor parameter of a graph
 * @layout: the recorded argument (its handle and offset unused): a launch's
 *          tensor must have its dtype, ndim, shape and strides
 * @dir: the union of its uses' directions: the launch's tensor's flags
 * @acc: PTO_ACC_*, the kernels' use of it where it is bound undirected
 *       (a sanitizing launch's access of its tensor, pto_infer.c)
 */
struct pto_gparam {
	struct drm_pto_npu_tensor_arg layout;
	u16 dir;
	u8 acc;
};

/**
 * struct pto_gacc - the nodes' accesses of one recorded (unbound) buffer,
 *                   merged: what a launch enters in its context's
 *                   inference trees for them (pto_graph_infer.c)
 * @bo: the buffer (the graph's reference, held in &pto_graph.targs)
 * @start: the first byte of the hull of the merged views
 * @last: its last byte
 * @node: the lowest node accessing it this way (named in reports)
 * @arg: that node's tensor argument
 * @acc: PTO_ACC_*, the union of the merged accesses
 * @directed: merged from directed arguments; else from undirected ones as
 *            their kernels access them (entered by sanitizing launches)
 */
struct pto_gacc {
	struct pto_bo *bo;
	u64 start;
	u64 last;
	u32 node;
	u8 arg;
	u8 acc;
	bool directed;
};

/* &pto_gpred.param of an operand recorded, not bound. */
#define PTO_GPRED_RECORDED U32_MAX

/**
 * struct pto_gpred - a predicated node: what a sanitizing launch checks at
 *                    intake against the writers outside the graph
 * @node: the node
 * @param: the tensor parameter its operand is bound to, or
 *         PTO_GPRED_RECORDED
 */
struct pto_gpred {
	u32 node;
	u32 param;
};

/**
 * struct pto_graph - a recorded task graph (GRAPH_CREATE)
 * @ref: the handle's reference and one per launch taken
 * @ctx: its context (the graph never outlives the context's close)
 * @nnodes: nodes
 * @ntp: tensor parameters
 * @nsp: scalar parameters
 * @ntargs: tensor arguments of all nodes held in @targs
 * @units: block records of all nodes: what a launch counts against the
 *         context's PTO_MAX_INFLIGHT_UNITS before it is taken
 * @nodes: the nodes, in recording order (edges go forward)
 * @in: incoming edges, grouped by consumer
 * @bind: bindings, grouped by node
 * @targs: the nodes' tensor arguments, resolved (a reference to each
 *         buffer), grouped by node
 * @scalars: the nodes' scalar arguments, grouped by node
 * @haz_node: the node of the first hazard GRAPH_CREATE found inside the
 *            graph (RACE, PREDICATE: pto_graph_infer.c)
 * @haz_count: the hazards it found
 * @haz: the first one (@other_task set at each launch)
 * @preds: its predicated nodes, in node order
 * @npreds: entries in @preds
 * @acc: the merged accesses of recorded buffers, directed ones first
 * @nacc: records in @acc
 * @nacc_dir: directed ones among them (all a launch that does not
 *            sanitize enters)
 * @tparam: tensor parameters
 */
struct pto_graph {
	struct kref ref;
	struct pto_ctx *ctx;
	u32 nnodes;
	u32 ntp;
	u32 nsp;
	u32 ntargs;
	u32 units;
	struct pto_gnode *nodes;
	struct pto_gin *in;
	struct drm_pto_npu_graph_binding *bind;
	struct pto_targ *targs;
	s64 *scalars;
	u32 haz_node;
	u32 haz_count;
	struct drm_pto_npu_hazard haz;
	struct pto_gpred *preds;
	u32 npreds;
	struct pto_gacc *acc;
	u32 nacc;
	u32 nacc_dir;
	struct pto_gparam tparam[PTO_MAX_TENSOR_ARGS];
};

/**
 * struct pto_launch - one launch of a graph in flight, in its task's
 *                      allocation (no allocation of its own at intake)
 * @g: the graph (a reference)
 * @launch: the launch's task: the head (its dependencies, predicate) and
 *          the tail (its one CQE, its consumers)
 * @nnodes: nodes
 * @left: nodes not yet complete (sched lock)
 * @expanded: the nodes were handed to the scheduler (sched lock)
 * @released: nodes never expanded no longer count against the context's
 *            caps (pto_launch_unqueue(): its CQE is posted)
 * @fail_node: the first node that failed, in completion order
 * @nrecs: the launch's access records: its bound tensors', then one per
 *         &pto_graph.acc entered (&pto_task.irecs points to @recs)
 * @recs: the records, or NULL when the launch enters no recorded buffer
 * @haz_node: the lowest node that met a hazard so far, or U32_MAX
 *            (a sanitizing launch; sched lock)
 * @haz_count: hazards its nodes met (sched lock)
 * @haz: @haz_node's first hazard, its @node set (sched lock)
 * @nodes: the node tasks, allocated at intake; after expansion each frees
 *         itself, and the pointers are not used again
 */
struct pto_launch {
	struct pto_graph *g;
	struct pto_task *launch;
	u32 nnodes;
	u32 left;
	bool expanded;
	bool released;
	u32 fail_node;
	u32 nrecs;
	struct pto_infer_rec *recs;
	u32 haz_node;
	u32 haz_count;
	struct drm_pto_npu_hazard haz;
	struct pto_task *nodes[] __counted_by(nnodes);
};

/* pto_graph.c */
struct pto_graph *pto_graph_lookup(struct pto_ctx *ctx, u32 handle);
void pto_graph_put(struct pto_graph *g);
DEFINE_FREE(pto_graph_put, struct pto_graph *, pto_graph_put(_T))
void pto_graphs_release(struct pto_ctx *ctx);
int pto_ioctl_graph_create(struct drm_device *drm, void *data,
			   struct drm_file *file);
int pto_ioctl_graph_destroy(struct drm_device *drm, void *data,
			    struct drm_file *file);

/* pto_graph_infer.c */
int pto_graph_accesses(struct pto_graph *g);
int pto_graph_infer(struct pto_graph *g, u32 *bad);
int pto_graph_preds(struct pto_graph *g);
u8 pto_gnode_acc(const struct pto_gnode *gn, u32 arg);

/* pto_launch.c */
int pto_launch_parse(struct pto_device *pdev, struct drm_file *file,
		     struct pto_queue *q, struct pto_task *t,
		     const struct drm_pto_npu_sqe *e, struct pto_graph *g,
		     s64 *deps);
void pto_launch_expand(struct pto_sched *s, struct pto_task *t,
		       struct list_head *work, struct pto_core **adopt,
		       u64 *now);
void pto_launch_node_done(struct pto_task *node, struct list_head *work);
void pto_launch_fill_cqe(struct drm_pto_npu_cqe *cqe, const struct pto_task *t);
void pto_launch_unqueue(struct pto_task *t);
void pto_launch_free(struct pto_task *t);

#endif /* __PTO_GRAPH_H__ */
