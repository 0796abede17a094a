// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: what one user may hold of the device (Documentation/limits.rst).
 *
 * Every limit of a context (in-flight tasks and their blocks, queues,
 * kernels, GM) is per open file. A user may open at most
 * max_contexts_per_user files on all pto_npu devices together, so those
 * limits times this one bound what a user can pin, whatever the number of
 * processes. The memory itself is charged to the opener's memory cgroup:
 * the allocations of an ioctl through GFP_KERNEL_ACCOUNT, and those the
 * core threads make while they run the context's units (GM views and
 * histories, ring spills) by running them with the context's cgroup as
 * the active one (pto_worker.c).
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/cleanup.h>
#include <linux/cred.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/xarray.h>

#include "pto_drv.h"
#include "pto_user.h"

static unsigned int pto_max_ctx_per_user = 256;
module_param_named(max_contexts_per_user, pto_max_ctx_per_user, uint, 0644);
MODULE_PARM_DESC(max_contexts_per_user,
		 "Open pto_npu files one user may hold on all devices together (default 256)");

/* Open contexts per user id (in the initial namespace), as xarray values. */
static DEFINE_XARRAY(pto_user_ctxs);
static DEFINE_MUTEX(pto_user_lock);

/**
 * pto_user_open - count a new context against its user, note its cgroup
 * @ctx: the context, being opened by the current task
 *
 * Return: 0; -EMFILE when the user holds max_contexts_per_user contexts;
 * -ENOMEM.
 */
int pto_user_open(struct pto_ctx *ctx)
{
	unsigned long key = from_kuid(&init_user_ns, current_euid()), n;
	int ret;

	scoped_guard(mutex, &pto_user_lock) {
		n = xa_to_value(xa_load(&pto_user_ctxs, key));
		if (n >= READ_ONCE(pto_max_ctx_per_user))
			return -EMFILE;
		ret = xa_err(xa_store(&pto_user_ctxs, key, xa_mk_value(n + 1),
				      GFP_KERNEL));
		if (ret)
			return ret;
	}
	ctx->user = key;
	ctx->memcg = get_mem_cgroup_from_mm(current->mm);
	return 0;
}

/**
 * pto_user_close - a context of the user is gone
 * @ctx: the context, pto_user_open() done
 */
void pto_user_close(struct pto_ctx *ctx)
{
	unsigned long n;

	mem_cgroup_put(ctx->memcg);
	ctx->memcg = NULL;
	guard(mutex)(&pto_user_lock);
	n = xa_to_value(xa_load(&pto_user_ctxs, ctx->user));
	if (n <= 1)
		xa_erase(&pto_user_ctxs, ctx->user);
	else
		/* Replaces an entry in place: no allocation. */
		xa_store(&pto_user_ctxs, ctx->user, xa_mk_value(n - 1),
			 GFP_NOWAIT);
}
