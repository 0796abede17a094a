// SPDX-License-Identifier: MIT
/*
 * SQ entry encoding and CQE reading over rings in ordinary memory: slot
 * counts, the packing order, padding, wrap-around at the ring's end,
 * back-pressure, and the tensor argument encoding.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <pto/pto.h>

#include "internal.h"
#include "ring.h"
#include "tap.h"

#define SLOT DRM_PTO_NPU_SQ_SLOT_SIZE
#define POISON 0xa5

struct fake_sq {
	struct drm_pto_npu_ring_header hdr;
	uint8_t slots[8 * SLOT];
	struct pto_sq sq;
};

static void fake_sq_init(struct fake_sq *f, uint32_t head)
{
	memset(f, 0, sizeof(*f));
	memset(f->slots, POISON, sizeof(f->slots));
	f->hdr.sq_head = head;
	f->hdr.sq_tail = head;
	f->sq = (struct pto_sq){ f->slots, 8, &f->hdr.sq_head,
				 &f->hdr.sq_tail };
}

/* Read @n bytes of the ring from byte @pos, wrapping as the device does. */
static void ring_read(const struct fake_sq *f, size_t pos, void *dst, size_t n)
{
	uint8_t *d = dst;
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = f->slots[(pos + i) % sizeof(f->slots)];
}

static void slot_counts(void)
{
	TAP_CHECK_EQ(pto_task_slots(0, 0, 0, false), 1);
	TAP_CHECK_EQ(pto_task_slots(1, 0, 0, false), 2); /* 112 bytes */
	TAP_CHECK_EQ(pto_task_slots(1, 2, 0, false), 2); /* 128 */
	TAP_CHECK_EQ(pto_task_slots(1, 2, 1, false), 3); /* 136 */
	TAP_CHECK_EQ(pto_task_slots(0, 0, 0, true), 2); /* 88 */
	TAP_CHECK_EQ(pto_task_slots(0, 8, 0, false), 2); /* 128 */
	TAP_CHECK_EQ(pto_task_slots(16, 16, 32, true), 20); /* 1240 */
	TAP_CHECK_EQ(pto_sqe_bytes(2, 3, 4, true), 64 + 96 + 24 + 32 + 24);
}

static struct drm_pto_npu_tensor_arg tensor_arg(uint32_t handle)
{
	return (struct drm_pto_npu_tensor_arg){
		.handle = handle,
		.dtype = PTO_ISA_F32,
		.ndim = 2,
		.offset = 256,
		.shape = { 64, 128 },
		.strides = { 128, 1 },
	};
}

static void packing_order(void)
{
	struct drm_pto_npu_tensor_arg t = tensor_arg(7), got_t;
	struct drm_pto_npu_predicate p = {
		.tensor = 0, .op = PTO_CMP_GT, .row = 3, .col = 4, .literal = -9
	};
	struct drm_pto_npu_predicate got_p;
	int64_t scalars[2] = { 11, -12 }, deps[3] = { -1, 5, -3 }, got[3];
	struct pto_sqe_parts e = {
		.hdr = { .user_data = 0x1234,
			 .kernel_aiv = 3,
			 .block_num = 4,
			 .flags = DRM_PTO_NPU_TASK_F_PREDICATE,
			 .num_tensors = 1,
			 .num_scalars = 2,
			 .num_deps = 3 },
		.tensors = &t,
		.scalars = scalars,
		.deps = deps,
		.pred = &p,
	};
	struct drm_pto_npu_sqe h;
	struct fake_sq f;
	uint8_t pad[16];
	size_t i;

	fake_sq_init(&f, 0);
	TAP_CHECK_EQ(pto_sq_push(&f.sq, &e), 0);
	/* 64 + 48 + 16 + 24 + 24 = 176 bytes: 3 slots */
	TAP_CHECK_EQ(e.hdr.num_slots, 3);
	TAP_CHECK_EQ(f.hdr.sq_tail, 3);
	TAP_CHECK_EQ(f.hdr.sq_head, 0);

	ring_read(&f, 0, &h, sizeof(h));
	TAP_CHECK_EQ(h.user_data, 0x1234);
	TAP_CHECK_EQ(h.num_slots, 3);
	TAP_CHECK_EQ(h.num_tensors, 1);
	TAP_CHECK_EQ(h.num_scalars, 2);
	TAP_CHECK_EQ(h.num_deps, 3);
	TAP_CHECK_EQ(h.reserved[0] | h.reserved[3] | h.split_mode | h.slot_num,
		     0);
	ring_read(&f, 64, &got_t, sizeof(got_t));
	TAP_CHECK(!memcmp(&got_t, &t, sizeof(t)));
	ring_read(&f, 112, got, 2 * sizeof(int64_t));
	TAP_CHECK_EQ(got[0], 11);
	TAP_CHECK_EQ(got[1], -12);
	ring_read(&f, 128, got, 3 * sizeof(int64_t));
	TAP_CHECK(!memcmp(got, deps, sizeof(deps)));
	ring_read(&f, 152, &got_p, sizeof(got_p));
	TAP_CHECK(!memcmp(&got_p, &p, sizeof(p)));
	/* The rest of the last slot is zero, the slot after untouched. */
	ring_read(&f, 176, pad, sizeof(pad));
	for (i = 0; i < sizeof(pad); i++)
		TAP_CHECK_EQ(pad[i], 0);
	TAP_CHECK_EQ(f.slots[3 * SLOT], POISON);
}

