// SPDX-License-Identifier: GPL-2.0-only
/*
 * Isolation between contexts: two opens of the device in one process, and a
 * forked child with a context of its own. A handle names a buffer only in the
 * file that created it; an mmap offset maps only through a file holding a
 * handle to it; accounting is per context; a killed process frees its GM.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pto_test.h"

/* Buffers the killed child holds when it dies. */
#define KILLED_CHILD_BOS 8

/* Bound on the buffers the parent creates to own a given handle number. */
#define MAX_HANDLE_CHASE 64

/* Patterns (seeds) of the parent's and the child's buffers. */
#define PARENT_SEED 0x1111
#define PARENT_SEED2 0x2222
#define CHILD_SEED 0x3333

FIXTURE(iso)
{
	int fd_a;
	int fd_b;
	size_t page;
	/* Shared with forked children: the line of the check that failed. */
	int *child_fail_line;
	/* to_parent: child -> parent messages; to_child: parent -> child. */
	int to_parent[2];
	int to_child[2];
};

FIXTURE_SETUP(iso)
{
	self->page = pto_test_page_size();
	self->fd_a = pto_test_open();
	ASSERT_LE(0, self->fd_a) TH_LOG("open %s: %s", pto_test_device_path(),
					strerror(errno));
	self->fd_b = pto_test_open();
	ASSERT_LE(0, self->fd_b);
	self->child_fail_line = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, (void *)self->child_fail_line);
	*self->child_fail_line = 0;
	ASSERT_EQ(0, pipe(self->to_parent));
	ASSERT_EQ(0, pipe(self->to_child));
}

FIXTURE_TEARDOWN(iso)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (self->to_parent[i] >= 0)
			close(self->to_parent[i]);
		if (self->to_child[i] >= 0)
			close(self->to_child[i]);
	}
	if (self->child_fail_line != MAP_FAILED)
		munmap(self->child_fail_line, sizeof(int));
	if (self->fd_b >= 0)
		close(self->fd_b);
	if (self->fd_a >= 0)
		close(self->fd_a);
}

/*
 * In a forked child: on a failed check, record the line for the parent and
 * exit. The harness' ASSERT_* would unwind into the harness' own frames.
 */
#define CHILD_CHECK(cond) do { \
	if (!(cond)) { \
		*self->child_fail_line = __LINE__; \
		_exit(1); \
	} \
} while (0)

/* A message from the child: one of its buffers. */
struct child_bo {
	uint32_t handle;
	uint32_t pad;
	uint64_t mmap_offset;
};

static int write_all(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len) == (ssize_t)len ? 0 : -1;
}

static int read_all(int fd, void *buf, size_t len)
{
	return read(fd, buf, len) == (ssize_t)len ? 0 : -1;
}

/*
 * After fork(), the parent drops the pipe ends only the child uses, so a
 * child that dies early shows up as end-of-file instead of a hang.
 */
static void parent_side(FIXTURE_DATA(iso) *self)
{
	close(self->to_parent[1]);
	self->to_parent[1] = -1;
	close(self->to_child[0]);
	self->to_child[0] = -1;
}

/*
 * The child drops the pipe ends only the parent uses, so a parent that dies
 * early shows up as end-of-file and the child does not linger.
 */
static void child_side(FIXTURE_DATA(iso) *self)
{
	close(self->to_parent[0]);
	self->to_parent[0] = -1;
	close(self->to_child[1]);
	self->to_child[1] = -1;
}

/* Waits for @child and checks it exited 0, naming its failed check if not. */
#define EXPECT_CHILD_OK(child) do { \
	int __status = 0; \
	ASSERT_EQ(child, waitpid(child, &__status, 0)); \
	EXPECT_TRUE(WIFEXITED(__status)) TH_LOG("child status 0x%x", __status); \
	EXPECT_EQ(0, WEXITSTATUS(__status)) \
		TH_LOG("child check at line %d failed", *self->child_fail_line); \
} while (0)

TEST_F(iso, other_context_handle_info_enoent)
{
	struct drm_pto_npu_bo_info i = { 0 };
	uint32_t handle;

	ASSERT_EQ(0, pto_test_bo_create(self->fd_a, self->page, &handle, NULL));
	i.handle = handle;
	errno = 0;
	EXPECT_EQ(-1, drmIoctl(self->fd_b, DRM_IOCTL_PTO_NPU_BO_INFO, &i));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, pto_test_bo_info(self->fd_a, handle, NULL, NULL));
}

