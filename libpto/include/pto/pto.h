/* SPDX-License-Identifier: MIT */
/*
 * libpto: the user-space library of the pto_npu virtual NPU.
 *
 * Conventions (liburing is the model):
 *  - every exported symbol starts with pto_ and is marked PTO_API;
 *  - functions that can fail return 0 or a negative errno, never set errno;
 *    pto_strerror() turns that value into text;
 *  - objects are opaque handles created by pto_*_open/alloc/view and
 *    destroyed by pto_*_close/free (which accept NULL);
 *  - the library keeps no global state: everything hangs off a handle.
 *
 * Lifetimes: buffers, kernels, queues and graphs must be freed before
 * their device is closed, and a tensor view before the buffer it views.
 * A graph records kernel and buffer handles, not the objects: free a
 * kernel or tensor only once no graph that uses it will run again.
 *
 * Thread safety: a device handle may be used from several threads at once
 * for queries, buffer allocation and kernel upload. A kernel builder, a
 * queue or a graph belongs to one thread at a time. A single buffer or
 * tensor handle must not be freed while another thread uses it.
 *
 * Headers: this one includes pto/kernel.h (kernel builder), pto/queue.h
 * (tasks and dispatch queues) and pto/graph.h (task graphs), which use the
 * instruction set of pto_npu_isa.h.
 */
#ifndef PTO_PTO_H
#define PTO_PTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PTO_API __attribute__((visibility("default")))
#else
#define PTO_API
#endif

/** PTO_MAX_DIMS - most dimensions a tensor may have. */
#define PTO_MAX_DIMS 4

/* Capability bits of &pto_device_info.capabilities. */
/** PTO_CAP_GM_MMAP - GM buffers can be mapped into the process. */
#define PTO_CAP_GM_MMAP (UINT64_C(1) << 0)
/** PTO_CAP_SYNCOBJ - the device supports DRM syncobjs. */
#define PTO_CAP_SYNCOBJ (UINT64_C(1) << 1)
/**
 * PTO_CAP_PROFILE - queues can profile: each completion carries its
 * block's waits (PTO_QUEUE_PROFILE).
 */
#define PTO_CAP_PROFILE (UINT64_C(1) << 2)
/**
 * PTO_CAP_MEMORY_MODEL - tensor directions with inferred dependencies,
 * non-coherent GM and the hazard sanitizer (PTO_QUEUE_SANITIZE).
 */
#define PTO_CAP_MEMORY_MODEL (UINT64_C(1) << 3)

struct pto_device;
struct pto_buffer;
struct pto_tensor;

/* ------------------------------------------------------------- errors */

/**
 * pto_strerror() - describe an error returned by libpto
 * @err: a negative errno as returned by a pto_ function (a positive errno
 *	 is accepted too; 0 is "success")
 *
 * Where libpto gives an errno a specific meaning the text says so (for
 * instance -ENODEV is "not a pto_npu device"); other values get the C
 * library's description.
 *
 * Return: a constant, never NULL, string; thread-safe.
 */
PTO_API const char *pto_strerror(int err);

/* ------------------------------------------------------------- device */

/**
 * struct pto_device_info - topology and local buffer budgets of a device
 * @uapi_version: ABI version the kernel module speaks
 * @device_index: index of the device instance (0 for the first)
 * @clusters: clusters; one cluster is 1 AIC + 2 AIV
 * @aic_cores: cube cores (AIC)
 * @aiv_cores: vector cores (AIV)
 * @aiv_ub_size: bytes of unified buffer (UB) per AIV
 * @aic_l1_size: bytes of L1 per AIC
 * @aic_l0a_size: bytes of L0A per AIC
 * @aic_l0b_size: bytes of L0B per AIC
 * @aic_l0c_size: bytes of L0C per AIC
 * @capabilities: PTO_CAP_* bits
 * @reserved: zero; room to grow without changing the structure's size
 */
