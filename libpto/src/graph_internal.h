/* SPDX-License-Identifier: MIT */
/*
 * libpto internal: the task graph's representation, shared by its
 * builder (graph.c), runners (graph_run.c, replay_run.c), results
 * (graph_results.c) and trace writers (trace*.c).
 */
#ifndef PTO_GRAPH_INTERNAL_H
#define PTO_GRAPH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "internal.h"

#define PTO_GRAPH_NAME_SIZE 96
/** PTO_GRAPH_MSG_SIZE - bytes of pto_graph_error() text. */
#define PTO_GRAPH_MSG_SIZE 256

/* A growable array of fixed-size elements. */
struct pto_vec {
	void *data;
	size_t n;
	size_t cap;
};

/**
 * struct pto_graph_task - one task and its result
 * @task_id: id the device gave it in the last run, 0 until taken
 * @detail: status detail
 * @block_off: first of its block records in &pto_graph.blocks
 * @name: offset + 1 of its name in &pto_graph.names, 0 if none
 * @kernel: kernel handles, [0] AIV and [1] AIC, 0 for none
 * @flags: DRM_PTO_NPU_TASK_F_*, the predicate flag included
 * @block_num: blocks (a grid sentinel resolved)
 * @grid: PTO_GRID_ALL_AIV or PTO_GRID_ALL_CLUSTERS as given, sent as is;
 *	  0 for a literal block count
 * @tensor_off: first tensor argument in &pto_graph.tensors
 * @scalar_off: first scalar in &pto_graph.scalars
 * @dep_off: first dependency in &pto_graph.deps
 * @pred: its predicate in &pto_graph.preds (with the predicate flag)
 * @nblocks: block records of the last run
 * @status: enum pto_status of the last run
 * @num_tensors: tensor arguments
 * @num_scalars: scalars
 * @num_deps: dependencies
 * @reason: enum pto_reason of the last run
 * @split_mode: mixed tasks: enum pto_split_mode
 * @slot_num: mixed tasks: cross-core ring slots as given (0: default)
 * @idep_off: first inferred dependency in &pto_graph.ideps
 * @num_ideps: dependencies inferred from tensor directions (not in @deps)
 */
struct pto_graph_task {
	uint64_t task_id;
	uint64_t detail;
	uint64_t block_off;
	uint32_t name;
	uint32_t kernel[2];
	uint32_t flags;
	uint32_t block_num;
	uint32_t grid;
	uint32_t tensor_off;
	uint32_t scalar_off;
	uint32_t dep_off;
	uint32_t pred;
	uint32_t nblocks;
	int32_t status;
	uint8_t num_tensors;
	uint8_t num_scalars;
	uint8_t num_deps;
	uint8_t reason;
	uint8_t split_mode;
	uint16_t slot_num;
	uint32_t idep_off;
	uint32_t num_ideps;
};

/**
 * struct pto_graph_access - a directed tensor argument's byte range, as
 * dependency inference sees it (the device's rule, kmod/pto_infer.c)
 * @handle: its buffer
 * @task: graph index of the task
 * @start: first byte
 * @last: last byte the view can address
 * @dir: PTO_ARG_IN / PTO_ARG_OUT bits
 */
struct pto_graph_access {
	uint32_t handle;
	uint32_t task;
	uint64_t start;
	uint64_t last;
	uint8_t dir;
};

/**
 * struct pto_graph - a task graph
 * @dev: device
 * @tasks: struct pto_graph_task
 * @tensors: struct drm_pto_npu_tensor_arg of every task
 * @tensor_use: per tensor argument: PTO_ARG_* bits of the task's kernels
 * @scalars: int64_t scalars of every task
 * @deps: uint32_t dependencies (graph indexes) of every task
 * @ideps: uint32_t dependencies inferred from tensor directions
 * @access: struct pto_graph_access: the directed ranges no later directed
 *	    write covers (what a new task's inferred dependencies come from)
 * @preds: struct drm_pto_npu_predicate
 * @names: NUL-terminated names
 * @blocks: struct pto_block_info results, one run's worth
 * @total_blocks: block records of all tasks (pto_task_records())
 * @ran: a run has started since the graph was made
 * @msg: pto_graph_error() text
 * @name: pto_graph_set_name(), names trace files
 * @runs: runs so far (numbers trace files of unnamed graphs)
 * @replay: the last run's launch when it was pto_graph_replay()
 * @id: this graph's identity, unique in the process (pto_graph_new()): a
 *	recording remembers it, pto_graph_replay() compares it
 */
