/* SPDX-License-Identifier: MIT */
/*
 * libpto task graphs: the main way to run work on the device.
 *
 * Build a graph with pto_graph_add_task(), each task naming the earlier
 * tasks it depends on, then pto_graph_run() streams it through a dispatch
 * queue: it pushes as many tasks as the SQ holds, rings the doorbell,
 * reaps completions while it waits and pushes more, so a graph may be far
 * larger than the queue. Afterwards every task has its status and, per
 * block, the core it ran on and its dispatch/receive/start/end/finish
 * timestamps.
 *
 * A graph copies what it needs at add time (buffer handles, layouts,
 * scalars, the name): an 80-byte record per task plus 48 bytes per tensor,
 * 8 per scalar, 4 per dependency and its name, in a few flat arrays; a
 * run adds 64 bytes per block for the results. Graphs of tens of
 * thousands of tasks are fine.
 */
#ifndef PTO_GRAPH_H
#define PTO_GRAPH_H

#include <pto/pto.h>
#include <pto/queue.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pto_graph;
struct pto_queue;

/**
 * pto_graph_new() - an empty task graph
 * @dev: device whose limits the tasks are checked against
 * @out: the new graph, NULL on failure
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
PTO_API int pto_graph_new(struct pto_device *dev, struct pto_graph **out);

/**
 * pto_graph_free() - free a graph and its results
 * @g: graph, or NULL
 */
PTO_API void pto_graph_free(struct pto_graph *g);

/**
 * pto_graph_add_task() - append a task
 * @g: graph
 * @desc: the task; @desc->deps are indexes of earlier tasks of @g
 *
 * Checks what the device would refuse, so a graph that adds cleanly runs
 * without PTO_STATUS_INVALID: kernels present, of this device and of the
 * core type of their slot; block_num, counts and flags within the
 * device's limits (a PTO_TASK_SYNC_START task fits on the device at
 * once); at least as many tensors and scalars as the kernels use; tensor
 * dtypes as the kernels use them and layouts the device can address;
 * dependencies on earlier tasks (repeats are dropped); a predicate on a
 * signed integer element of one of the task's tensors, whose producers in
 * @g are among the dependencies; the cross-core ring: PUSH/POP, split_mode
 * and slot_num only in a mixed task, whose kernels pass pto_mixed_check();
 * a SOFT syncall's workspace of at least PTO_SOFT_WS_ELEMS elements. A
 * task whose kernel has a HARD syncall (HardSyncallOccupancy) must be
 * PTO_TASK_SYNC_START with its grid sized from the device: block_num
 * PTO_GRID_ALL_AIV (an AIV launch, PTO_SYNC_AIV) or PTO_GRID_ALL_CLUSTERS
 * (an AIC or mixed launch); a literal block count is refused even when it
 * matches this device, as it breaks on another. A grid sentinel is sent
 * as is and resolved by the device; the task's blocks are its count.
 *
 * Return: the task's index in @g (0 for the first), or -EINVAL (the
 * reason is in pto_graph_error()), -ENOSPC (a mixed task's ring slots do
 * not fit the AIV's UB; the message names the slot_num that fits), -E2BIG
 * (a count over a limit) or -ENOMEM.
 */
PTO_API int pto_graph_add_task(struct pto_graph *g,
			       const struct pto_task_desc *desc);

/**
 * pto_graph_error() - why the last pto_graph_add_task() or pto_graph_run()
 * call failed
 * @g: graph
 *
 * Return: the message, "" if the last call succeeded.
 */
PTO_API const char *pto_graph_error(const struct pto_graph *g);

/**
 * pto_graph_set_name() - name a graph (its trace files are named after it)
 * @g: graph
 * @name: up to 95 characters, copied
 *
 * Return: 0, or -EINVAL.
 */
PTO_API int pto_graph_set_name(struct pto_graph *g, const char *name);

/**
 * pto_graph_name() - the graph's name, "" if none was set
 * @g: graph
 *
 * Return: the name.
 */