struct pto_device_info {
	uint32_t uapi_version;
	uint32_t device_index;
	uint32_t clusters;
	uint32_t aic_cores;
	uint32_t aiv_cores;
	uint32_t aiv_ub_size;
	uint32_t aic_l1_size;
	uint32_t aic_l0a_size;
	uint32_t aic_l0b_size;
	uint32_t aic_l0c_size;
	uint64_t capabilities;
	uint64_t reserved[8];
};

/**
 * struct pto_limits - caps the device puts on every count and size
 * @max_buffer_size: largest GM buffer, bytes
 * @max_gm_per_context: GM bytes one open device handle may hold
 * @max_buffers_per_context: GM buffers one open device handle may hold
 * @max_kernels_per_context: kernels one open device handle may hold
 * @max_insns: instructions of one kernel
 * @max_queues_per_context: dispatch queues one open device handle may hold
 * @max_sq_slots: SQ slots of one queue (a power of two)
 * @max_cq_entries: CQ entries of one queue (a power of two)
 * @max_inflight_tasks: tasks taken by the device and not yet complete, per
 *			device handle; a doorbell takes no more (back-pressure)
 * @max_tensor_args: tensor arguments of one task
 * @max_scalar_args: scalar arguments of one task
 * @max_deps: dependencies of one task
 * @max_block_num: blocks of one task
 * @timeout_ms: the wall-clock last resort: a wait in which no unit of its
 *		task has run for this long, or a hung core, fails with
 *		PTO_STATUS_TIMEOUT
 * @work_budget: instructions a unit may execute before it fails with
 *		 PTO_STATUS_WORK_BUDGET, for queues created without a budget
 * @min_work_budget: smallest budget a queue may be given
 * @max_work_budget: largest budget a queue of this caller may be given
 *		     (past the default, a caller without CAP_SYS_NICE gets
 *		     the module parameter max_user_work_budget)
 * @max_inflight_units: block records (blocks times parts) in flight per
 *			device handle, a graph launch's nodes' included; a
 *			doorbell takes no entry that would pass it (since
 *			PTO_1.5)
 * @pad: zero
 * @reserved: zero; room to grow without changing the structure's size
 *
 * A field an older module does not report reads as 0: libpto then skips
 * the check that would use it and leaves the decision to the device.
 */
struct pto_limits {
	uint64_t max_buffer_size;
	uint64_t max_gm_per_context;
	uint32_t max_buffers_per_context;
	uint32_t max_kernels_per_context;
	uint32_t max_insns;
	uint32_t max_queues_per_context;
	uint32_t max_sq_slots;
	uint32_t max_cq_entries;
	uint32_t max_inflight_tasks;
	uint32_t max_tensor_args;
	uint32_t max_scalar_args;
	uint32_t max_deps;
	uint32_t max_block_num;
	uint32_t timeout_ms;
	uint64_t work_budget;
	uint64_t min_work_budget;
	uint64_t max_work_budget;
	uint32_t max_inflight_units;
	uint32_t pad;
	uint64_t reserved[7];
};

/**
 * struct pto_memory_info - GM accounting
 * @device_buffers: GM buffers alive on the device, all processes
 * @device_bytes: GM bytes alive on the device, all processes
 * @context_buffers: GM buffers held by this device handle
 * @context_bytes: GM bytes held by this device handle
 * @reserved: zero; room to grow without changing the structure's size
 */
struct pto_memory_info {
	uint64_t device_buffers;
	uint64_t device_bytes;
	uint64_t context_buffers;
	uint64_t context_bytes;
	uint64_t reserved[4];
};

/**
 * pto_device_open() - open a pto_npu device by index
 * @index: N of /dev/accel/accelN
 * @out: the new device handle, NULL on failure
 *
 * Same as pto_device_open_path() on "/dev/accel/accel<index>".
 *
 * Return: 0 or a negative errno; -ENOENT when there is no such node.
 */
PTO_API int pto_device_open(unsigned int index, struct pto_device **out);

