// SPDX-License-Identifier: GPL-2.0-only
/*
 * GM buffer objects: DRM_IOCTL_PTO_NPU_BO_CREATE, DRM_IOCTL_PTO_NPU_BO_INFO
 * and DRM_IOCTL_GEM_CLOSE, every rejection path, the per-context caps and
 * the memory accounting.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pto_test.h"

/* A handle number far past anything a test creates. */
#define UNUSED_HANDLE 0x7fff0000u

/* Handles the uniqueness test creates. */
#define UNIQUE_HANDLES 64

/* Timeout for the tests that fill a context up to its caps (debug kernel). */
#define CAP_TEST_TIMEOUT 300

/* Threads and duration of the create/close race at the buffer-count cap. */
#define RACE_THREADS 4
#define RACE_SECONDS 5

FIXTURE(bo)
{
	int fd;
	uint64_t page;
	struct drm_pto_npu_limits lim;
};

FIXTURE_SETUP(bo)
{
	self->page = pto_test_page_size();
	self->fd = pto_test_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", pto_test_device_path(),
				      strerror(errno));
	ASSERT_EQ(0, pto_test_limits(self->fd, &self->lim));
	ASSERT_LT(0u, self->lim.max_bo_size);
	ASSERT_LT(0u, self->lim.max_bos_per_context);
}

FIXTURE_TEARDOWN(bo)
{
	if (self->fd >= 0)
		close(self->fd);
}

static int raw_create(int fd, struct drm_pto_npu_bo_create *c)
{
	return drmIoctl(fd, DRM_IOCTL_PTO_NPU_BO_CREATE, c);
}

static int raw_info(int fd, struct drm_pto_npu_bo_info *i)
{
	return drmIoctl(fd, DRM_IOCTL_PTO_NPU_BO_INFO, i);
}

static int raw_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

/* Creates with @size and returns the errno of the refusal (0 if created). */
static int create_errno(int fd, uint64_t size, uint32_t flags, uint32_t handle)
{
	struct drm_pto_npu_bo_create c = {
		.size = size,
		.flags = flags,
		.handle = handle,
	};

	errno = 0;
	if (raw_create(fd, &c) == 0) {
		raw_close(fd, c.handle);
		return 0;
	}
	return errno;
}

/* The context holds no buffer: a refused create left no charge behind. */
#define EXPECT_CONTEXT_EMPTY(fd) do { \
	struct drm_pto_npu_memory_info __mem; \
	ASSERT_EQ(0, pto_test_memory(fd, &__mem)); \
	EXPECT_EQ(0u, __mem.context_bos); \
	EXPECT_EQ(0u, __mem.context_bytes); \
} while (0)

TEST_F(bo, create_size_zero_rejected)
{
	EXPECT_EQ(EINVAL, create_errno(self->fd, 0, 0, 0));
	EXPECT_CONTEXT_EMPTY(self->fd);
}

TEST_F(bo, create_size_over_max_rejected)
{
	EXPECT_EQ(EINVAL, create_errno(self->fd, self->lim.max_bo_size + 1, 0, 0));
	EXPECT_EQ(EINVAL, create_errno(self->fd,
				       self->lim.max_bo_size + self->page, 0, 0));
	EXPECT_EQ(EINVAL, create_errno(self->fd, 2 * self->lim.max_bo_size, 0, 0));
	EXPECT_CONTEXT_EMPTY(self->fd);
}

TEST_F(bo, create_size_u64_max_rejected)
{
	EXPECT_EQ(EINVAL, create_errno(self->fd, UINT64_MAX, 0, 0));
	EXPECT_EQ(EINVAL, create_errno(self->fd, (uint64_t)INT64_MAX + 1, 0, 0));
	EXPECT_CONTEXT_EMPTY(self->fd);
}

