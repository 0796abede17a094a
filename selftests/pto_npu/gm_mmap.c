// SPDX-License-Identifier: GPL-2.0-only
/*
 * GM mapped into user space: mmap(MAP_SHARED) of a buffer's BO_INFO offset,
 * coherence between mappings, every refused mmap, the lifetime of a mapping
 * against GEM_CLOSE and close(), and churn.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pto_test.h"

/* Buffers and bytes of the many-buffers test. */
#define MANY_BOS 1000
#define MANY_BO_SIZE 4096

/* Open/create/close cycles of the churn test, and their buffer size. */
#define CHURN_CYCLES 500
#define CHURN_BO_SIZE (64 * 1024)

/* An mmap offset far past any the device hands out. */
#define FAR_OFFSET (1ull << 44)

/* Timeout for the many-buffers and churn tests (debug kernel). */
#define HEAVY_TEST_TIMEOUT 300

FIXTURE(gm)
{
	int fd;
	size_t page;
};

FIXTURE_SETUP(gm)
{
	self->page = pto_test_page_size();
	self->fd = pto_test_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", pto_test_device_path(),
				      strerror(errno));
}

FIXTURE_TEARDOWN(gm)
{
	if (self->fd >= 0)
		close(self->fd);
}

static void *map_at(int fd, uint64_t offset, size_t len, int flags)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, (off_t)offset);
}

TEST_F(gm, mmap_shared_starts_zeroed)
{
	uint64_t size;
	uint32_t handle;
	uint8_t *p;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, 16 * self->page + 1, &handle,
					NULL));
	p = pto_test_bo_mmap(self->fd, handle, &size);
	ASSERT_NE(MAP_FAILED, (void *)p) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_EQ(17 * self->page, size);
	EXPECT_TRUE(pto_test_all_bytes(p, size, 0));

	/* Every byte, including the rounded-up tail, is writable. */
	pto_test_fill(p, size, 1);
	EXPECT_EQ(-1, pto_test_check(p, size, 1));
	EXPECT_EQ(0, munmap(p, size));
}

TEST_F(gm, second_mapping_sees_writes)
{
	uint64_t size, offset;
	uint32_t handle;
	uint8_t *a, *b;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, 4 * self->page, &handle, &size));
	ASSERT_EQ(0, pto_test_bo_info(self->fd, handle, NULL, &offset));
	a = map_at(self->fd, offset, size, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, (void *)a);
	b = map_at(self->fd, offset, size, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, (void *)b);
	EXPECT_NE(a, b);

	pto_test_fill(a, size, 2);
	EXPECT_EQ(-1, pto_test_check(b, size, 2));
	pto_test_fill(b, size, 3);
	EXPECT_EQ(-1, pto_test_check(a, size, 3));

	EXPECT_EQ(0, munmap(a, size));
	EXPECT_EQ(0, munmap(b, size));
}

TEST_F(gm, data_survives_remap)
{
	uint64_t size;
	uint32_t handle;
	uint8_t *p;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, 8 * self->page, &handle, NULL));
	p = pto_test_bo_mmap(self->fd, handle, &size);
	ASSERT_NE(MAP_FAILED, (void *)p);
	pto_test_fill(p, size, 4);
	ASSERT_EQ(0, munmap(p, size));

	p = pto_test_bo_mmap(self->fd, handle, &size);
	ASSERT_NE(MAP_FAILED, (void *)p);
	EXPECT_EQ(-1, pto_test_check(p, size, 4));
	EXPECT_EQ(0, munmap(p, size));
}

TEST_F(gm, map_private_rejected)
{
	uint64_t size, offset;
	uint32_t handle;
	void *p;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, self->page, &handle, &size));
	ASSERT_EQ(0, pto_test_bo_info(self->fd, handle, NULL, &offset));

	errno = 0;
	p = map_at(self->fd, offset, size, MAP_PRIVATE);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);

	/* Read-only does not make a private (copy-on-write) mapping OK. */
	errno = 0;
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, self->fd, (off_t)offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(gm, unknown_offset_rejected)
{
	uint64_t offsets[] = { 0, self->page, FAR_OFFSET };
	uint32_t handle;
	size_t i;

	/* With a buffer alive, so the device has some offset in use. */
	ASSERT_EQ(0, pto_test_bo_create(self->fd, self->page, &handle, NULL));
	for (i = 0; i < ARRAY_SIZE(offsets); i++) {
		void *p;

		errno = 0;
		p = map_at(self->fd, offsets[i], self->page, MAP_SHARED);
		EXPECT_EQ(MAP_FAILED, p) TH_LOG("offset 0x%llx",
						(unsigned long long)offsets[i]);
		EXPECT_EQ(EINVAL, errno);
		if (p != MAP_FAILED)
			munmap(p, self->page);
	}
}

