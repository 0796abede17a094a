// SPDX-License-Identifier: GPL-2.0-only
/*
 * Syncobj ioctls and ring sizes for queue_ioctls_and_syncobjs.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <unistd.h>

#include "fuzz.h"

/* Syncobj ioctls on the doorbell's syncobjs (drm core, but ours to feed). */
void fz_one_syncobj(struct fz_rng *r, int fd, struct fz_pool *s)
{
	uint64_t point = fz_pct(r, 50) ? fz_below(r, 8) : fz_int(r);
	bool live;
	uint32_t h = fz_pool_pick(r, s, &live), h2 = 0;
	int ret = 0, sfd = -1;

	switch (fz_below(r, 9)) {
	case 0:
		ret = pto_test_ret(drmSyncobjCreate(fd, fz_pct(r, 30) ?
						    DRM_SYNCOBJ_CREATE_SIGNALED : 0, &h2));
		if (!ret && s->nlive < FZ_POOL)
			fz_pool_add(s, h2);
		else if (!ret)
			drmSyncobjDestroy(fd, h2);
		break;
	case 1:
		{
			unsigned int i;

			for (i = 0; i < s->nlive; i++)
				if (s->live[i] == h) {
					fz_pool_take(s, i);
					live = true;
					break;
				}
		}
		ret = pto_test_ret(drmSyncobjDestroy(fd, h));
		if (live)
			fz_must_pass(FZ_SYNCOBJ, ret, "destroy of a live syncobj");
		break;
	case 2:
		ret = drmSyncobjWait(fd, &h, 1, fz_pct(r, 50) ? 0 :
				     pto_test_now_ns() + PTO_TEST_MSEC(1),
				     fz_below(r, 8), NULL);
		break;
	case 3:
		ret = drmSyncobjTimelineWait(fd, &h, &point, 1,
					     pto_test_now_ns() + PTO_TEST_MSEC(1),
					     fz_below(r, 16), NULL);
		break;
	case 4:
		ret = drmSyncobjQuery(fd, &h, &point, 1);
		break;
	case 5:
		ret = fz_pct(r, 50) ? drmSyncobjReset(fd, &h, 1) :
				      drmSyncobjSignal(fd, &h, 1);
		break;
	case 6:
		ret = drmSyncobjTimelineSignal(fd, &h, &point, 1);
		break;
	case 7:
		ret = drmSyncobjTransfer(fd, h, point, s->nlive ? s->live[0] : h,
					 fz_below(r, 4), 0);
		break;
	default:
		ret = drmSyncobjExportSyncFile(fd, h, &sfd);
		if (!ret) {
			ret = drmSyncobjImportSyncFile(fd, s->nlive ? s->live[0] : h, sfd);
			close(sfd);
		}
		break;
	}
	/* libdrm returns -errno for some calls and -1/errno for others. */
	if (ret == -1)
		ret = -errno;
	fz_note(FZ_SYNCOBJ, ret, E_SYNCOBJ, "syncobj");
}

uint32_t fz_pow2_or_not(struct fz_rng *r, uint32_t max)
{
	switch (fz_below(r, 5)) {
	case 0:
		return 0;
	case 1:
		return (uint32_t)fz_int(r);
	case 2:
		return 1u << fz_below(r, 32);
	default:
		return 32u << fz_below(r, 5 + (max > 1024));
	}
}