TEST_F(bo, create_size_page_align_overflow_rejected)
{
	/* Rounding these up to a page would wrap to a small size. */
	EXPECT_EQ(EINVAL, create_errno(self->fd, UINT64_MAX - self->page + 2, 0, 0));
	EXPECT_EQ(EINVAL, create_errno(self->fd, UINT64_MAX - self->page - 1, 0, 0));
	EXPECT_CONTEXT_EMPTY(self->fd);
}

TEST_F(bo, create_size_truncation_rejected)
{
	/* These look like one page if the size is ever cut to 32 bits. */
	if (self->lim.max_bo_size >= (1ull << 32))
		SKIP(return, "max_bo_size %llu is not below 4 GiB",
		     (unsigned long long)self->lim.max_bo_size);
	EXPECT_EQ(EINVAL, create_errno(self->fd, (1ull << 32) + self->page, 0, 0));
	EXPECT_EQ(EINVAL, create_errno(self->fd, (1ull << 32) + 1, 0, 0));
	EXPECT_CONTEXT_EMPTY(self->fd);
}

TEST_F(bo, create_nonzero_flags_rejected)
{
	uint32_t flags[] = { 1u, 0x80000000u, UINT32_MAX };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		uint32_t f = flags[i];

		EXPECT_EQ(EINVAL, create_errno(self->fd, self->page, f, 0))
			TH_LOG("flags 0x%x", f);
	}
	EXPECT_CONTEXT_EMPTY(self->fd);
}

TEST_F(bo, create_nonzero_input_handle_rejected)
{
	uint32_t handle;

	EXPECT_EQ(EINVAL, create_errno(self->fd, self->page, 0, 1));
	EXPECT_EQ(EINVAL, create_errno(self->fd, self->page, 0, UINT32_MAX));
	/* Not even the number of a live handle of this context. */
	ASSERT_EQ(0, pto_test_bo_create(self->fd, self->page, &handle, NULL));
	EXPECT_EQ(EINVAL, create_errno(self->fd, self->page, 0, handle));
	ASSERT_EQ(0, pto_test_gem_close(self->fd, handle));
	EXPECT_CONTEXT_EMPTY(self->fd);
}

TEST_F(bo, create_size_one_rounds_to_page)
{
	struct drm_pto_npu_bo_create c = { .size = 1 };
	uint64_t size, offset;

	ASSERT_EQ(0, raw_create(self->fd, &c));
	EXPECT_EQ(self->page, c.size);
	EXPECT_NE(0u, c.handle);
	ASSERT_EQ(0, pto_test_bo_info(self->fd, c.handle, &size, &offset));
	EXPECT_EQ(self->page, size);
	EXPECT_NE(0u, offset);
	EXPECT_EQ(0u, offset % self->page);
}

TEST_F(bo, create_unaligned_size_rounds_up)
{
	uint64_t size, info_size;
	uint32_t handle;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, 3 * self->page + 1, &handle,
					&size));
	EXPECT_EQ(4 * self->page, size);
	ASSERT_EQ(0, pto_test_bo_info(self->fd, handle, &info_size, NULL));
	EXPECT_EQ(size, info_size);
}

TEST_F(bo, create_max_size_accepted)
{
	uint64_t size, info_size;
	uint32_t handle;

	/* shmem allocates lazily: this needs no RAM. */
	ASSERT_EQ(0, pto_test_bo_create(self->fd, self->lim.max_bo_size, &handle,
					&size));
	EXPECT_EQ(self->lim.max_bo_size, size);
	ASSERT_EQ(0, pto_test_bo_info(self->fd, handle, &info_size, NULL));
	EXPECT_EQ(self->lim.max_bo_size, info_size);
	EXPECT_EQ(0, pto_test_gem_close(self->fd, handle));
}