static void wraps_at_ring_end(void)
{
	struct drm_pto_npu_tensor_arg t[2] = { tensor_arg(1), tensor_arg(2) };
	struct drm_pto_npu_tensor_arg got_t[2];
	int64_t scalars[3] = { 1, 2, 3 }, got_s[3];
	struct pto_sqe_parts e = {
		.hdr = { .kernel_aic = 9,
			 .block_num = 1,
			 .num_tensors = 2,
			 .num_scalars = 3 },
		.tensors = t,
		.scalars = scalars,
	};
	struct drm_pto_npu_sqe h;
	struct fake_sq f;

	/* Free-running indices: slot 6 of 8, the counters near the u32 wrap. */
	fake_sq_init(&f, UINT32_MAX - 1);
	TAP_CHECK_EQ(f.hdr.sq_tail & 7, 6);
	TAP_CHECK_EQ(pto_sq_push(&f.sq, &e), 0);
	/* 64 + 96 + 24 = 184 bytes: slots 6, 7 and 0 */
	TAP_CHECK_EQ(e.hdr.num_slots, 3);
	TAP_CHECK_EQ(f.hdr.sq_tail, 1); /* wrapped past UINT32_MAX */
	ring_read(&f, 6 * SLOT, &h, sizeof(h));
	TAP_CHECK_EQ(h.kernel_aic, 9);
	TAP_CHECK_EQ(h.num_slots, 3);
	ring_read(&f, 7 * SLOT, got_t, sizeof(got_t));
	TAP_CHECK(!memcmp(got_t, t, sizeof(t)));
	ring_read(&f, 7 * SLOT + sizeof(t), got_s, sizeof(got_s));
	TAP_CHECK(!memcmp(got_s, scalars, sizeof(scalars)));
	/* The second tensor straddles the end: its tail is in slot 0. */
	TAP_CHECK_EQ(f.slots[0], ((uint8_t *)&t[1])[16]);
	TAP_CHECK_EQ(f.slots[SLOT], POISON);
}