struct pto_graph {
	struct pto_device *dev;
	struct pto_vec tasks;
	struct pto_vec tensors;
	struct pto_vec tensor_use;
	struct pto_vec scalars;
	struct pto_vec deps;
	struct pto_vec ideps;
	struct pto_vec access;
	struct pto_vec preds;
	struct pto_vec names;
	struct pto_block_info *blocks;
	struct pto_block_prof *profs;
	struct pto_sched_rec *scheds;
	struct pto_vec hazards;
	uint64_t total_blocks;
	bool ran;
	char msg[PTO_GRAPH_MSG_SIZE];
	char name[PTO_GRAPH_NAME_SIZE];
	unsigned int runs;
	struct pto_graph_replay_info {
		bool on;
		uint32_t graph;
		uint64_t launch;
		struct pto_cqe cqe;
		struct pto_sched_rec sched;
	} replay;
	uint64_t id;
};

/*
 * A hazard of the last run (a sanitizing queue): the graph task, the
 * completion it came with and the report.
 */
struct pto_graph_hazard {
	uint32_t task;
	struct pto_cqe cqe;
	struct pto_hazard h;
};

/* graph.c: room for @extra more elements of @size bytes (-E2BIG past
 * 2^32 elements, -ENOMEM); append @count reserved ones, their index. */
int pto_vec_reserve(struct pto_vec *v, size_t size, size_t extra);
uint32_t pto_vec_append(struct pto_vec *v, size_t size, const void *src,
			size_t count);

#define PTO_VEC_AT(v, type, i) (&((type *)(v)->data)[i])

static inline const char *pto_graph_name_at(const struct pto_graph *g,
					    uint32_t off)
{
	return off ? (const char *)g->names.data + off - 1 : NULL;
}

/* Task @t's dependencies: its own (@d < num_deps), then the inferred. */
static inline uint32_t pto_graph_ndeps(const struct pto_graph_task *t)
{
	return t->num_deps + t->num_ideps;
}

static inline uint32_t pto_graph_dep(const struct pto_graph *g,
				     const struct pto_graph_task *t, uint32_t d)
{
	if (d < t->num_deps)
		return *PTO_VEC_AT(&g->deps, uint32_t, t->dep_off + d);
	return *PTO_VEC_AT(&g->ideps, uint32_t, t->idep_off + d - t->num_deps);
}

static inline struct pto_graph_task *pto_graph_task_at(const struct pto_graph *g,
						      size_t i)
{
	return PTO_VEC_AT(&g->tasks, struct pto_graph_task, i);
}

/*
 * Completions a task that ran posts: one per block and core. A mixed task
 * (AIC + AIV kernels) runs each block on its cluster's AIC and one AIV
 * (split NONE) or both (UP_DOWN).
 */
static inline uint32_t pto_graph_task_parts(bool mixed, uint32_t split_mode)
{
	if (!mixed)
		return 1;
	return split_mode == PTO_SPLIT_UP_DOWN ? 3 : 2;
}

static inline uint32_t pto_graph_task_records(const struct pto_graph_task *t)
{
	return t->block_num * pto_graph_task_parts(t->kernel[0] && t->kernel[1],
						   t->split_mode);
}

static inline bool pto_graph_status_ok(int status)
{
	return status == PTO_STATUS_OK || status == PTO_STATUS_SKIPPED;
}

/*
 * graph_run.c, shared by pto_graph_run() and pto_graph_replay():
 * pto_graph_run_begin() checks @q and resets the results (-EINVAL,
 * -EBUSY with the reason in g->msg; -ENOMEM); pto_graph_run_record()
 * records completion @cqe of task @idx, true when it was the task's last;
 * pto_graph_run_end() writes the traces and turns @ret and the tasks'
 * statuses into the run's return value and message;
 * pto_graph_deadline(): now + @timeout_ns, INT64_MAX for none.
 */
int pto_graph_run_begin(struct pto_graph *g, struct pto_queue *q);
bool pto_graph_run_record(struct pto_graph *g, size_t idx,
			  const struct drm_pto_npu_cqe *cqe,
			  const struct drm_pto_npu_prof *prof,
			  const struct drm_pto_npu_hazard *haz);
int pto_graph_run_end(struct pto_graph *g, struct pto_queue *q, int ret,
		      size_t done, size_t taken);
int64_t pto_graph_deadline(int64_t timeout_ns);
/* graph.c: task @t's name ("" if none); "task 3 'name'" or "task 3". */
const char *pto_graph_task_name_at(const struct pto_graph *g,
				   const struct pto_graph_task *t);