TEST_F(bo, create_handles_unique_and_offsets_distinct)
{
	uint32_t handles[UNIQUE_HANDLES];
	uint64_t offsets[UNIQUE_HANDLES];
	int i, j;

	for (i = 0; i < UNIQUE_HANDLES; i++) {
		ASSERT_EQ(0, pto_test_bo_create(self->fd, self->page, &handles[i],
						NULL));
		ASSERT_NE(0u, handles[i]);
		ASSERT_EQ(0, pto_test_bo_info(self->fd, handles[i], NULL,
					      &offsets[i]));
	}
	for (i = 0; i < UNIQUE_HANDLES; i++) {
		for (j = i + 1; j < UNIQUE_HANDLES; j++) {
			EXPECT_NE(handles[i], handles[j]);
			EXPECT_NE(offsets[i], offsets[j]);
		}
	}
}

TEST_F(bo, info_is_stable)
{
	uint64_t size1, size2, off1, off2;
	uint32_t handle;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, 5 * self->page, &handle, NULL));
	ASSERT_EQ(0, pto_test_bo_info(self->fd, handle, &size1, &off1));
	ASSERT_EQ(0, pto_test_bo_info(self->fd, handle, &size2, &off2));
	EXPECT_EQ(5 * self->page, size1);
	EXPECT_EQ(size1, size2);
	EXPECT_EQ(off1, off2);
}

TEST_F(bo, info_unknown_handle_rejected)
{
	struct drm_pto_npu_bo_info i = { .handle = UNUSED_HANDLE };
	uint32_t handle;

	errno = 0;
	EXPECT_EQ(-1, raw_info(self->fd, &i));
	EXPECT_EQ(ENOENT, errno);

	/* Still unknown when the context holds other buffers. */
	ASSERT_EQ(0, pto_test_bo_create(self->fd, self->page, &handle, NULL));
	i = (struct drm_pto_npu_bo_info){ .handle = handle + 1 };
	errno = 0;
	EXPECT_EQ(-1, raw_info(self->fd, &i));
	EXPECT_EQ(ENOENT, errno);
	i = (struct drm_pto_npu_bo_info){ .handle = UINT32_MAX };
	errno = 0;
	EXPECT_EQ(-1, raw_info(self->fd, &i));
	EXPECT_EQ(ENOENT, errno);
}

TEST_F(bo, info_handle_zero_rejected)
{
	struct drm_pto_npu_bo_info i = { .handle = 0 };
	uint32_t handle;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, self->page, &handle, NULL));
	errno = 0;
	EXPECT_EQ(-1, raw_info(self->fd, &i));
	EXPECT_EQ(ENOENT, errno);
}

TEST_F(bo, info_nonzero_flags_rejected)
{
	uint32_t flags[] = { 1u, 0x80000000u, UINT32_MAX };
	uint32_t handle;
	size_t k;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, self->page, &handle, NULL));
	for (k = 0; k < ARRAY_SIZE(flags); k++) {
		struct drm_pto_npu_bo_info i = {
			.handle = handle,
			.flags = flags[k],
		};

		errno = 0;
		EXPECT_EQ(-1, raw_info(self->fd, &i));
		EXPECT_EQ(EINVAL, errno) TH_LOG("flags 0x%x", flags[k]);
	}
	/* The buffer itself is unharmed. */
	EXPECT_EQ(0, pto_test_bo_info(self->fd, handle, NULL, NULL));
}

TEST_F(bo, info_closed_handle_rejected)
{
	struct drm_pto_npu_bo_info i = { 0 };
	uint32_t handle;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, self->page, &handle, NULL));
	ASSERT_EQ(0, pto_test_gem_close(self->fd, handle));
	i.handle = handle;
	errno = 0;
	EXPECT_EQ(-1, raw_info(self->fd, &i));
	EXPECT_EQ(ENOENT, errno);
}

TEST_F(bo, close_twice_fails)
{
	uint32_t handle;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, self->page, &handle, NULL));
	EXPECT_EQ(0, raw_close(self->fd, handle));
	errno = 0;
	EXPECT_EQ(-1, raw_close(self->fd, handle));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_CONTEXT_EMPTY(self->fd);
}