TEST_F(iso, other_context_handle_close_fails)
{
	struct drm_pto_npu_memory_info mem;
	struct drm_gem_close c = { 0 };
	uint32_t handle;

	ASSERT_EQ(0, pto_test_bo_create(self->fd_a, self->page, &handle, NULL));
	c.handle = handle;
	errno = 0;
	EXPECT_EQ(-1, drmIoctl(self->fd_b, DRM_IOCTL_GEM_CLOSE, &c));
	EXPECT_EQ(EINVAL, errno);

	/* The owner's buffer is untouched. */
	EXPECT_EQ(0, pto_test_bo_info(self->fd_a, handle, NULL, NULL));
	ASSERT_EQ(0, pto_test_memory(self->fd_a, &mem));
	EXPECT_EQ(1u, mem.context_bos);
}

TEST_F(iso, other_context_offset_mmap_rejected)
{
	uint64_t size, offset;
	uint32_t handle;
	void *p;

	ASSERT_EQ(0, pto_test_bo_create(self->fd_a, self->page, &handle, &size));
	ASSERT_EQ(0, pto_test_bo_info(self->fd_a, handle, NULL, &offset));
	errno = 0;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd_b,
		 (off_t)offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	if (p != MAP_FAILED)
		munmap(p, size);

	/* Read-only is refused as well. */
	errno = 0;
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, self->fd_b, (off_t)offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	if (p != MAP_FAILED)
		munmap(p, size);
}

TEST_F(iso, same_handle_number_names_different_buffers)
{
	uint64_t size_a, size_b, off_a, off_b;
	uint32_t ha, hb;
	uint8_t *a, *b;

	ASSERT_EQ(0, pto_test_bo_create(self->fd_a, self->page, &ha, NULL));
	ASSERT_EQ(0, pto_test_bo_create(self->fd_b, self->page, &hb, NULL));
	ASSERT_EQ(0, pto_test_bo_info(self->fd_a, ha, NULL, &off_a));
	ASSERT_EQ(0, pto_test_bo_info(self->fd_b, hb, NULL, &off_b));
	EXPECT_NE(off_a, off_b);

	a = pto_test_bo_mmap(self->fd_a, ha, &size_a);
	ASSERT_NE(MAP_FAILED, (void *)a);
	b = pto_test_bo_mmap(self->fd_b, hb, &size_b);
	ASSERT_NE(MAP_FAILED, (void *)b);

	pto_test_fill(a, size_a, PARENT_SEED);
	EXPECT_TRUE(pto_test_all_bytes(b, size_b, 0));
	pto_test_fill(b, size_b, CHILD_SEED);
	EXPECT_EQ(-1, pto_test_check(a, size_a, PARENT_SEED));

	/* The same number in each file still names that file's own buffer. */
	if (ha == hb) {
		uint64_t again;

		ASSERT_EQ(0, pto_test_bo_info(self->fd_b, ha, NULL, &again));
		EXPECT_EQ(off_b, again);
	}
	munmap(a, size_a);
	munmap(b, size_b);
}

TEST_F(iso, accounting_is_per_context)
{
	struct drm_pto_npu_memory_info a0, a1, b1;
	uint64_t size;
	uint32_t handle;

	ASSERT_EQ(0, pto_test_memory(self->fd_a, &a0));
	ASSERT_EQ(0, pto_test_bo_create(self->fd_a, 3 * self->page, &handle,
					&size));
	ASSERT_EQ(0, pto_test_memory(self->fd_a, &a1));
	ASSERT_EQ(0, pto_test_memory(self->fd_b, &b1));
	EXPECT_EQ(a0.context_bos + 1, a1.context_bos);
	EXPECT_EQ(a0.context_bytes + size, a1.context_bytes);
	EXPECT_EQ(0u, b1.context_bos);
	EXPECT_EQ(0u, b1.context_bytes);
	/* Both see the same device totals. */
	EXPECT_EQ(a1.device_bos, b1.device_bos);
	EXPECT_EQ(a1.device_bytes, b1.device_bytes);
}