static void back_pressure(void)
{
	struct pto_sqe_parts big = {
		.hdr = { .kernel_aiv = 1, .block_num = 1, .num_scalars = 16 },
	};
	int64_t scalars[16] = { 0 };
	struct pto_sqe_parts small = {
		.hdr = { .kernel_aiv = 1, .block_num = 1 },
	};
	struct fake_sq f;

	big.scalars = scalars;
	fake_sq_init(&f, 0);
	/* 64 + 128 bytes = 3 slots; six taken leaves 2 free. */
	f.hdr.sq_tail = 6;
	TAP_CHECK_EQ(pto_sq_space(&f.sq), 2);
	TAP_CHECK_EQ(pto_sq_push(&f.sq, &big), -EAGAIN);
	TAP_CHECK_EQ(f.hdr.sq_tail, 6);
	TAP_CHECK_EQ(pto_sq_push(&f.sq, &small), 0);
	TAP_CHECK_EQ(pto_sq_push(&f.sq, &small), 0);
	TAP_CHECK_EQ(pto_sq_push(&f.sq, &small), -EAGAIN);
	TAP_CHECK_EQ(pto_sq_space(&f.sq), 0);
	/* The device takes five: room again. */
	f.hdr.sq_head = 5;
	TAP_CHECK_EQ(pto_sq_push(&f.sq, &big), 0);
	TAP_CHECK_EQ(f.hdr.sq_tail, 11);
	/* Withdraw what was not taken. */
	TAP_CHECK_EQ(pto_sq_retract(&f.sq), 6);
	TAP_CHECK_EQ(f.hdr.sq_tail, 5);
}

static void entry_larger_than_ring(void)
{
	int64_t scalars[64] = { 0 };
	struct pto_sqe_parts e = {
		.hdr = { .kernel_aiv = 1, .block_num = 1, .num_scalars = 64 },
		.scalars = scalars,
	};
	struct fake_sq f;

	fake_sq_init(&f, 0);
	/* 64 + 512 bytes = 9 slots in a ring of 8 */
	TAP_CHECK_EQ(pto_sq_push(&f.sq, &e), -E2BIG);
	TAP_CHECK_EQ(f.hdr.sq_tail, 0);
}

static void head_past_tail_means_no_room(void)
{
	struct pto_sqe_parts e = { .hdr = { .kernel_aiv = 1, .block_num = 1 } };
	struct fake_sq f;

	fake_sq_init(&f, 0);
	f.hdr.sq_head = 5; /* a device bug: claims to have taken more */
	TAP_CHECK_EQ(pto_sq_space(&f.sq), 0);
	TAP_CHECK_EQ(pto_sq_push(&f.sq, &e), -EAGAIN);
}

static void raw_entries_are_padded(void)
{
	uint8_t bytes[70];
	struct fake_sq f;
	uint8_t got[128];
	size_t i;

	memset(bytes, 0x11, sizeof(bytes));
	fake_sq_init(&f, 7);
	TAP_CHECK_EQ(pto_sq_push_raw(&f.sq, bytes, 0), -EINVAL);
	TAP_CHECK_EQ(pto_sq_push_raw(&f.sq, bytes, sizeof(bytes)), 0);
	TAP_CHECK_EQ(f.hdr.sq_tail, 9);
	ring_read(&f, 7 * SLOT, got, sizeof(got));
	for (i = 0; i < sizeof(got); i++)
		TAP_CHECK_EQ(got[i], i < sizeof(bytes) ? 0x11 : 0);
}

static void cq_reap_wraps(void)
{
	struct drm_pto_npu_ring_header hdr = { 0 };
	struct drm_pto_npu_cqe ring[4], out[8];
	struct pto_cq cq = { .cqes = ring, .nentries = 4, .head = &hdr.cq_head,
			      .tail = &hdr.cq_tail };
	unsigned int i;

	for (i = 0; i < 4; i++)
		ring[i] = (struct drm_pto_npu_cqe){ .user_data = 100 + i };
	hdr.cq_head = 3;
	hdr.cq_tail = 6;
	TAP_CHECK_EQ(pto_cq_reap(&cq, out, 2), 2);
	TAP_CHECK_EQ(out[0].user_data, 103);
	TAP_CHECK_EQ(out[1].user_data, 100);
	TAP_CHECK_EQ(hdr.cq_head, 5);
	TAP_CHECK_EQ(pto_cq_reap(&cq, out, 8), 1);
	TAP_CHECK_EQ(out[0].user_data, 101);
	TAP_CHECK_EQ(hdr.cq_head, 6);
	TAP_CHECK_EQ(pto_cq_reap(&cq, out, 8), 0);
	/* A tail more than a ring ahead is nonsense, not a flood. */
	hdr.cq_tail = 11;
	TAP_CHECK_EQ(pto_cq_reap(&cq, out, 8), -EPROTO);
	TAP_CHECK_EQ(hdr.cq_head, 6);
}