/**
 * pto_device_open_path() - open a pto_npu device by device node path
 * @path: path of an accel device node
 * @out: the new device handle, NULL on failure
 *
 * Opens the node, checks that its DRM driver is pto_npu and reads the
 * device's topology and limits once; later queries of those are served
 * from the handle.
 *
 * Return: 0; -ENODEV if @path is not a pto_npu device; -EPROTO if the
 * driver answers a query with something libpto cannot use; or the errno
 * of open(2) or of the query ioctl, negated.
 */
PTO_API int pto_device_open_path(const char *path, struct pto_device **out);

/**
 * pto_device_close() - close a device handle
 * @dev: device handle, or NULL
 *
 * Every buffer and tensor of @dev must have been freed before.
 */
PTO_API void pto_device_close(struct pto_device *dev);

/**
 * pto_device_fd() - file descriptor of a device handle
 * @dev: device handle
 *
 * For poll(2) and for ioctls libpto does not wrap. The descriptor stays
 * owned by @dev: do not close it.
 *
 * Return: the descriptor.
 */
PTO_API int pto_device_fd(const struct pto_device *dev);

/**
 * pto_device_path() - device node a handle was opened from
 * @dev: device handle
 *
 * Return: the path given to (or built by) the open call; valid until
 * pto_device_close().
 */
PTO_API const char *pto_device_path(const struct pto_device *dev);

/**
 * pto_device_query_info() - topology and local buffer budgets
 * @dev: device handle
 * @info: filled on success
 *
 * Return: 0, or -EINVAL for a NULL argument.
 */
PTO_API int pto_device_query_info(const struct pto_device *dev,
				  struct pto_device_info *info);

/**
 * pto_device_query_limits() - caps on counts and sizes
 * @dev: device handle
 * @limits: filled on success
 *
 * Return: 0, or -EINVAL for a NULL argument.
 */
PTO_API int pto_device_query_limits(const struct pto_device *dev,
				    struct pto_limits *limits);

/**
 * pto_device_query_memory() - current GM accounting
 * @dev: device handle
 * @mem: filled on success
 *
 * Asks the device each time: the figures change as buffers come and go.
 *
 * Return: 0 or a negative errno.
 */
PTO_API int pto_device_query_memory(const struct pto_device *dev,
				    struct pto_memory_info *mem);

/**
 * pto_available_cluster_count() - clusters of the device
 * @dev: device handle
 *
 * The grid size of a SPMD launch of a mixed or cube kernel that occupies
 * the whole device.
 *
 * Return: the number of clusters (1 AIC + 2 AIV each).
 */
PTO_API unsigned int pto_available_cluster_count(const struct pto_device *dev);

/**
 * pto_available_aic_count() - cube cores (AIC) of the device
 * @dev: device handle
 *
 * Return: the number of AIC cores.
 */
PTO_API unsigned int pto_available_aic_count(const struct pto_device *dev);

/**
 * pto_available_aiv_count() - vector cores (AIV) of the device
 * @dev: device handle
 *
 * The grid size of a SPMD launch of a vector-only kernel that occupies
 * the whole device.
 *
 * Return: the number of AIV cores.
 */
PTO_API unsigned int pto_available_aiv_count(const struct pto_device *dev);

/**
 * pto_capability_name() - short name of one capability bit
 * @cap: a single PTO_CAP_* bit
 *
 * Return: "gm_mmap", "syncobj", ...; NULL for an unknown bit or for a
 * value that is not exactly one bit.
 */
PTO_API const char *pto_capability_name(uint64_t cap);

/* ------------------------------------------------------------- dtypes */

/**
 * enum pto_dtype - element type of a tensor
 *
 * 0 is never a valid dtype, so a zero-initialised descriptor is caught.
 */
enum pto_dtype {
	PTO_DTYPE_F32 = 1,
	PTO_DTYPE_I8,
	PTO_DTYPE_I16,
	PTO_DTYPE_I32,
	PTO_DTYPE_I64,
	PTO_DTYPE_U8,
	PTO_DTYPE_U16,
	PTO_DTYPE_U32,
	PTO_DTYPE_U64,
};