PTO_API const char *pto_graph_name(const struct pto_graph *g);

/**
 * pto_graph_write_swimlane() - write the last run's timeline
 * @g: graph that has run
 * @path: output file
 *
 * Chrome Trace Event JSON, opened by Perfetto UI and chrome://tracing:
 * one process per device, a lane per core (AIC_n, AIV_n) and a scheduler
 * lane; a bar per block part from start to end named after its task, with
 * dispatch/receive/finish, block, task id and status in its args; the
 * [dispatch, start] wait as an async slice; skipped and never-run tasks as
 * instant markers on the scheduler lane; dependency flow arrows. With
 * PTO_TRACE_DIR set in the environment, pto_graph_run() writes
 * PTO_TRACE_DIR/<name>.trace.json and <name>.deps.json after every run.
 * Documentation/swimlane.rst describes both formats.
 *
 * Return: 0 or a negative errno.
 */
PTO_API int pto_graph_write_swimlane(const struct pto_graph *g,
				     const char *path);

/**
 * pto_graph_write_deps() - write the graph as deps.json
 * @g: graph
 * @path: output file
 *
 * Tasks (index, device task id, name, kernel handles per core type, block
 * count, shape AIV/AIC/MIX, flags, predicate), tensors (buffer, offset,
 * shape, dtype) and edges (pred, succ).
 *
 * Return: 0 or a negative errno.
 */
PTO_API int pto_graph_write_deps(const struct pto_graph *g, const char *path);

/**
 * pto_graph_write_simpler() - write the last run as PyPTO/simpler profiling files
 * @g: graph (that has run, for the timing file)
 * @dir: directory, created (mode 0755) if missing
 *
 * Writes @dir/chip_swimlane_records.json (per-unit timing in simpler's
 * chip swimlane schema, level 3: clock, cores and core types, AIC/AIV
 * records with dispatch and finish, predicate skips), @dir/deps.json (the
 * graph in simpler's dep_gen schema: string task ids, which are graph
 * indexes, kernel_ids, block_num, tensor arguments with their directions,
 * explicit edges) and @dir/name_map_<graph name>.json, which simpler's
 * swimlane_converter, critical_path, deps_viewer and
 * sched_overhead_analysis read. With PTO_TRACE_DIR and
 * PTO_TRACE_FORMAT=simpler set in the environment, pto_graph_run() writes
 * them to PTO_TRACE_DIR/<name>/ after every run, beside the swimlane and
 * deps.json. Documentation/profiling-simpler.rst describes the mapping.
 *
 * Return: 0 or a negative errno.
 */
PTO_API int pto_graph_write_simpler(const struct pto_graph *g, const char *dir);

/**
 * pto_graph_run() - run every task of a graph and collect the results
 * @g: graph
 * @q: queue of the graph's device, used by this call alone until it
 *     returns; completions of other work on @q are dropped
 * @timeout_ns: how long the whole run may take, in nanoseconds; <= 0 for
 *		no limit (the device still fails a task that makes no
 *		progress for &pto_limits.timeout_ms)
 *
 * Dependencies become task ids: absolute for a task the device already
 * took, relative (the id distance) for one taken by the same doorbell.
 * Entries a doorbell leaves in the SQ (the device's in-flight cap) are
 * withdrawn and pushed again, so other queues of the device handle may
 * submit while @g runs. A graph may run again; each run starts from fresh
 * results.
 *
 * Return: 0 when every task ended with PTO_STATUS_OK or
 * PTO_STATUS_SKIPPED; -EIO when some did not (see pto_graph_first_error());
 * -ETIME when @timeout_ns passed first, tasks that did not complete are
 * PTO_STATUS_PENDING and those not yet taken are withdrawn from the SQ; or
 * the errno of a queue call. Results are available in every case.
 */
PTO_API int pto_graph_run(struct pto_graph *g, struct pto_queue *q,
			  int64_t timeout_ns);

/**
 * pto_graph_task_count() - tasks of a graph
 * @g: graph
 *
 * Return: the number of tasks added.
 */
