/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (C) 2026 pto-npu authors */
/*
 * The kernel APIs pto_npu uses that changed between Linux 6.12 (the floor)
 * and the newest kernel it is built for. Every difference is handled here;
 * the rest of the code calls the pto_ names below. kmod/Kbuild detects
 * each API in the headers of the kernel built for (PTO_HAVE_*), since
 * stable and distribution kernels backport them, and passes the kernel's
 * version as PTO_KERNEL_CODE (0xVVPP).
 */
#ifndef __PTO_COMPAT_H__
#define __PTO_COMPAT_H__

#include <linux/workqueue.h>
#include <drm/drm_gem_shmem_helper.h>

#ifndef PTO_KERNEL_CODE
#error "build pto_npu through kmod/Kbuild"
#endif
#if PTO_KERNEL_CODE < 0x060c
#error "pto_npu needs Linux 6.12 or newer"
#endif

/*
 * 6.16 renamed the shmem helpers' vmap/vunmap, which want the reservation
 * lock held, to ..._locked(). From 7.0 the old names are KUnit-only
 * wrappers that take the lock themselves: never call them with it held.
 */
#ifdef PTO_HAVE_SHMEM_VMAP_LOCKED
#define pto_shmem_vmap_locked(shmem, map) drm_gem_shmem_vmap_locked(shmem, map)
#define pto_shmem_vunmap_locked(shmem, map) \
	drm_gem_shmem_vunmap_locked(shmem, map)
#else
#define pto_shmem_vmap_locked(shmem, map) drm_gem_shmem_vmap(shmem, map)
#define pto_shmem_vunmap_locked(shmem, map) drm_gem_shmem_vunmap(shmem, map)
#endif

/* 6.17 (and 6.12.y) named the per-CPU system workqueue; system_wq is deprecated. */
#ifdef PTO_HAVE_SYSTEM_PERCPU_WQ
#define pto_system_percpu_wq system_percpu_wq
#else
#define pto_system_percpu_wq system_wq
#endif

/* 6.13 made MODULE_IMPORT_NS() take a string literal; 6.12 a bare name. */
#ifdef PTO_HAVE_IMPORT_NS_BARE
#define PTO_IMPORT_KUNIT_NS() MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#else
#define PTO_IMPORT_KUNIT_NS() MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#endif

#endif /* __PTO_COMPAT_H__ */