/**
 * pto_dtype_size() - bytes of one element
 * @dtype: element type
 *
 * Return: the size, or 0 if @dtype is not a valid dtype.
 */
PTO_API size_t pto_dtype_size(enum pto_dtype dtype);

/**
 * pto_dtype_name() - short name of a dtype ("f32", "i8", ... "u64")
 * @dtype: element type
 *
 * Return: the name, or "invalid" if @dtype is not a valid dtype.
 */
PTO_API const char *pto_dtype_name(enum pto_dtype dtype);

/**
 * pto_dtype_is_signed_int() - whether a dtype is a signed integer
 * @dtype: element type
 *
 * Signed integers are the types a dispatch predicate may compare.
 *
 * Return: true for I8, I16, I32 and I64; false otherwise.
 */
PTO_API bool pto_dtype_is_signed_int(enum pto_dtype dtype);

/* ------------------------------------------------------------- GM buffers */

/**
 * pto_buffer_alloc() - allocate a zero-filled GM buffer and map it
 * @dev: device handle
 * @size: bytes wanted, > 0; the device rounds up to a page
 * @out: the new buffer, NULL on failure
 *
 * The buffer is shared between the device and this process
 * (mmap MAP_SHARED): host writes are seen by the device and vice versa.
 *
 * Return: 0; -EINVAL for a zero size or one over
 * &pto_limits.max_buffer_size; -ENOSPC when the handle's GM caps would be
 * exceeded; -ENOMEM; or the errno of the ioctl or mmap(2), negated.
 */
PTO_API int pto_buffer_alloc(struct pto_device *dev, size_t size,
			     struct pto_buffer **out);

/**
 * pto_buffer_free() - unmap and release a GM buffer
 * @buf: buffer, or NULL
 *
 * Every tensor viewing @buf must have been freed before.
 */
PTO_API void pto_buffer_free(struct pto_buffer *buf);

/**
 * pto_buffer_map() - host address of a GM buffer
 * @buf: buffer
 *
 * Return: the start of the mapping, pto_buffer_size() bytes long.
 */
PTO_API void *pto_buffer_map(const struct pto_buffer *buf);

/**
 * pto_buffer_size() - size of a GM buffer
 * @buf: buffer
 *
 * Return: the allocated size: the requested size rounded up to a page.
 */
PTO_API size_t pto_buffer_size(const struct pto_buffer *buf);

/**
 * pto_buffer_handle() - GEM handle of a GM buffer
 * @buf: buffer
 *
 * Return: the handle, never 0, valid on pto_device_fd() of its device.
 */
PTO_API uint32_t pto_buffer_handle(const struct pto_buffer *buf);

/* ------------------------------------------------------------- tensors */

/**
 * pto_tensor_alloc() - allocate a row-major tensor with its own buffer
 * @dev: device handle
 * @dtype: element type
 * @ndim: number of dimensions, 1..PTO_MAX_DIMS
 * @shape: @ndim sizes, each > 0
 * @out: the new tensor, NULL on failure
 *
 * The buffer is zero-filled and freed with the tensor.
 *
 * Return: 0; -EINVAL for a bad dtype, ndim or shape; -EOVERFLOW when the
 * tensor's size does not fit in a size_t; or an error of
 * pto_buffer_alloc().
 */
PTO_API int pto_tensor_alloc(struct pto_device *dev, enum pto_dtype dtype,
			     unsigned int ndim, const int64_t *shape,
			     struct pto_tensor **out);