PTO_API unsigned int pto_graph_task_count(const struct pto_graph *g);

/**
 * pto_graph_task_name() - name of a task
 * @g: graph
 * @idx: task index
 *
 * Return: the name given at add time, "" if none or @idx is out of range.
 */
PTO_API const char *pto_graph_task_name(const struct pto_graph *g,
					unsigned int idx);

/**
 * pto_graph_task_status() - how a task ended in the last run
 * @g: graph
 * @idx: task index
 * @reason: set to the &enum pto_reason of a PTO_STATUS_INVALID task, or NULL
 * @detail: set to the status detail, or NULL
 *
 * Return: &enum pto_status; PTO_STATUS_PENDING before a run, for a task
 * the run did not see complete, or for @idx out of range.
 */
PTO_API int pto_graph_task_status(const struct pto_graph *g, unsigned int idx,
				  int *reason, uint64_t *detail);

/**
 * pto_graph_task_id() - id the device gave a task in the last run
 * @g: graph
 * @idx: task index
 *
 * Return: the task id, 0 if the task was not taken.
 */
PTO_API uint64_t pto_graph_task_id(const struct pto_graph *g, unsigned int idx);

/**
 * pto_graph_task_deps() - a task's dependencies: named, then inferred
 * @g: graph
 * @idx: task index
 * @deps: out: up to @max graph indexes of the tasks it depends on, the
 *	  named ones (&pto_task_desc.deps, repeats dropped) first, then those
 *	  inferred from tensor directions (&pto_task_desc.tensor_dirs) in
 *	  increasing order; may be NULL when @max is 0
 * @inferred: out: per entry of @deps, 1 if inferred, else 0; or NULL
 * @max: room in @deps and @inferred
 *
 * The inferred ones follow the device's rule (an earlier task whose
 * directed range overlaps, one of the two writing, not covered by a later
 * directed write); the device links only those still in flight when the
 * task is taken, a subset. deps.json marks them "inferred": true.
 *
 * Return: the number of dependencies (more than @max: only @max written),
 * or -EINVAL for a bad graph or index.
 */
PTO_API int pto_graph_task_deps(const struct pto_graph *g, unsigned int idx,
				uint32_t *deps, uint8_t *inferred,
				unsigned int max);

/**
 * pto_graph_task_blocks() - per-block results of a task in the last run
 * @g: graph
 * @idx: task index
 * @blocks: set to the records, in block index order; valid until the next
 *	    run or pto_graph_free()
 * @n: set to their count, 0 before the task's completion. A task that
 *     never reached a core has 1. A task that ran has one record per block
 *     and core (unit): block_num for an AIV or AIC task; for a mixed task
 *     2 per block under PTO_SPLIT_NONE (its AIC, then its AIV) and 3 under
 *     PTO_SPLIT_UP_DOWN (its AIC, then the AIVs of sub_block 0 and 1).
 *
 * Each record says which block it belongs to (&pto_block_info.block), on
 * which core type (PTO_CORE_AIC or PTO_CORE_AIV: this is how the AIC and
 * AIV spans of a mixed block are told apart) and core it ran, and when.
 * The AIVs of cluster c are cores 2c (sub_block 0) and 2c + 1.
 *
 * Each record's status and detail are its unit's own, not the task's
 * (pto_graph_task_status()), as the device sends them: in a task that
 * failed, a block that faulted reads its fault, one that ran to its END
 * reads OK, one stopped by the failure (running, or placed and not yet
 * started) CANCELLED. The record with PTO_BLOCK_LAST is the first failing
 * unit's (its status is the task's), or in a task that succeeded the last
 * unit's. A task with a single record (one unit, or a task that never
 * reached a core) reads the task's status.
 *
 * Return: 0, or -EINVAL for @idx out of range.
 */
PTO_API int pto_graph_task_blocks(const struct pto_graph *g, unsigned int idx,
				  const struct pto_block_info **blocks,
				  unsigned int *n);

