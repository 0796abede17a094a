/* SPDX-License-Identifier: MIT */
/*
 * libpto internals: the handles behind the opaque types and the ioctl
 * helpers every file of the library shares. Not installed.
 */
#ifndef PTO_INTERNAL_H
#define PTO_INTERNAL_H

#include <errno.h>
#include <stdint.h>

#include <xf86drm.h>

#include "pto/pto.h"
#include "pto_npu_accel.h"
#include "ring.h"
#include "tensor_layout.h"

/** PTO_DRIVER_NAME - DRM driver name of pto_npu.ko */
#define PTO_DRIVER_NAME "pto_npu"
/** PTO_ACCEL_PATH_FMT - device node of accel device N */
#define PTO_ACCEL_PATH_FMT "/dev/accel/accel%u"

#define PTO_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct pto_device {
	int fd;
	char *path;
	struct pto_device_info info;
	struct pto_limits limits;
};

struct pto_buffer {
	struct pto_device *dev;
	void *map;
	size_t size;
	uint32_t handle;
};

struct pto_tensor {
	struct pto_buffer *buf;
	/* true when pto_tensor_alloc() made @buf and pto_tensor_free() frees it */
	bool owns_buf;
	struct pto_layout layout;
};

/** PTO_MAX_ARGS - tensor arguments an SQ entry can count (a __u8). */
#define PTO_MAX_ARGS 255

/* Tensor argument use recorded per kernel, &pto_kernel.arg_use. */
#define PTO_ARG_READ (1U << 0)
#define PTO_ARG_WRITTEN (1U << 1)

/**
 * struct pto_ring_use - the tile every PUSH (or every POP) of a kernel moves
 * @used: the kernel has such an instruction
 * @dtype: enum pto_dtype of the tile
 * @rows: its rows
 * @cols: its columns
 */
struct pto_ring_use {
	bool used;
	uint8_t dtype;
	uint32_t rows;
	uint32_t cols;
};

/**
 * struct pto_kernel - an uploaded program
 * @dev: device it lives on
 * @handle: kernel handle, never 0
 * @core_type: enum pto_core_type
 * @num_tensor_args: tensor arguments the verifier counted
 * @num_scalar_args: scalar arguments the verifier counted
 * @arg_dtype: per tensor argument: enum pto_dtype the program uses it as,
 *	       0 for any
 * @arg_use: per tensor argument: PTO_ARG_* bits
 * @ub_used: bytes of UB its tiles take, placed as the device places them
 * @push: the tile its PUSHes move
 * @pop: the tile its POPs fill
 */
struct pto_kernel {
	struct pto_device *dev;
	uint32_t handle;
	uint32_t core_type;
	uint32_t num_tensor_args;
	uint32_t num_scalar_args;
	uint8_t arg_dtype[PTO_MAX_ARGS];
	uint8_t arg_use[PTO_MAX_ARGS];
	uint32_t ub_used;
	struct pto_ring_use push;
	struct pto_ring_use pop;
	/* enum pto_sync_type of its HARD syncalls, 0 if none */
	uint8_t hard_sync;
	/* per tensor argument: a SOFT syncall takes it as its workspace */
	bool soft_ws[PTO_MAX_ARGS];
};

/*
 * kernel.c: what libpto learns from a program (argument use, UB bytes,
 * ring tiles) without the device; @k's other fields are left alone.
 */
void pto_kernel_scan(struct pto_kernel *k, const struct pto_insn *insns,
		     uint32_t n, const struct pto_tile_decl *tiles,
		     uint32_t num_tiles);

/* mixed.c: pto_mixed_check() against a UB of @ub_size bytes. */
int pto_mixed_verify(const struct pto_kernel *aic, const struct pto_kernel *aiv,
		     uint32_t split_mode, uint32_t slot_num, uint32_t ub_size,
		     char *msg, size_t len);

struct pto_queue;

/**
 * struct pto_queue_ops - how a queue reaches the device
 * @submit: the doorbell (DRM_IOCTL_PTO_NPU_QUEUE_SUBMIT)
 * @wait: DRM_IOCTL_PTO_NPU_QUEUE_WAIT; sets the unconsumed CQEs and the
 *	  queue's tasks in flight
 *
 * The host unit tests plug in a device emulated over the same rings.
 */
struct pto_queue_ops {
	int (*submit)(struct pto_queue *q, uint32_t syncobj, uint64_t point,
		      uint32_t *consumed, uint64_t *first_id);
	int (*wait)(struct pto_queue *q, int64_t deadline_ns,
		    uint32_t *available, uint32_t *inflight);
};

/**
 * struct pto_queue - a dispatch queue
 * @dev: device
 * @ops: the doorbell and wait calls
 * @priv: for @ops that are not the device's
 * @id: queue id, never 0
 * @handle: GEM handle of the ring memory
 * @map: the ring memory
 * @map_size: its bytes
 * @sq: submission ring in @map
 * @cq: completion ring in @map
 * @run_seq: counts pto_graph_run() calls on this queue; the upper half of
 *	     their CQEs' user_data, so a run ignores stale completions
 */
struct pto_queue {
	struct pto_device *dev;
	const struct pto_queue_ops *ops;
	void *priv;
	uint32_t id;
	uint32_t handle;
	void *map;
	size_t map_size;
	struct pto_sq sq;
	struct pto_cq cq;
	uint32_t run_seq;
	uint64_t work_budget;
	bool noncoherent;
};

/* drmIoctl() restarts on EINTR/EAGAIN; errors come back as -errno. */
static inline int pto_ioctl(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg) ? -errno : 0;
}

int pto_query(int fd, uint32_t type, void *data, uint32_t size);

/* error.c: snprintf() into a message buffer, cutting what does not fit. */
__attribute__((format(printf, 3, 4))) void pto_msgf(char *buf, size_t len,
						    const char *fmt, ...);

/* error.c: "256 KiB" when whole KiB, else "100 bytes" (or "1 byte"). */
const char *pto_fmt_size(char *buf, size_t len, uint64_t bytes);

/* queue.c */
int pto_queue_init_rings(struct pto_queue *q, void *map, size_t map_size,
			 uint32_t sq_offset, uint32_t sq_slots,
			 uint32_t cq_offset, uint32_t cq_entries);
void pto_cqe_from_drm(struct pto_cqe *out, const struct drm_pto_npu_cqe *in);
void pto_prof_from_drm(struct pto_block_prof *out,
		       const struct drm_pto_npu_prof *in);
void pto_sched_from_drm(struct pto_sched_rec *out,
			const struct drm_pto_npu_sched *in);
void pto_hazard_from_drm(struct pto_hazard *out,
			 const struct drm_pto_npu_hazard *in);
int pto_queue_init_prof(struct pto_queue *q, uint32_t prof_offset,
			uint32_t prof_size);

/* task.c */
int pto_tensor_arg(const struct pto_tensor *t,
		   struct drm_pto_npu_tensor_arg *arg, char *msg, size_t len);
void pto_predicate_to_drm(const struct pto_predicate *p,
			  struct drm_pto_npu_predicate *out);
const char *pto_reason_text(int reason);

#endif /* PTO_INTERNAL_H */