TEST_F(gm, offset_inside_buffer_rejected)
{
	uint64_t size, offset;
	uint32_t handle;
	void *p;

	/* The offset must name the start of a buffer, not a page inside it. */
	ASSERT_EQ(0, pto_test_bo_create(self->fd, 4 * self->page, &handle, &size));
	ASSERT_EQ(0, pto_test_bo_info(self->fd, handle, NULL, &offset));
	errno = 0;
	p = map_at(self->fd, offset + self->page, self->page, MAP_SHARED);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(gm, freed_buffer_offset_rejected)
{
	uint64_t size, offset;
	uint32_t handle;
	void *p;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, self->page, &handle, &size));
	ASSERT_EQ(0, pto_test_bo_info(self->fd, handle, NULL, &offset));
	ASSERT_EQ(0, pto_test_gem_close(self->fd, handle));
	errno = 0;
	p = map_at(self->fd, offset, size, MAP_SHARED);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(gm, mmap_beyond_size_rejected)
{
	uint64_t size, offset;
	uint32_t handle;
	void *p;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, 2 * self->page, &handle, &size));
	ASSERT_EQ(0, pto_test_bo_info(self->fd, handle, NULL, &offset));
	errno = 0;
	p = map_at(self->fd, offset, size + self->page, MAP_SHARED);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);

	errno = 0;
	p = map_at(self->fd, offset, 16 * size, MAP_SHARED);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(gm, mmap_of_buffer_prefix_allowed)
{
	uint64_t size, offset;
	uint32_t handle;
	uint8_t *whole, *prefix;

	ASSERT_EQ(0, pto_test_bo_create(self->fd, 4 * self->page, &handle, &size));
	ASSERT_EQ(0, pto_test_bo_info(self->fd, handle, NULL, &offset));
	prefix = map_at(self->fd, offset, self->page, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, (void *)prefix);
	whole = map_at(self->fd, offset, size, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, (void *)whole);

	pto_test_fill(whole, size, 5);
	EXPECT_EQ(-1, pto_test_check(prefix, self->page, 5));
	EXPECT_EQ(0, munmap(prefix, self->page));
	EXPECT_EQ(0, munmap(whole, size));
}

TEST_F(gm, mapping_survives_handle_close)
{
	struct drm_pto_npu_memory_info before, closed, unmapped;
	uint64_t size, offset;
	uint32_t handle;
	uint8_t *p;
	void *again;

	ASSERT_EQ(0, pto_test_memory(self->fd, &before));
	ASSERT_EQ(0, pto_test_bo_create(self->fd, 4 * self->page, &handle, &size));
	ASSERT_EQ(0, pto_test_bo_info(self->fd, handle, NULL, &offset));
	p = map_at(self->fd, offset, size, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, (void *)p);
	pto_test_fill(p, size, 6);

	ASSERT_EQ(0, pto_test_gem_close(self->fd, handle));
	/* The handle is gone, the memory is not. */
	errno = 0;
	EXPECT_EQ(-ENOENT, pto_test_bo_info(self->fd, handle, NULL, NULL));
	EXPECT_EQ(-1, pto_test_check(p, size, 6));
	pto_test_fill(p, size, 7);
	EXPECT_EQ(-1, pto_test_check(p, size, 7));

	ASSERT_EQ(0, pto_test_memory(self->fd, &closed));
	EXPECT_EQ(before.context_bos + 1, closed.context_bos);
	EXPECT_EQ(before.context_bytes + size, closed.context_bytes);
	EXPECT_EQ(before.device_bos + 1, closed.device_bos);
	EXPECT_EQ(before.device_bytes + size, closed.device_bytes);

	/* Without a handle the file may not map the buffer anew. */
	errno = 0;
	again = map_at(self->fd, offset, size, MAP_SHARED);
	EXPECT_EQ(MAP_FAILED, again);
	EXPECT_EQ(EACCES, errno);
	if (again != MAP_FAILED)
		munmap(again, size);

	ASSERT_EQ(0, munmap(p, size));
	ASSERT_EQ(0, pto_test_memory(self->fd, &unmapped));
	EXPECT_EQ(before.context_bos, unmapped.context_bos);
	EXPECT_EQ(before.context_bytes, unmapped.context_bytes);
	EXPECT_EQ(before.device_bos, unmapped.device_bos);
	EXPECT_EQ(before.device_bytes, unmapped.device_bytes);
}