/**
 * pto_graph_task_waits() - the waits of each block of a task, last run
 * @g: graph
 * @idx: task index
 * @profs: set to the task's profiles, one per record of
 *	   pto_graph_task_blocks() and in its order, or NULL
 * @n: set to their number: 0 unless the run's queue profiled
 *     (pto_queue_profiling())
 *
 * Which parts of a block's bar were waits (a ring, a barrier: its
 * arrival and release) and, for a pre-staged block, its staged interval.
 *
 * Return: 0, or -EINVAL for @idx out of range.
 */
PTO_API int pto_graph_task_waits(const struct pto_graph *g, unsigned int idx,
				 const struct pto_block_prof **profs,
				 unsigned int *n);

/**
 * pto_graph_task_sched() - the scheduler's work for each block of a task,
 * last run
 * @g: graph
 * @idx: task index
 * @recs: set to the task's scheduler records, one per record of
 *	  pto_graph_task_blocks() and in its order, or NULL
 * @n: set to their number: 0 unless the run's queue profiled
 *
 * When the device took the task (intake), placed each block (dispatch),
 * handled each block's end (complete) and, at the task's completion,
 * walked its consumers (resolve): what pto_graph_write_simpler() writes
 * as the scheduler's phases.
 *
 * Return: 0, or -EINVAL for @idx out of range.
 */
PTO_API int pto_graph_task_sched(const struct pto_graph *g, unsigned int idx,
				 const struct pto_sched_rec **recs,
				 unsigned int *n);

/**
 * pto_graph_hazard_count() - hazards the sanitizer reported in the last run
 * @g: graph
 *
 * The queue must sanitize (PTO_QUEUE_SANITIZE, or PTO_SANITIZE=1 in the
 * environment, which also prints each on stderr). A hazard changes no
 * status: the run goes on as it would on the chip.
 *
 * Return: their number (0 before a run or without the sanitizer).
 */
PTO_API unsigned int pto_graph_hazard_count(const struct pto_graph *g);

/**
 * pto_graph_hazard() - one hazard of the last run
 * @g: graph
 * @i: 0..pto_graph_hazard_count() - 1
 * @task: out: the graph's task index, or NULL
 * @cqe: out: the completion it came with (task id, block, core), or NULL
 * @h: out: the report, or NULL
 *
 * Return: 0, or -EINVAL.
 */
PTO_API int pto_graph_hazard(const struct pto_graph *g, unsigned int i,
			     unsigned int *task, struct pto_cqe *cqe,
			     struct pto_hazard *h);

/**
 * pto_graph_hazard_str() - one hazard of the last run in words
 * @g: graph
 * @i: 0..pto_graph_hazard_count() - 1
 * @buf: where the text goes: the task's name, then pto_hazard_str()'s
 * @len: its size
 *
 * Return: as snprintf(), or -EINVAL.
 */
PTO_API int pto_graph_hazard_str(const struct pto_graph *g, unsigned int i,
				 char *buf, size_t len);

/**
 * pto_graph_first_error() - describe the first task that failed
 * @g: graph
 * @buf: buffer for the text, or NULL
 * @len: bytes at @buf
 *
 * The first failed task in graph order is a root cause: what failed after
 * it can only have failed because of it or independently. The text is for
 * instance "task 3 'exp_chain_2': GM fault on tensor 1 at element 8192".
 *
 * Return: the index of that task, or -ENOENT if no task failed (@buf then
 * holds "").
 */
PTO_API int pto_graph_first_error(const struct pto_graph *g, char *buf,
				  size_t len);

/* ------------------------------------------------------ graph replay */

/*
 * Graph replay (uapi 7): pto_graph_record() turns a graph into a device
 * graph once (DRM_IOCTL_PTO_NPU_GRAPH_CREATE validates every node, edge
 * and binding there); each pto_graph_launch() then runs all of it through
 * ONE SQ entry, which binds the graph's parameters (tensors: buffer and
 * offset of a view of the recorded layout; scalars) and posts ONE
 * completion. Documentation/techniques/graph-replay.rst.
 */