/* Each CQE's profile record comes with it, from the same ring index. */
static void cq_reap_prof_wraps(void)
{
	struct drm_pto_npu_ring_header hdr = { 0 };
	struct drm_pto_npu_cqe ring[4], out[4];
	struct drm_pto_npu_prof profs[4], pout[4];
	struct pto_cq cq = { .cqes = ring, .nentries = 4, .head = &hdr.cq_head,
			      .tail = &hdr.cq_tail };
	struct pto_block_prof bp;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		ring[i] = (struct drm_pto_npu_cqe){ .user_data = 100 + i };
		profs[i] = (struct drm_pto_npu_prof){ .nwaits = 7 + i,
						      .wait_ns = 1000 * i };
		profs[i].waits[0] = (struct drm_pto_npu_wait){
			.begin = 10 * i, .end = 10 * i + 5,
			.kind = DRM_PTO_NPU_WAIT_RING_POP, .pc = i };
	}
	hdr.cq_head = 3;
	hdr.cq_tail = 5;
	/* Without records: zeroed profiles. */
	memset(pout, 0xff, sizeof(pout));
	TAP_CHECK_EQ(pto_cq_reap_prof(&cq, out, pout, 1), 1);
	TAP_CHECK_EQ(pout[0].nwaits, 0);
	TAP_CHECK_EQ(pout[0].wait_ns, 0);
	cq.profs = profs;
	TAP_CHECK_EQ(pto_cq_reap_prof(&cq, out, pout, 4), 1);
	TAP_CHECK_EQ(out[0].user_data, 100);
	TAP_CHECK_EQ(pout[0].nwaits, 7);
	TAP_CHECK_EQ(pout[0].waits[0].end, 5);
	pto_prof_from_drm(&bp, &profs[2]);
	TAP_CHECK_EQ(bp.nwaits, 9);
	TAP_CHECK_EQ(bp.wait_ns, 2000);
	TAP_CHECK_EQ(bp.waits[0].begin, 20);
	TAP_CHECK_EQ(bp.waits[0].kind, PTO_WAIT_RING_POP);
	TAP_CHECK_EQ(bp.waits[0].pc, 2);
	TAP_CHECK_EQ(bp.waits[5].kind, 0);
	TAP_CHECK_EQ(strcmp(pto_wait_kind_name(PTO_WAIT_BARRIER_HARD),
			    "BARRIER_HARD"), 0);
	TAP_CHECK_EQ(strcmp(pto_wait_kind_name(99), "UNKNOWN"), 0);
}

/*
 * Records are prof_size apart: a longer record (a newer module's) gives
 * the fields we know, a shorter one (a module before uapi 6, waits only)
 * gives its waits and zeroed scheduler fields.
 */