TEST_F(bo, close_unknown_handle_fails)
{
	uint32_t handle;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, self->page, &handle, NULL));
	errno = 0;
	EXPECT_EQ(-1, raw_close(self->fd, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, raw_close(self->fd, UNUSED_HANDLE));
	EXPECT_EQ(EINVAL, errno);
	/* The live buffer is untouched by the failed closes. */
	EXPECT_EQ(0, pto_test_bo_info(self->fd, handle, NULL, NULL));
}

TEST_F_TIMEOUT(bo, bo_count_cap_enospc, CAP_TEST_TIMEOUT)
{
	uint32_t max = self->lim.max_bos_per_context;
	struct drm_pto_npu_memory_info mem;
	uint32_t *handles = calloc(max, sizeof(*handles));
	uint32_t extra;
	uint32_t i;

	ASSERT_NE(NULL, handles);
	/* One page each keeps the byte cap out of the way. */
	ASSERT_LE((uint64_t)max * self->page, self->lim.max_gm_per_context);
	for (i = 0; i < max; i++)
		ASSERT_EQ(0, pto_test_bo_create(self->fd, self->page, &handles[i],
						NULL)) TH_LOG("buffer %u of %u", i, max);

	EXPECT_EQ(ENOSPC, create_errno(self->fd, self->page, 0, 0));
	EXPECT_EQ(ENOSPC, create_errno(self->fd, self->page, 0, 0));
	ASSERT_EQ(0, pto_test_memory(self->fd, &mem));
	EXPECT_EQ(max, mem.context_bos);
	EXPECT_EQ(max * self->page, mem.context_bytes);

	/* Freeing one buffer makes room for exactly one. */
	ASSERT_EQ(0, pto_test_gem_close(self->fd, handles[max / 2]));
	EXPECT_EQ(0, pto_test_bo_create(self->fd, self->page, &extra, NULL));
	EXPECT_EQ(ENOSPC, create_errno(self->fd, self->page, 0, 0));

	/* Freeing everything gives the whole budget back. */
	for (i = 0; i < max; i++)
		if (i != max / 2)
			ASSERT_EQ(0, pto_test_gem_close(self->fd, handles[i]));
	ASSERT_EQ(0, pto_test_gem_close(self->fd, extra));
	EXPECT_CONTEXT_EMPTY(self->fd);
	EXPECT_EQ(0, create_errno(self->fd, self->page, 0, 0));
	free(handles);
}

TEST_F_TIMEOUT(bo, gm_byte_cap_enospc, CAP_TEST_TIMEOUT)
{
	uint64_t cap = self->lim.max_gm_per_context;
	uint64_t max_bo = self->lim.max_bo_size;
	uint64_t fit = cap / max_bo;
	struct drm_pto_npu_memory_info mem;
	uint32_t *handles;
	uint64_t n = 0;
	int err = 0;

	ASSERT_LE(fit, (uint64_t)self->lim.max_bos_per_context)
		TH_LOG("the count cap would be hit first");
	handles = calloc(fit + 1, sizeof(*handles));
	ASSERT_NE(NULL, handles);

	/* shmem allocates lazily: a gigabyte of buffers needs no RAM. */
	while (n <= fit) {
		err = pto_test_bo_create(self->fd, max_bo, &handles[n], NULL);
		if (err)
			break;
		n++;
	}
	EXPECT_EQ(-ENOSPC, err);
	EXPECT_EQ(fit, n);

	ASSERT_EQ(0, pto_test_memory(self->fd, &mem));
	EXPECT_EQ(n, mem.context_bos);
	EXPECT_EQ(n * max_bo, mem.context_bytes);
	EXPECT_LE(mem.context_bytes, cap);

	/* Whatever is left under the cap still fits, one page more does not. */
	if (cap - n * max_bo >= self->page) {
		uint32_t rest;

		EXPECT_EQ(0, pto_test_bo_create(self->fd, cap - n * max_bo, &rest,
						NULL));
	}
	EXPECT_EQ(ENOSPC, create_errno(self->fd, self->page, 0, 0));

	/* Freeing one buffer makes room for it again. */
	ASSERT_LT(0u, n);
	ASSERT_EQ(0, pto_test_gem_close(self->fd, handles[0]));
	EXPECT_EQ(0, pto_test_bo_create(self->fd, max_bo, &handles[0], NULL));
	EXPECT_EQ(ENOSPC, create_errno(self->fd, self->page, 0, 0));
	free(handles);
}