struct pto_graph_exec;

/**
 * struct pto_graph_scalar_param - a scalar argument bound to a parameter
 * @task: graph index of the task
 * @scalar: index of its scalar argument (&pto_task_desc.scalars)
 */
struct pto_graph_scalar_param {
	unsigned int task;
	unsigned int scalar;
};

/**
 * pto_graph_record() - record a graph on the device for replay
 * @g: graph, at least one task
 * @params: @nparams tensor parameters: every tensor argument of a task
 *	    showing the same view as @params[i] (same buffer, byte offset,
 *	    dtype, shape and strides) is bound to parameter i (the first
 *	    such i); each parameter must be some task's argument
 * @nparams: tensor parameters, up to the task tensor cap
 * @sparams: @nsparams scalar arguments; @sparams[j] is bound to scalar
 *	     parameter j
 * @nsparams: scalar parameters
 * @out: the recorded graph, NULL on failure
 *
 * Each task becomes a node (its entry as pto_graph_run() would send it,
 * without dependencies; user_data its graph index), its named
 * dependencies edges and its inferred ones order-only edges
 * (DRM_PTO_NPU_GRAPH_EDGE_F_INFERRED). A tensor parameter's direction is
 * the OR of its arguments' (&pto_task_desc.tensor_dirs). @g may be
 * changed or freed afterwards; the recorded graph keeps its kernels and
 * buffers alive on the device.
 *
 * A node has at most &pto_limits.max_deps incoming edges, as an entry has
 * dependencies. pto_graph_run() sends only a task's named dependencies
 * and lets the device infer the rest, so a task may have any number of
 * inferred producers there; a recording turns each into an edge. A task
 * whose named and inferred producers together pass the cap (a reduction
 * over many earlier writers) is refused here, before anything reaches
 * the device: -E2BIG, and pto_graph_error() names the task, its counts
 * and the cap. It is not split: join the producers through intermediate
 * tasks (a tree of partial reductions), or run that graph with
 * pto_graph_run().
 *
 * Return: 0; -EINVAL with the refused node, edge or binding and the
 * reason (pto_reason_name()) in pto_graph_error(); -E2BIG (over a count:
 * a task's producers over &pto_limits.max_deps, said in pto_graph_error());
 * -ENOSPC (the context's recorded nodes over the cap); -ENOTTY (a module
 * older than uapi 7); -ENOMEM.
 */
PTO_API int pto_graph_record(struct pto_graph *g,
			     const struct pto_tensor *const *params,
			     unsigned int nparams,
			     const struct pto_graph_scalar_param *sparams,
			     unsigned int nsparams,
			     struct pto_graph_exec **out);

/**
 * pto_graph_exec_nodes() - nodes of a recorded graph
 * @x: recorded graph
 *
 * Return: its node count, 0 for NULL.
 */
PTO_API unsigned int pto_graph_exec_nodes(const struct pto_graph_exec *x);

/**
 * pto_graph_exec_handle() - the device's handle of a recorded graph
 * @x: recorded graph
 *
 * What a raw launch entry names (DRM_PTO_NPU_TASK_F_GRAPH, reserved[0]),
 * and what the traces call the launch's graph (libpto 1.5).
 *
 * Return: the handle (never 0), 0 for NULL.
 */
PTO_API uint32_t pto_graph_exec_handle(const struct pto_graph_exec *x);

/**
 * struct pto_graph_launch_opts - what a launch entry may carry besides
 * its bindings (libpto 1.5)
 * @user_data: the launch CQE's user_data
 * @deps: @num_deps task ids the launch waits for, absolute (> 0) or
 *	  relative (< 0) as &pto_task_desc.deps for pto_queue_push_task(): a
 *	  failed one ends the launch PTO_STATUS_DEP_FAILED before any node
 *	  runs
 * @num_deps: 0..&pto_limits.max_deps
 * @predicate: run the launch only if it holds, or NULL; its
 *	       &pto_predicate.tensor is a tensor parameter's index (the bound
 *	       tensor is read when the launch becomes ready). False: the
 *	       launch ends PTO_STATUS_SKIPPED with no node run
 * @reserved32: zero
 * @reserved: zero
 */