TEST_F(gm, mapping_survives_fd_close)
{
	struct drm_pto_npu_memory_info before, closed, unmapped;
	uint64_t size;
	uint32_t handle;
	uint8_t *p;
	int other;

	ASSERT_EQ(0, pto_test_memory(self->fd, &before));
	other = pto_test_open();
	ASSERT_LE(0, other);
	ASSERT_EQ(0, pto_test_bo_create(other, 2 * self->page, &handle, NULL));
	p = pto_test_bo_mmap(other, handle, &size);
	ASSERT_NE(MAP_FAILED, (void *)p);
	pto_test_fill(p, size, 8);

	ASSERT_EQ(0, close(other));
	EXPECT_EQ(-1, pto_test_check(p, size, 8));
	pto_test_fill(p, size, 9);
	EXPECT_EQ(-1, pto_test_check(p, size, 9));
	ASSERT_EQ(0, pto_test_memory(self->fd, &closed));
	EXPECT_EQ(before.device_bos + 1, closed.device_bos);
	EXPECT_EQ(before.device_bytes + size, closed.device_bytes);

	ASSERT_EQ(0, munmap(p, size));
	ASSERT_EQ(0, pto_test_memory(self->fd, &unmapped));
	EXPECT_EQ(before.device_bos, unmapped.device_bos);
	EXPECT_EQ(before.device_bytes, unmapped.device_bytes);
}

TEST_F(gm, partial_munmap_keeps_buffer)
{
	struct drm_pto_npu_memory_info before, mid, after;
	uint64_t size;
	uint32_t handle;
	uint8_t *p;
	size_t page = self->page;

	ASSERT_EQ(0, pto_test_memory(self->fd, &before));
	ASSERT_EQ(0, pto_test_bo_create(self->fd, 4 * page, &handle, NULL));
	p = pto_test_bo_mmap(self->fd, handle, &size);
	ASSERT_NE(MAP_FAILED, (void *)p);
	pto_test_fill(p, size, 10);
	ASSERT_EQ(0, pto_test_gem_close(self->fd, handle));

	/* Split the mapping in three and drop the middle. */
	ASSERT_EQ(0, munmap(p + page, 2 * page));
	EXPECT_EQ(-1, pto_test_check(p, page, 10));
	EXPECT_EQ(pto_test_pattern(10, 3 * page / 4),
		  *(uint32_t *)(p + 3 * page));
	ASSERT_EQ(0, pto_test_memory(self->fd, &mid));
	EXPECT_EQ(before.context_bos + 1, mid.context_bos);

	ASSERT_EQ(0, munmap(p, page));
	ASSERT_EQ(0, pto_test_memory(self->fd, &mid));
	EXPECT_EQ(before.context_bos + 1, mid.context_bos);

	ASSERT_EQ(0, munmap(p + 3 * page, page));
	ASSERT_EQ(0, pto_test_memory(self->fd, &after));
	EXPECT_EQ(before.context_bos, after.context_bos);
	EXPECT_EQ(before.context_bytes, after.context_bytes);
	EXPECT_EQ(before.device_bos, after.device_bos);
}