TEST_F(iso, forked_child_cannot_use_parent_handles)
{
	struct drm_pto_npu_memory_info before, after;
	uint64_t size, offset;
	uint32_t handle;
	uint8_t *p;
	pid_t child;

	ASSERT_EQ(0, pto_test_bo_create(self->fd_a, 2 * self->page, &handle,
					&size));
	ASSERT_EQ(0, pto_test_bo_info(self->fd_a, handle, NULL, &offset));
	p = pto_test_bo_mmap(self->fd_a, handle, NULL);
	ASSERT_NE(MAP_FAILED, (void *)p);
	pto_test_fill(p, size, PARENT_SEED);
	ASSERT_EQ(0, pto_test_memory(self->fd_a, &before));

	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		struct drm_pto_npu_bo_info i = { .handle = handle };
		struct drm_gem_close c = { .handle = handle };
		int fd = pto_test_open();
		void *q;

		CHILD_CHECK(fd >= 0);
		errno = 0;
		CHILD_CHECK(drmIoctl(fd, DRM_IOCTL_PTO_NPU_BO_INFO, &i) == -1);
		CHILD_CHECK(errno == ENOENT);
		errno = 0;
		CHILD_CHECK(drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &c) == -1);
		CHILD_CHECK(errno == EINVAL);
		errno = 0;
		q = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 (off_t)offset);
		CHILD_CHECK(q == MAP_FAILED);
		CHILD_CHECK(errno == EACCES);
		close(fd);
		_exit(0);
	}
	EXPECT_CHILD_OK(child);

	/* The parent's buffer, handle and charge are as they were. */
	EXPECT_EQ(0, pto_test_bo_info(self->fd_a, handle, NULL, NULL));
	EXPECT_EQ(-1, pto_test_check(p, size, PARENT_SEED));
	ASSERT_EQ(0, pto_test_memory(self->fd_a, &after));
	EXPECT_EQ(before.context_bos, after.context_bos);
	EXPECT_EQ(before.context_bytes, after.context_bytes);
	munmap(p, size);
}

TEST_F(iso, forked_child_data_not_visible_to_parent)
{
	struct child_bo msg = { 0 };
	uint64_t size, off_p;
	uint32_t handle;
	uint8_t *p;
	pid_t child;
	char go = 'g';
	int i, err;

	ASSERT_EQ(0, pto_test_bo_create(self->fd_a, self->page, &handle, &size));

	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		struct child_bo mine = { 0 };
		uint64_t csize, off;
		uint8_t *c;
		char cmd;
		int fd;

		child_side(self);
		fd = pto_test_open();

		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(pto_test_bo_create(fd, self->page, &mine.handle,
					       &csize) == 0);
		CHILD_CHECK(pto_test_bo_info(fd, mine.handle, NULL,
					     &mine.mmap_offset) == 0);
		c = pto_test_bo_mmap(fd, mine.handle, NULL);
		CHILD_CHECK(c != MAP_FAILED);
		CHILD_CHECK(pto_test_all_bytes(c, csize, 0));
		pto_test_fill(c, csize, CHILD_SEED);
		CHILD_CHECK(write_all(self->to_parent[1], &mine, sizeof(mine)) == 0);

		/* The parent writes its own buffer of the same number now. */
		CHILD_CHECK(read_all(self->to_child[0], &cmd, 1) == 0);
		CHILD_CHECK(pto_test_check(c, csize, CHILD_SEED) == -1);
		CHILD_CHECK(pto_test_bo_info(fd, mine.handle, NULL, &off) == 0);
		CHILD_CHECK(off == mine.mmap_offset);
		munmap(c, csize);
		close(fd);
		_exit(0);
	}

	parent_side(self);
	ASSERT_EQ(0, read_all(self->to_parent[0], &msg, sizeof(msg)));
	/* Make sure the parent owns a buffer with the child's handle number. */
	for (i = 0; i < MAX_HANDLE_CHASE; i++) {
		err = pto_test_bo_info(self->fd_a, msg.handle, NULL, NULL);
		if (err != -ENOENT)
			break;
		ASSERT_EQ(0, pto_test_bo_create(self->fd_a, self->page, &handle,
						NULL));
	}
	ASSERT_EQ(0, pto_test_bo_info(self->fd_a, msg.handle, &size, &off_p));
	EXPECT_NE(msg.mmap_offset, off_p);

	/* The parent's buffer of that number holds none of the child's data. */
	p = pto_test_bo_mmap(self->fd_a, msg.handle, NULL);
	ASSERT_NE(MAP_FAILED, (void *)p);
	EXPECT_TRUE(pto_test_all_bytes(p, size, 0));
	pto_test_fill(p, size, PARENT_SEED2);

	/* Nor can the parent map the child's buffer. */
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, self->page, PROT_READ, MAP_SHARED,
				   self->fd_a, (off_t)msg.mmap_offset));
	EXPECT_EQ(EACCES, errno);

	ASSERT_EQ(0, write_all(self->to_child[1], &go, 1));
	EXPECT_CHILD_OK(child);
	EXPECT_EQ(-1, pto_test_check(p, size, PARENT_SEED2));
	munmap(p, size);
}