struct pto_graph_launch_opts {
	uint64_t user_data;
	const int64_t *deps;
	uint32_t num_deps;
	uint32_t reserved32;
	const struct pto_predicate *predicate;
	uint64_t reserved[4];
};

/**
 * pto_graph_launch_push() - publish one launch entry without the doorbell
 * @x: recorded graph
 * @q: queue of its device
 * @tensors: one tensor per tensor parameter, in parameter order, each of
 *	     the parameter's recorded dtype, shape and strides (any buffer
 *	     and offset); its direction is the recorded one
 * @scalars: one value per scalar parameter
 * @user_data: the launch CQE's user_data
 *
 * As pto_queue_push_task(): pto_queue_doorbell() hands it to the device.
 *
 * Return: 0; -EINVAL (a tensor of another layout or device); -EAGAIN (no
 * room in the SQ now); -E2BIG.
 */
PTO_API int pto_graph_launch_push(struct pto_graph_exec *x,
				  struct pto_queue *q,
				  const struct pto_tensor *const *tensors,
				  const int64_t *scalars, uint64_t user_data);

/**
 * pto_graph_launch_push_ex() - pto_graph_launch_push() with dependencies,
 * a predicate and user_data (libpto 1.5)
 * @x: recorded graph
 * @q: queue of its device
 * @tensors: as pto_graph_launch_push()
 * @scalars: as pto_graph_launch_push()
 * @opts: the launch's extras, or NULL for none
 *
 * Return: as pto_graph_launch_push(); -EINVAL also for a dependency of
 * 0, a predicate on no tensor parameter, or reserved fields set; -E2BIG
 * for more dependencies than &pto_limits.max_deps.
 */
PTO_API int pto_graph_launch_push_ex(struct pto_graph_exec *x,
				     struct pto_queue *q,
				     const struct pto_tensor *const *tensors,
				     const int64_t *scalars,
				     const struct pto_graph_launch_opts *opts);

/**
 * pto_graph_launch() - launch a recorded graph: one entry, one doorbell
 * @x: recorded graph
 * @q: queue of its device
 * @tensors: as pto_graph_launch_push()
 * @scalars: as pto_graph_launch_push()
 * @task_id: out: the launch's task id (its CQE's), or NULL
 *
 * Publishes the launch entry (user_data 0) and rings the doorbell, which
 * also takes any entry published on @q before it.
 *
 * Return: 0; -EBUSY when the doorbell left the launch in the SQ (the
 * device's in-flight cap: the next doorbell takes it; *@task_id is 0);
 * or an error of pto_graph_launch_push() or pto_queue_doorbell().
 */
PTO_API int pto_graph_launch(struct pto_graph_exec *x, struct pto_queue *q,
			     const struct pto_tensor *const *tensors,
			     const int64_t *scalars, uint64_t *task_id);

/**
 * pto_graph_launch_ex() - pto_graph_launch() with pto_graph_launch_push_ex()'s
 * extras (libpto 1.5)
 * @x: recorded graph
 * @q: queue of its device
 * @tensors: as pto_graph_launch_push()
 * @scalars: as pto_graph_launch_push()
 * @opts: as pto_graph_launch_push_ex()
 * @task_id: out: the launch's task id, or NULL
 *
 * Return: as pto_graph_launch() and pto_graph_launch_push_ex().
 */
PTO_API int pto_graph_launch_ex(struct pto_graph_exec *x, struct pto_queue *q,
				const struct pto_tensor *const *tensors,
				const int64_t *scalars,
				const struct pto_graph_launch_opts *opts,
				uint64_t *task_id);