/**
 * pto_tensor_view() - describe a tensor inside an existing GM buffer
 * @buf: buffer the tensor lives in; must outlive the tensor
 * @offset: byte offset of element [0, ..., 0], a multiple of the element
 *	    size
 * @dtype: element type
 * @ndim: number of dimensions, 1..PTO_MAX_DIMS
 * @shape: @ndim sizes, each > 0
 * @strides: @ndim strides in elements, each >= 0, or NULL for row-major.
 *	     Views may alias: a stride of 0 broadcasts a dimension, and
 *	     overlapping strides are not refused.
 * @out: the new tensor, NULL on failure
 *
 * Return: 0; -EINVAL for a bad dtype, ndim, shape or stride, or a
 * misaligned @offset; -EOVERFLOW when the size or address arithmetic
 * overflows; -ERANGE when an addressed byte lies past the end of @buf;
 * -ENOMEM.
 */
PTO_API int pto_tensor_view(struct pto_buffer *buf, size_t offset,
			    enum pto_dtype dtype, unsigned int ndim,
			    const int64_t *shape, const int64_t *strides,
			    struct pto_tensor **out);

/**
 * pto_tensor_free() - free a tensor
 * @t: tensor, or NULL
 *
 * Frees the tensor's buffer if pto_tensor_alloc() made it; a view leaves
 * its buffer alone.
 */
PTO_API void pto_tensor_free(struct pto_tensor *t);

/**
 * pto_tensor_data() - host address of a tensor's element [0, ..., 0]
 * @t: tensor
 *
 * Return: the buffer's mapping plus the tensor's offset.
 */
PTO_API void *pto_tensor_data(const struct pto_tensor *t);

/**
 * pto_tensor_dtype() - element type of a tensor
 * @t: tensor
 *
 * Return: the dtype.
 */
PTO_API enum pto_dtype pto_tensor_dtype(const struct pto_tensor *t);

/**
 * pto_tensor_ndim() - number of dimensions of a tensor
 * @t: tensor
 *
 * Return: 1..PTO_MAX_DIMS.
 */
PTO_API unsigned int pto_tensor_ndim(const struct pto_tensor *t);

/**
 * pto_tensor_shape() - sizes of a tensor's dimensions
 * @t: tensor
 *
 * Return: pto_tensor_ndim() sizes, valid while @t lives.
 */
PTO_API const int64_t *pto_tensor_shape(const struct pto_tensor *t);

/**
 * pto_tensor_strides() - strides of a tensor's dimensions
 * @t: tensor
 *
 * Return: pto_tensor_ndim() strides in elements, valid while @t lives.
 */
PTO_API const int64_t *pto_tensor_strides(const struct pto_tensor *t);

/**
 * pto_tensor_offset() - byte offset of a tensor in its buffer
 * @t: tensor
 *
 * Return: the offset of element [0, ..., 0].
 */
PTO_API size_t pto_tensor_offset(const struct pto_tensor *t);

/**
 * pto_tensor_buffer() - GM buffer a tensor lives in
 * @t: tensor
 *
 * Return: the buffer (owned by the tensor if pto_tensor_alloc() made it).
 */
PTO_API struct pto_buffer *pto_tensor_buffer(const struct pto_tensor *t);

/**
 * pto_tensor_numel() - number of elements of a tensor
 * @t: tensor
 *
 * Return: the product of the shape.
 */
PTO_API size_t pto_tensor_numel(const struct pto_tensor *t);

/**
 * pto_tensor_nbytes() - bytes of a tensor's elements
 * @t: tensor
 *
 * Return: pto_tensor_numel() times the element size: what a dense copy
 * takes. A strided view may span more of its buffer.
 */
PTO_API size_t pto_tensor_nbytes(const struct pto_tensor *t);

/**
 * pto_tensor_is_contiguous() - whether a tensor is dense and row-major
 * @t: tensor
 *
 * Return: true if its elements are the pto_tensor_nbytes() bytes from
 * pto_tensor_data() on, in row-major order.
 */
PTO_API bool pto_tensor_is_contiguous(const struct pto_tensor *t);

#ifdef __cplusplus
}
#endif

/* Kernels, dispatch queues and task graphs build on the declarations above. */
#include <pto/kernel.h>
#include <pto/queue.h>
#include <pto/graph.h>

#endif /* PTO_PTO_H */