TEST_F(iso, forked_child_accounting_is_separate)
{
	struct drm_pto_npu_memory_info before, during, after;
	uint64_t size;
	uint32_t handle;
	pid_t child;
	char go = 'g';

	ASSERT_EQ(0, pto_test_bo_create(self->fd_a, self->page, &handle, NULL));
	ASSERT_EQ(0, pto_test_bo_create(self->fd_a, 2 * self->page, &handle,
					NULL));
	ASSERT_EQ(0, pto_test_memory(self->fd_a, &before));
	ASSERT_EQ(2u, before.context_bos);

	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		struct drm_pto_npu_memory_info m0, m1;
		uint64_t csize;
		uint32_t h;
		char cmd;
		int fd;

		child_side(self);
		fd = pto_test_open();

		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(pto_test_memory(fd, &m0) == 0);
		CHILD_CHECK(m0.context_bos == 0);
		CHILD_CHECK(m0.context_bytes == 0);
		CHILD_CHECK(m0.device_bos == before.device_bos);
		CHILD_CHECK(pto_test_bo_create(fd, 3 * self->page, &h, &csize) == 0);
		CHILD_CHECK(pto_test_memory(fd, &m1) == 0);
		CHILD_CHECK(m1.context_bos == 1);
		CHILD_CHECK(m1.context_bytes == csize);
		CHILD_CHECK(m1.device_bos == before.device_bos + 1);
		CHILD_CHECK(m1.device_bytes == before.device_bytes + csize);
		CHILD_CHECK(write_all(self->to_parent[1], &csize, sizeof(csize)) == 0);
		CHILD_CHECK(read_all(self->to_child[0], &cmd, 1) == 0);
		close(fd);
		_exit(0);
	}

	parent_side(self);
	ASSERT_EQ(0, read_all(self->to_parent[0], &size, sizeof(size)));
	ASSERT_EQ(0, pto_test_memory(self->fd_a, &during));
	EXPECT_EQ(before.context_bos, during.context_bos);
	EXPECT_EQ(before.context_bytes, during.context_bytes);
	EXPECT_EQ(before.device_bos + 1, during.device_bos);
	EXPECT_EQ(before.device_bytes + size, during.device_bytes);
	ASSERT_EQ(0, write_all(self->to_child[1], &go, 1));
	EXPECT_CHILD_OK(child);

	ASSERT_EQ(0, pto_test_memory(self->fd_a, &after));
	EXPECT_EQ(before.context_bos, after.context_bos);
	EXPECT_EQ(before.device_bos, after.device_bos);
	EXPECT_EQ(before.device_bytes, after.device_bytes);
}

TEST_F(iso, killed_child_releases_buffers)
{
	struct drm_pto_npu_memory_info before, during, after;
	uint64_t bytes = 0;
	pid_t child;
	int status = 0;

	ASSERT_EQ(0, pto_test_memory(self->fd_a, &before));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		uint64_t total = 0;
		char cmd;
		int fd, i;

		child_side(self);
		fd = pto_test_open();

		CHILD_CHECK(fd >= 0);
		for (i = 0; i < KILLED_CHILD_BOS; i++) {
			uint64_t size;
			uint32_t h;
			uint8_t *c;

			CHILD_CHECK(pto_test_bo_create(fd, (i + 1) * self->page,
						       &h, &size) == 0);
			total += size;
			/* Half stay mapped, half only have a handle. */
			if (i % 2) {
				c = pto_test_bo_mmap(fd, h, NULL);
				CHILD_CHECK(c != MAP_FAILED);
				pto_test_fill(c, size, CHILD_SEED + i);
			}
		}
		CHILD_CHECK(write_all(self->to_parent[1], &total, sizeof(total)) == 0);
		/* Holds everything until killed (or the parent is gone). */
		read_all(self->to_child[0], &cmd, 1);
		_exit(0);
	}

	parent_side(self);
	ASSERT_EQ(0, read_all(self->to_parent[0], &bytes, sizeof(bytes)));
	ASSERT_EQ(0, pto_test_memory(self->fd_a, &during));
	EXPECT_EQ(before.device_bos + KILLED_CHILD_BOS, during.device_bos);
	EXPECT_EQ(before.device_bytes + bytes, during.device_bytes);

	ASSERT_EQ(0, kill(child, SIGKILL));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));

	ASSERT_EQ(0, pto_test_memory(self->fd_a, &after));
	EXPECT_EQ(before.device_bos, after.device_bos);
	EXPECT_EQ(before.device_bytes, after.device_bytes);
}

TEST_HARNESS_MAIN