/**
 * pto_graph_exec_wait() - wait for a launch's completion
 * @q: the launch's queue
 * @task_id: from pto_graph_launch()
 * @timeout_ns: how long to wait; <= 0 for no limit
 * @res: out: the launch's CQE (PTO_BLOCK_GRAPH | PTO_BLOCK_LAST): status
 *	 the first failing node's (PTO_STATUS_SKIPPED nodes do not fail),
 *	 block that node's index, reason and detail its, the timestamps
 *	 spanning the launch; or NULL
 *
 * Several launches may be in flight on @q: the final completions of other
 * graph launches (PTO_BLOCK_GRAPH | PTO_BLOCK_LAST) stay in @q's CQ, in
 * their order, for their own pto_graph_exec_wait() or pto_queue_reap();
 * only @task_id's completions are taken out of it. Other completions read
 * meanwhile are dropped: other tasks' (entries) and node completions
 * (PTO_BLOCK_NODE) of a profiling queue, @task_id's included.
 *
 * Return: 0 when the launch ended PTO_STATUS_OK, -EIO when it did not,
 * -ETIME when @timeout_ns passed first, -ENOSPC when @q's CQ is full of
 * other launches' completions (reap or wait for them first: the device
 * holds the rest until there is room), or the errno of a queue call.
 */
PTO_API int pto_graph_exec_wait(struct pto_queue *q, uint64_t task_id,
				int64_t timeout_ns, struct pto_cqe *res);

/**
 * pto_graph_exec_free() - drop a recorded graph (GRAPH_DESTROY)
 * @x: recorded graph, or NULL
 *
 * Launches already taken run to their end.
 */
PTO_API void pto_graph_exec_free(struct pto_graph_exec *x);

/**
 * pto_graph_replay() - pto_graph_run() through one launch of a recording
 * @g: the graph @x was recorded from (the same object: another graph of
 *     the same tasks is refused), with no task added since
 * @x: recorded graph
 * @q: queue of its device, holding no entry not yet taken
 * @tensors: as pto_graph_launch_push()
 * @scalars: as pto_graph_launch_push()
 * @timeout_ns: how long to wait; <= 0 for no limit
 *
 * Launches @x once (one entry, one doorbell) and reads its completions
 * into @g's results, so that pto_graph_task_status(), _blocks(),
 * _error(), the hazards and the traces (PTO_TRACE_DIR) are this launch's,
 * as pto_graph_run() leaves them for its run. On a profiling queue
 * (PTO_QUEUE_F_PROFILE) every node's completions come back: each task's
 * status, block records, profiles and scheduler records are its node's.
 * On another queue only the launch's completion does: when it is OK
 * every task is PTO_STATUS_OK (a predicated node that was skipped
 * included); when a node failed, that node's task has its status, reason
 * and detail and the others stay PTO_STATUS_PENDING (not reported); when
 * the launch ended before any node was handed to the scheduler (its
 * predicate skipped it, its dependency failed, its bindings were
 * refused) every task has the launch's status. Block records are only
 * kept on a profiling queue.
 *
 * Completions of other tasks on @q reaped meanwhile are dropped.
 *
 * Return: 0 when every task ended PTO_STATUS_OK or PTO_STATUS_SKIPPED,
 * -EIO when one did not (pto_graph_error() names the first), -ETIME when
 * @timeout_ns passed first, -EINVAL (@x not recorded from @g, or @g
 * has tasks added since; a tensor not of its parameter's device, dtype,
 * shape or strides: pto_graph_error() names the parameter and the
 * field), -EBUSY (@q holds entries not yet taken), or the errno of a
 * queue call. While the device's in-flight cap (other tasks' units; a
 * launch is taken only when all its graph's units fit) leaves the launch
 * in the SQ, the call rings again until @timeout_ns.
 */
PTO_API int pto_graph_replay(struct pto_graph *g, struct pto_graph_exec *x,
			     struct pto_queue *q,
			     const struct pto_tensor *const *tensors,
			     const int64_t *scalars, int64_t timeout_ns);

#ifdef __cplusplus
}
#endif

#endif /* PTO_GRAPH_H */