void pto_graph_task_label(char *buf, size_t len, size_t idx, const char *name);
/* graph_results.c: PTO_SANITIZE=1 prints the run's hazards on stderr. */
void pto_graph_print_hazards(const struct pto_graph *g);
/**
 * struct pto_graph_exec - a recorded graph (replay.c records it,
 * graph_launch.c launches it)
 * @dev: device
 * @handle: graph handle, never 0
 * @num_nodes: nodes (the graph's tasks)
 * @ntp: tensor parameters
 * @nsp: scalar parameters
 * @graph_id: &pto_graph.id of the graph it was recorded from
 * @tparam: per tensor parameter: the recorded layout, flags the OR of its
 *	    uses' directions (what a launch must pass)
 */
struct pto_graph_exec {
	struct pto_device *dev;
	uint32_t handle;
	uint32_t num_nodes;
	uint32_t ntp;
	uint32_t nsp;
	uint64_t graph_id;
	struct drm_pto_npu_tensor_arg tparam[PTO_MAX_ARGS];
};

struct pto_graph_launch_opts;

/*
 * graph_launch.c: the launch entry of @x on @q's SQ with @o's extras
 * (NULL: none); -EINVAL with the parameter and the field that differs in
 * @why (@len bytes) when a bound tensor does not match its parameter.
 */
int pto_graph_launch_entry(struct pto_graph_exec *x, struct pto_queue *q,
			   const struct pto_tensor *const *tensors,
			   const int64_t *scalars,
			   const struct pto_graph_launch_opts *o, char *why,
			   size_t len);

/* trace.c: write the swimlane and deps.json of the last run when
 * PTO_TRACE_DIR is set in the environment. */
/* graph_run.c: task @i's SQ entry, without dependencies (replay.c too). */
void pto_graph_sqe_parts(const struct pto_graph *g, size_t i,
			 uint64_t user_data, struct pto_sqe_parts *e);

void pto_trace_export(struct pto_graph *g);

/*
 * trace.c, for every file libpto writes about a graph: @str as a JSON
 * string, valid UTF-8 (a byte outside a well-formed sequence becomes
 * U+FFFD; quotes, backslashes and control characters escaped); and task
 * @i's name, or "task <i>" in @buf when it has none.
 */
void pto_json_str(FILE *f, const char *str);
const char *pto_trace_task_name(const struct pto_graph *g, size_t i,
				char *buf, size_t len);
/* trace.c: a task's shape ("aiv", "aic", "mix"...), a predicate's op. */
const char *pto_trace_shape_name(const struct pto_graph_task *t);
const char *pto_trace_cmp_name(unsigned int op);

/*
 * sched_phases.c: the scheduler's phases of a graph's last run, from its
 * scheduler records. pto_graph_sched_at(): the record of task @i's unit
 * @k, or NULL; pto_graph_have_sched(): whether the run has any (a module
 * of uapi 6 or later); pto_graph_phases(): the phases, each iteration's
 * outer phases (complete, dispatch, early_dispatch) cut so that none
 * overlaps another, then its inner ones (resolve, predicated_skip), in
 * the run's iteration order; *@phases is the caller's to free.
 */
enum pto_phase_kind {
	PTO_PHASE_COMPLETE,
	PTO_PHASE_DISPATCH,
	PTO_PHASE_EARLY,
	PTO_PHASE_RESOLVE,
	PTO_PHASE_SKIP,
	PTO_PHASE_KINDS
};

struct pto_phase {
	uint64_t b, e;		/* CLOCK_MONOTONIC ns */
	size_t loop;		/* the run's iteration, from 1 */
	unsigned int kind;	/* enum pto_phase_kind */
	size_t n;		/* what it processed; 0 on a cut phase's later parts */
	size_t task;		/* a resolve's or skip's task (graph index) */
};

extern const char *const pto_phase_name[PTO_PHASE_KINDS];
const struct pto_sched_rec *pto_graph_sched_at(const struct pto_graph *g,
					       size_t i, unsigned int k);
bool pto_graph_have_sched(const struct pto_graph *g);
int pto_graph_phases(const struct pto_graph *g, struct pto_phase **phases,
		     size_t *count);
/* Each task's intake (b, e, task), in intake order; *@intakes the caller's. */
int pto_graph_intakes(const struct pto_graph *g, struct pto_phase **intakes,
		      size_t *count);

/* trace_simpler.c: with PTO_TRACE_FORMAT=simpler, also write the run as
 * PyPTO/simpler profiling files under PTO_TRACE_DIR/<name>/. */
void pto_trace_export_simpler(struct pto_graph *g);

#endif