static void cq_reap_prof_stride(void)
{
	struct drm_pto_npu_ring_header hdr = { 0 };
	struct drm_pto_npu_cqe ring[2], out[2];
	size_t longer = sizeof(struct drm_pto_npu_prof) + 16;
	size_t older = offsetof(struct drm_pto_npu_prof, sched);
	uint8_t mem[2 * (sizeof(struct drm_pto_npu_prof) + 16)];
	struct drm_pto_npu_prof rec, pout[2];
	struct pto_cq cq = { .cqes = ring, .nentries = 2, .head = &hdr.cq_head,
			      .tail = &hdr.cq_tail, .profs = mem };
	struct pto_sched_rec sr;
	unsigned int i;

	memset(ring, 0, sizeof(ring));
	memset(mem, 0xee, sizeof(mem));
	for (i = 0; i < 2; i++) {
		rec = (struct drm_pto_npu_prof){ .nwaits = 1 + i };
		rec.sched = (struct drm_pto_npu_sched){
			.intake_begin = 100 + i, .complete_end = 200 + i,
			.dispatch_iter = 7 + i, .resolved = 3,
			.flags = DRM_PTO_NPU_SCHED_F_STAGED };
		memcpy(mem + i * longer, &rec, sizeof(rec));
	}
	cq.prof_stride = longer;
	hdr.cq_tail = 2;
	TAP_CHECK_EQ(pto_cq_reap_prof(&cq, out, pout, 2), 2);
	TAP_CHECK_EQ(pout[1].nwaits, 2);
	TAP_CHECK_EQ(pout[1].sched.intake_begin, 101);
	TAP_CHECK_EQ(pout[1].sched.complete_end, 201);
	pto_sched_from_drm(&sr, &pout[1].sched);
	TAP_CHECK_EQ(sr.dispatch_iter, 8);
	TAP_CHECK_EQ(sr.resolved, 3);
	TAP_CHECK_EQ(sr.flags, PTO_SCHED_STAGED);

	memset(mem, 0xee, sizeof(mem));
	for (i = 0; i < 2; i++) {
		rec = (struct drm_pto_npu_prof){ .nwaits = 5 + i };
		memcpy(mem + i * older, &rec, older);
	}
	cq.prof_stride = older;
	hdr.cq_tail = 4;
	TAP_CHECK_EQ(pto_cq_reap_prof(&cq, out, pout, 2), 2);
	TAP_CHECK_EQ(pout[1].nwaits, 6);
	TAP_CHECK_EQ(pout[1].sched.intake_begin, 0);
	TAP_CHECK_EQ(pout[1].sched.flags, 0);
}

static void cqe_conversion(void)
{
	struct drm_pto_npu_cqe in = {
		.user_data = 1,
		.task_id = 2,
		.status = 3,
		.block = 4,
		.core = 5,
		.core_type = PTO_CORE_AIC,
		.reason = 7,
		.flags = DRM_PTO_NPU_CQE_F_LAST,
		.detail = 9,
		.ts_dispatch = 10,
		.ts_receive = 11,
		.ts_start = 12,
		.ts_end = 13,
		.ts_finish = 14,
	};
	struct pto_cqe out;

	pto_cqe_from_drm(&out, &in);
	TAP_CHECK_EQ(out.user_data, 1);
	TAP_CHECK_EQ(out.task_id, 2);
	TAP_CHECK_EQ(out.info.status, 3);
	TAP_CHECK_EQ(out.info.block, 4);
	TAP_CHECK_EQ(out.info.core, 5);
	TAP_CHECK_EQ(out.info.core_type, PTO_CORE_AIC);
	TAP_CHECK_EQ(out.info.reason, 7);
	TAP_CHECK_EQ(out.info.flags, PTO_BLOCK_LAST);
	TAP_CHECK_EQ(out.info.detail, 9);
	TAP_CHECK_EQ(out.info.ts_dispatch, 10);
	TAP_CHECK_EQ(out.info.ts_finish, 14);
}

static void ring_layout_checked(void)
{
	static uint8_t mem[4096] __attribute__((aligned(64)));
	struct pto_queue q = { 0 };

	TAP_CHECK_EQ(pto_queue_init_rings(&q, mem, sizeof(mem), 256, 16, 1280,
					  16),
		     0);
	TAP_CHECK(q.sq.slots == mem + 256);
	/* not a power of two; header overlap; SQ/CQ overlap; past the end */
	TAP_CHECK_EQ(pto_queue_init_rings(&q, mem, sizeof(mem), 256, 12, 1280,
					  16),
		     -EPROTO);
	TAP_CHECK_EQ(pto_queue_init_rings(&q, mem, sizeof(mem), 64, 16, 1280,
					  16),
		     -EPROTO);
	TAP_CHECK_EQ(pto_queue_init_rings(&q, mem, sizeof(mem), 256, 16, 1024,
					  16),
		     -EPROTO);
	TAP_CHECK_EQ(pto_queue_init_rings(&q, mem, sizeof(mem), 256, 16, 1280,
					  64),
		     -EPROTO);
}

/* A tensor in a buffer that is only memory: no device needed. */
static struct pto_buffer *fake_buffer(size_t size, uint32_t handle)
{
	struct pto_buffer *b = calloc(1, sizeof(*b));