TEST_F_TIMEOUT(bo, gm_byte_cap_is_per_context, CAP_TEST_TIMEOUT)
{
	uint64_t max_bo = self->lim.max_bo_size;
	uint32_t handle, i;
	int other, err = 0;

	/* Fill this context up to its byte cap (bounded if there is none). */
	for (i = 0; i <= self->lim.max_bos_per_context && !err; i++)
		err = pto_test_bo_create(self->fd, max_bo, &handle, NULL);
	ASSERT_EQ(-ENOSPC, err);

	other = pto_test_open();
	ASSERT_LE(0, other);
	EXPECT_EQ(0, pto_test_bo_create(other, max_bo, &handle, NULL));
	close(other);
}

struct race_worker {
	pthread_t thread;
	int fd;
	uint64_t size;
	atomic_bool *stop;
	unsigned long created;
	unsigned long refused;
	unsigned long failed;
};

/* Creates and frees one buffer after another while others do the same. */
static void *race_create_close(void *arg)
{
	struct race_worker *w = arg;

	while (!atomic_load(w->stop)) {
		struct drm_pto_npu_bo_create c = { .size = w->size };

		if (raw_create(w->fd, &c) == 0) {
			w->created++;
			if (raw_close(w->fd, c.handle))
				w->failed++;
		} else if (errno == ENOSPC) {
			w->refused++;
		} else {
			w->failed++;
		}
	}
	return NULL;
}

/*
 * With the context one buffer under its count cap, threads race to take the
 * last slot: creates are refused while frees run. A refused create must undo
 * exactly what it charged, so when the dust settles the counters are exact.
 */
TEST_F_TIMEOUT(bo, racing_creates_at_cap_keep_accounting_exact,
	       CAP_TEST_TIMEOUT)
{
	uint32_t held = self->lim.max_bos_per_context - 1;
	struct race_worker workers[RACE_THREADS];
	struct drm_pto_npu_memory_info mem;
	unsigned long created = 0, refused = 0;
	atomic_bool stop = false;
	uint32_t *handles = calloc(held ? held : 1, sizeof(*handles));
	uint32_t i;

	ASSERT_NE(NULL, handles);
	ASSERT_LE((uint64_t)(held + RACE_THREADS) * self->page,
		  self->lim.max_gm_per_context);
	for (i = 0; i < held; i++)
		ASSERT_EQ(0, pto_test_bo_create(self->fd, self->page, &handles[i],
						NULL)) TH_LOG("buffer %u", i);

	for (i = 0; i < RACE_THREADS; i++) {
		workers[i] = (struct race_worker){
			.fd = self->fd,
			.size = self->page,
			.stop = &stop,
		};
		ASSERT_EQ(0, pthread_create(&workers[i].thread, NULL,
					    race_create_close, &workers[i]));
	}
	sleep(RACE_SECONDS);
	atomic_store(&stop, true);
	for (i = 0; i < RACE_THREADS; i++) {
		ASSERT_EQ(0, pthread_join(workers[i].thread, NULL));
		EXPECT_EQ(0u, workers[i].failed) TH_LOG("thread %u", i);
		created += workers[i].created;
		refused += workers[i].refused;
	}
	TH_LOG("%lu creates, %lu refused with ENOSPC", created, refused);
	EXPECT_LT(0u, created);

	ASSERT_EQ(0, pto_test_memory(self->fd, &mem));
	EXPECT_EQ(held, mem.context_bos);
	EXPECT_EQ(held * self->page, mem.context_bytes);

	for (i = 0; i < held; i++)
		ASSERT_EQ(0, pto_test_gem_close(self->fd, handles[i]));
	EXPECT_CONTEXT_EMPTY(self->fd);
	free(handles);
}