TEST_F_TIMEOUT(gm, many_buffers_keep_distinct_data, HEAVY_TEST_TIMEOUT)
{
	struct drm_pto_npu_memory_info before, during, after;
	uint32_t *handles = calloc(MANY_BOS, sizeof(*handles));
	uint8_t **maps = calloc(MANY_BOS, sizeof(*maps));
	uint64_t size;
	int i;

	ASSERT_NE(NULL, handles);
	ASSERT_NE(NULL, maps);
	ASSERT_EQ(0, pto_test_memory(self->fd, &before));
	for (i = 0; i < MANY_BOS; i++) {
		ASSERT_EQ(0, pto_test_bo_create(self->fd, MANY_BO_SIZE,
						&handles[i], NULL))
			TH_LOG("buffer %d", i);
		maps[i] = pto_test_bo_mmap(self->fd, handles[i], &size);
		ASSERT_NE(MAP_FAILED, (void *)maps[i]) TH_LOG("buffer %d", i);
		ASSERT_EQ((uint64_t)MANY_BO_SIZE, size);
		ASSERT_TRUE(pto_test_all_bytes(maps[i], MANY_BO_SIZE, 0))
			TH_LOG("buffer %d not zeroed", i);
		pto_test_fill(maps[i], MANY_BO_SIZE, 1000 + i);
	}
	for (i = 0; i < MANY_BOS; i++)
		EXPECT_EQ(-1, pto_test_check(maps[i], MANY_BO_SIZE, 1000 + i))
			TH_LOG("buffer %d", i);

	ASSERT_EQ(0, pto_test_memory(self->fd, &during));
	EXPECT_EQ(before.context_bos + MANY_BOS, during.context_bos);
	EXPECT_EQ(before.context_bytes + (uint64_t)MANY_BOS * MANY_BO_SIZE,
		  during.context_bytes);

	/* Free every other buffer; the rest keep their data. */
	for (i = 0; i < MANY_BOS; i += 2) {
		ASSERT_EQ(0, munmap(maps[i], MANY_BO_SIZE));
		ASSERT_EQ(0, pto_test_gem_close(self->fd, handles[i]));
	}
	for (i = 1; i < MANY_BOS; i += 2) {
		EXPECT_EQ(-1, pto_test_check(maps[i], MANY_BO_SIZE, 1000 + i))
			TH_LOG("buffer %d", i);
		ASSERT_EQ(0, munmap(maps[i], MANY_BO_SIZE));
		ASSERT_EQ(0, pto_test_gem_close(self->fd, handles[i]));
	}
	ASSERT_EQ(0, pto_test_memory(self->fd, &after));
	EXPECT_EQ(before.context_bos, after.context_bos);
	EXPECT_EQ(before.context_bytes, after.context_bytes);
	free(maps);
	free(handles);
}

TEST_F_TIMEOUT(gm, open_close_churn_leaks_nothing, HEAVY_TEST_TIMEOUT)
{
	struct drm_pto_npu_memory_info before, fresh, after;
	int i;

	ASSERT_EQ(0, pto_test_memory(self->fd, &before));
	for (i = 0; i < CHURN_CYCLES; i++) {
		uint64_t size;
		uint32_t handle;
		uint8_t *p;
		int fd = pto_test_open();

		ASSERT_LE(0, fd) TH_LOG("cycle %d: %s", i, strerror(errno));
		ASSERT_EQ(0, pto_test_memory(fd, &fresh));
		ASSERT_EQ(0u, fresh.context_bos) TH_LOG("cycle %d", i);
		ASSERT_EQ(0u, fresh.context_bytes) TH_LOG("cycle %d", i);
		ASSERT_EQ(0, pto_test_bo_create(fd, CHURN_BO_SIZE, &handle, NULL))
			TH_LOG("cycle %d", i);
		p = pto_test_bo_mmap(fd, handle, &size);
		ASSERT_NE(MAP_FAILED, (void *)p) TH_LOG("cycle %d", i);
		ASSERT_TRUE(pto_test_all_bytes(p, size, 0)) TH_LOG("cycle %d", i);
		pto_test_fill(p, size, i);
		ASSERT_EQ(-1, pto_test_check(p, size, i)) TH_LOG("cycle %d", i);

		/* Alternate the order of teardown: unmap first, or close first. */
		if (i % 2) {
			ASSERT_EQ(0, close(fd));
			ASSERT_EQ(0, munmap(p, size));
		} else {
			ASSERT_EQ(0, munmap(p, size));
			ASSERT_EQ(0, close(fd));
		}
	}
	ASSERT_EQ(0, pto_test_memory(self->fd, &after));
	EXPECT_EQ(before.device_bos, after.device_bos);
	EXPECT_EQ(before.device_bytes, after.device_bytes);
	EXPECT_EQ(before.context_bos, after.context_bos);
}

TEST_HARNESS_MAIN