	b->map = calloc(1, size);
	b->size = size;
	b->handle = handle;
	return b;
}

static void free_fake_buffer(struct pto_buffer *b)
{
	free(b->map);
	free(b);
}

static void tensor_arguments(void)
{
	struct pto_buffer *b = fake_buffer(1 << 20, 42);
	struct drm_pto_npu_tensor_arg a;
	struct pto_tensor *t;
	char msg[160];

	/* 2x3x8 i32 at 64: shape and row-major strides in elements */
	TAP_CHECK_EQ(pto_tensor_view(b, 64, PTO_DTYPE_I32, 3,
				     (int64_t[]){ 2, 3, 8 }, NULL, &t),
		     0);
	TAP_CHECK_EQ(pto_tensor_arg(t, &a, msg, sizeof(msg)), 0);
	TAP_CHECK_EQ(a.handle, 42);
	TAP_CHECK_EQ(a.dtype, PTO_ISA_I32);
	TAP_CHECK_EQ(a.ndim, 3);
	TAP_CHECK_EQ(a.offset, 64);
	TAP_CHECK_EQ(a.shape[2], 8);
	TAP_CHECK_EQ(a.shape[3], 0);
	TAP_CHECK_EQ(a.strides[0], 24);
	TAP_CHECK_EQ(a.strides[1], 8);
	TAP_CHECK_EQ(a.strides[2], 1);
	TAP_CHECK_EQ(a.strides[3], 0);
	pto_tensor_free(t);

	/* a padded row pitch is fine: rows of 100 in a pitch of 128 */
	TAP_CHECK_EQ(pto_tensor_view(b, 0, PTO_DTYPE_F32, 2,
				     (int64_t[]){ 4, 100 },
				     (int64_t[]){ 128, 1 }, &t),
		     0);
	TAP_CHECK_EQ(pto_tensor_arg(t, &a, msg, sizeof(msg)), 0);
	pto_tensor_free(t);

	/* leading dimensions that do not stack into rows */
	TAP_CHECK_EQ(pto_tensor_view(b, 0, PTO_DTYPE_F32, 3,
				     (int64_t[]){ 2, 3, 8 },
				     (int64_t[]){ 100, 8, 1 }, &t),
		     0);
	TAP_CHECK_EQ(pto_tensor_arg(t, &a, msg, sizeof(msg)), -EINVAL);
	TAP_CHECK(strstr(msg, "rows") != NULL);
	pto_tensor_free(t);

	/* ... unless the odd one out has size 1 */
	TAP_CHECK_EQ(pto_tensor_view(b, 0, PTO_DTYPE_F32, 3,
				     (int64_t[]){ 1, 3, 8 },
				     (int64_t[]){ 100, 8, 1 }, &t),
		     0);
	TAP_CHECK_EQ(pto_tensor_arg(t, &a, msg, sizeof(msg)), 0);
	pto_tensor_free(t);

	/* a broadcast: all-zero strides would read as row-major */
	TAP_CHECK_EQ(pto_tensor_view(b, 0, PTO_DTYPE_F32, 1, (int64_t[]){ 16 },
				     (int64_t[]){ 0 }, &t),
		     0);
	TAP_CHECK_EQ(pto_tensor_arg(t, &a, msg, sizeof(msg)), -EINVAL);
	TAP_CHECK(strstr(msg, "broadcast") != NULL);
	pto_tensor_free(t);

	free_fake_buffer(b);
}

TAP_MAIN(TAP_TEST(slot_counts), TAP_TEST(packing_order),
	 TAP_TEST(wraps_at_ring_end), TAP_TEST(back_pressure),
	 TAP_TEST(entry_larger_than_ring),
	 TAP_TEST(head_past_tail_means_no_room),
	 TAP_TEST(raw_entries_are_padded), TAP_TEST(cq_reap_wraps),
	 TAP_TEST(cq_reap_prof_wraps), TAP_TEST(cq_reap_prof_stride),
	 TAP_TEST(cqe_conversion), TAP_TEST(ring_layout_checked),
	 TAP_TEST(tensor_arguments))