TEST_F(bo, memory_accounting_follows_create_and_close)
{
	uint64_t asked[] = { 1, 3 * self->page + 7, 1 << 20 };
	struct drm_pto_npu_memory_info before, during, after;
	uint32_t handles[ARRAY_SIZE(asked)];
	uint64_t total = 0;
	size_t i;

	ASSERT_EQ(0, pto_test_memory(self->fd, &before));
	for (i = 0; i < ARRAY_SIZE(asked); i++) {
		struct drm_pto_npu_memory_info step;
		uint64_t size;

		ASSERT_EQ(0, pto_test_bo_create(self->fd, asked[i], &handles[i],
						&size));
		total += size;
		ASSERT_EQ(0, pto_test_memory(self->fd, &step));
		EXPECT_EQ(before.context_bos + i + 1, step.context_bos);
		EXPECT_EQ(before.context_bytes + total, step.context_bytes);
	}
	ASSERT_EQ(0, pto_test_memory(self->fd, &during));
	EXPECT_EQ(before.context_bos + ARRAY_SIZE(asked), during.context_bos);
	EXPECT_EQ(before.context_bytes + total, during.context_bytes);
	EXPECT_EQ(before.device_bos + ARRAY_SIZE(asked), during.device_bos);
	EXPECT_EQ(before.device_bytes + total, during.device_bytes);

	for (i = 0; i < ARRAY_SIZE(asked); i++)
		ASSERT_EQ(0, pto_test_gem_close(self->fd, handles[i]));
	ASSERT_EQ(0, pto_test_memory(self->fd, &after));
	EXPECT_EQ(before.context_bos, after.context_bos);
	EXPECT_EQ(before.context_bytes, after.context_bytes);
	EXPECT_EQ(before.device_bos, after.device_bos);
	EXPECT_EQ(before.device_bytes, after.device_bytes);
}

TEST_F(bo, refused_create_leaves_device_accounting)
{
	struct drm_pto_npu_memory_info before, after;

	ASSERT_EQ(0, pto_test_memory(self->fd, &before));
	EXPECT_EQ(EINVAL, create_errno(self->fd, 0, 0, 0));
	EXPECT_EQ(EINVAL, create_errno(self->fd, UINT64_MAX, 0, 0));
	EXPECT_EQ(EINVAL, create_errno(self->fd, self->page, 1, 0));
	EXPECT_EQ(EINVAL, create_errno(self->fd, self->page, 0, 1));
	ASSERT_EQ(0, pto_test_memory(self->fd, &after));
	EXPECT_EQ(before.device_bos, after.device_bos);
	EXPECT_EQ(before.device_bytes, after.device_bytes);
	EXPECT_EQ(before.context_bos, after.context_bos);
	EXPECT_EQ(before.context_bytes, after.context_bytes);
}

TEST_F(bo, fd_close_releases_buffers)
{
	struct drm_pto_npu_memory_info before, during, after;
	uint64_t size;
	uint32_t handle;
	int other;

	ASSERT_EQ(0, pto_test_memory(self->fd, &before));
	other = pto_test_open();
	ASSERT_LE(0, other);
	ASSERT_EQ(0, pto_test_bo_create(other, 2 * self->page, &handle, &size));
	ASSERT_EQ(0, pto_test_bo_create(other, self->page, &handle, NULL));
	ASSERT_EQ(0, pto_test_memory(self->fd, &during));
	EXPECT_EQ(before.device_bos + 2, during.device_bos);
	EXPECT_EQ(before.device_bytes + size + self->page, during.device_bytes);
	/* Another context's buffers are not charged to this one. */
	EXPECT_EQ(before.context_bos, during.context_bos);

	ASSERT_EQ(0, close(other));
	ASSERT_EQ(0, pto_test_memory(self->fd, &after));
	EXPECT_EQ(before.device_bos, after.device_bos);
	EXPECT_EQ(before.device_bytes, after.device_bytes);
}

TEST_HARNESS_MAIN
