// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: the interpreter of verified kernels. No floating point here:
 * f32 work goes to pto_exec_fp.c; tensor views are pto_tensor.c's.
 *
 * The verifier has checked opcodes, registers, tile shapes and control
 * flow; what is checked here depends on run-time values: GM accesses
 * against the task's tensors (a miss is a GM fault naming the tensor and
 * element offset), loop counts, scalar division by zero, the task's cancel
 * flag and the no-progress timeout.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "pto_barrier.h"
#include "pto_exec.h"
#include "pto_gem.h"
#include "pto_gm.h"
#include "pto_queue.h"
#include "pto_sched.h"
#include "pto_tensor.h"
#include "pto_worker.h"
#include "pto_xring.h"
#include "pto_trace.h"

/* Scalar instructions between checks of the cancel flag and the budget. */
#define PTO_CHECK_EVERY 256
/* Elements converted per step of TCAST. */
#define PTO_CAST_CHUNK 128
/* Output rows per FPU section of MATMUL. */
#define PTO_MATMUL_ROWS 4

/**
 * struct pto_loop - one level of the LOOP stack
 * @pc: the LOOP instruction
 * @reg: the scalar register holding the iteration
 * @count: iterations
 * @iter: the current iteration
 */
struct pto_loop {
	u32 pc;
	u8 reg;
	s64 count;
	s64 iter;
};

/**
 * struct pto_run - a core's interpreter state: the unit in its running slot
 * @core: the core
 * @task: the unit's task
 * @k: the kernel for the core's type
 * @block: block index
 * @part: part of the block (0: a mixed block's AIC)
 * @sub_block: value of SREG SUB_BLOCK_ID
 * @local: the core's local memory, where the tiles are
 * @work: instructions run (the work budget's measure)
 * @budget: the queue's work budget
 * @flush_at: when the unit next hands out the kick queue (ns)
 * @flushed: it has done so once (its first quantum is over)
 * @s: scalar registers
 * @loops: the LOOP stack
 * @depth: its depth
 * @res: where the unit's status goes
 * @pc: where a parked unit goes on once released
 * @parked: the unit parked (at a barrier or a ring)
 * @park_ring: at a ring (PUSH or POP), else at a barrier (SYNCALL)
 * @park_pc: the instruction that parked
 * @gm: how the unit sees GM (non-coherent GM: pto_gm.c); last, kept out
 *      of the state's reset (pto_run_init())
 */
struct pto_run {
	struct pto_core *core;
	struct pto_task *task;
	const struct pto_kernel *k;
	u32 block;
	u32 part;
	u32 sub_block;
	u8 *local;
	u64 work;
	u64 budget;
	u64 flush_at;
	bool flushed;
	s64 s[PTO_NUM_SREGS];
	struct pto_loop loops[PTO_MAX_LOOP_DEPTH];
	u32 depth;
	struct pto_exec_result *res;
	u32 pc;
	bool parked;
	bool park_ring;
	u32 park_pc;
	struct pto_gm_view gm;
};

static bool pto_fault(struct pto_run *r, s32 status, u64 detail)
{
	r->res->status = status;
	r->res->detail = detail;
	return false;
}

/* Operand b: the immediate (PTO_INSN_F_IMM) or scalar register @b. */
static s64 pto_src_b(const struct pto_run *r, const struct pto_insn *in)
{
	return (in->flags & PTO_INSN_F_IMM) ? in->imm : r->s[in->b];
}

static bool pto_gm_fault(struct pto_run *r, u32 arg, s64 row, s64 col)
{
	u64 off = pto_targ_offset(&r->task->targs[arg], row, col);

	return pto_fault(r, DRM_PTO_NPU_STATUS_GM_FAULT,
			 ((u64)arg << 56) | (off & GENMASK_ULL(55, 0)));
}

/* Address of [row, col] of a tensor, or NULL after recording a GM fault. */
static u8 *pto_gm_elem(struct pto_run *r, u32 arg, s64 row, s64 col)
{
	u8 *p = pto_targ_elem(&r->task->targs[arg], row, col);

	if (!p)
		pto_gm_fault(r, arg, row, col);
	return p;
}

static u8 *pto_tile(struct pto_run *r, u32 reg)
{
	const struct pto_tile_layout *t = &r->k->tiles[reg];

	return r->local + r->core->pdev->sched->buf_base[t->buf] + t->offset;
}

/*
 * The scheduling quantum: a running unit lets the units queued for a
 * worker (the kick queue) have threads of their own at least this often,
 * so a unit placed on an idle core never waits for another's to end, and
 * nothing a unit may poll GM for waits behind it.
 */
#define PTO_QUANTUM_NS (2 * NSEC_PER_MSEC)

/*
 * Between steps: stop for a cancelled task or a unit past its work budget
 * (instructions, counted the same on every host: a runaway kernel ends
 * after the same count whatever the host's speed); tell the watchdog the
 * task is making progress; hand out the kick queue once a quantum.
 */
static bool pto_check(struct pto_run *r)
{
	u64 now;

	if (atomic_read(&r->task->cancel))
		return pto_fault(r, DRM_PTO_NPU_STATUS_CANCELLED, 0);
	if (r->work > r->budget)
		return pto_fault(r, DRM_PTO_NPU_STATUS_WORK_BUDGET, r->work);
	atomic_long_inc(&r->task->progress);
	/* The completions its worker owes: now that the kernel runs. */
	if (unlikely(r->core->defer_post)) {
		pto_queue_post_list(r->core->defer_post, r->core->defer_free);
		r->core->defer_post = NULL;
	}
	now = ktime_get_ns();
	if (now > r->flush_at) {
		pto_sched_flush_kicks(r->core->pdev, r->task->ctx->uid,
				      !r->flushed);
		r->flushed = true;
		r->flush_at = now + PTO_QUANTUM_NS;
	}
	cond_resched();
	return true;
}

/* The GM access of instruction @in (tensor argument imm), for pto_gm.c. */
static struct pto_gm_access pto_gm_acc(const struct pto_run *r,
				       const struct pto_insn *in)
{
	return (struct pto_gm_access){
		.task = r->task, .tensor = in->imm,
		.pc = in - r->k->insns, .work = r->work,
	};
}

/* Out of memory for the unit's GM view: the unit fails there. */
static bool pto_gm_nomem(struct pto_run *r, const struct pto_insn *in)
{
	return pto_fault(r, DRM_PTO_NPU_STATUS_NOMEM, in - r->k->insns);
}

/* TLOAD or TSTORE: a tile-sized window of a tensor, checked first. */
static bool pto_tile_xfer(struct pto_run *r, const struct pto_insn *in,
			  bool load)
{
	const struct pto_tile_layout *tl = &r->k->tiles[in->dst];
	const struct pto_targ *t = &r->task->targs[in->imm];
	s64 row = r->s[in->a], col = r->s[in->b];
	struct pto_gm_access a;

	if (!pto_targ_window_fits(t, row, col, tl->rows, tl->cols, &row, &col))
		return pto_gm_fault(r, in->imm, row, col);
	if (!r->gm.on) {
		pto_targ_copy_tile(t, row, col, tl, pto_tile(r, in->dst), load);
		return true;
	}
	a = pto_gm_acc(r, in);
	if (pto_gm_copy_tile(&r->gm, &a, row, col, tl, pto_tile(r, in->dst),
			     load))
		return pto_gm_nomem(r, in);
	return true;
}

static s64 pto_int_bin(u32 op, s64 a, s64 b)
{
	switch (op) {
	case PTO_TBIN_ADD:
		return (s64)((u64)a + (u64)b);
	case PTO_TBIN_SUB:
		return (s64)((u64)a - (u64)b);
	case PTO_TBIN_MUL:
		return (s64)((u64)a * (u64)b);
	case PTO_TBIN_MAX:
		return max(a, b);
	case PTO_TBIN_MIN:
		return min(a, b);
	case PTO_TBIN_AND:
		return a & b;
	case PTO_TBIN_OR:
		return a | b;
	case PTO_TBIN_XOR:
		return a ^ b;
	}
	return 0;
}

static void pto_tile_int_bin(const struct pto_tile_layout *t, u32 op, u8 *d,
			     const u8 *a, const u8 *b, bool scalar, s64 s)
{
	size_t n = (size_t)t->rows * t->cols, i;

	for (i = 0; i < n; i++) {
		s64 x = pto_load_int(a + i * t->esize, t->dtype);
		s64 y = scalar ? s : pto_load_int(b + i * t->esize, t->dtype);

		pto_store_int(d + i * t->esize, t->esize, pto_int_bin(op, x, y));
	}
}

static void pto_tile_int_unary(const struct pto_tile_layout *t, u32 op, u8 *d,
			       const u8 *a)
{
	size_t n = (size_t)t->rows * t->cols, i;

	for (i = 0; i < n; i++) {
		s64 x = pto_load_int(a + i * t->esize, t->dtype);

		if (op == PTO_TUNARY_RELU)
			x = max_t(s64, x, 0);
		else if (op == PTO_TUNARY_NEG)
			x = (s64)(0 - (u64)x);
		else if (op == PTO_TUNARY_ABS && x < 0)
			x = (s64)(0 - (u64)x);
		pto_store_int(d + i * t->esize, t->esize, x);
	}
}

/* Casts: f32 -> int saturates; int -> int wraps (C semantics). */
static void pto_tile_cast(const struct pto_tile_layout *dt, u8 *d,
			  const struct pto_tile_layout *at, const u8 *a)
{
	size_t n = (size_t)at->rows * at->cols, i, j, m;
	s64 tmp[PTO_CAST_CHUNK];

	if (dt->dtype == at->dtype) {
		memmove(d, a, n * at->esize);
		return;
	}
	for (i = 0; i < n; i += m) {
		m = min_t(size_t, n - i, PTO_CAST_CHUNK);
		if (at->dtype == PTO_ISA_F32)
			pto_fp_to_int(tmp, (const u32 *)a + i, m);
		else
			for (j = 0; j < m; j++)
				tmp[j] = pto_load_int(a + (i + j) * at->esize, at->dtype);
		if (dt->dtype == PTO_ISA_F32) {
			pto_fp_from_int((u32 *)d + i, tmp, m);
			continue;
		}
		if (at->dtype == PTO_ISA_F32) {
			/* Saturate to the narrower integer type. */
			s64 hi = dt->esize == 8 ? S64_MAX : (1LL << (dt->esize * 8 - 1)) - 1;
			s64 lo = -hi - 1;

			for (j = 0; j < m; j++)
				tmp[j] = clamp(tmp[j], lo, hi);
		}
		for (j = 0; j < m; j++)
			pto_store_int(d + (i + j) * dt->esize, dt->esize, tmp[j]);
	}
}

static bool pto_matmul(struct pto_run *r, const struct pto_insn *in)
{
	const struct pto_tile_layout *a = &r->k->tiles[in->a];
	const struct pto_tile_layout *b = &r->k->tiles[in->b];
	u32 *c = (u32 *)pto_tile(r, in->dst);
	u32 m0;

	for (m0 = 0; m0 < a->rows; m0 += PTO_MATMUL_ROWS) {
		pto_fp_matmul_rows(c, (u32 *)pto_tile(r, in->a),
				   (u32 *)pto_tile(r, in->b), m0,
				   min(a->rows, m0 + PTO_MATMUL_ROWS), a->cols,
				   b->cols, in->flags & PTO_INSN_F_ACC);
		if (!pto_check(r))
			return false;
	}
	return true;
}

static bool pto_tile_op(struct pto_run *r, const struct pto_insn *in)
{
	/*
	 * TLOAD, TSTORE and TFILL use @a as a scalar register (s0..s31),
	 * possibly past the declared tiles: only ops with a tile source may
	 * index the tile table with it.
	 */
	u8 areg = in->a < r->k->num_tiles ? in->a : in->dst;
	const struct pto_tile_layout *dt = &r->k->tiles[in->dst];
	const struct pto_tile_layout *at = &r->k->tiles[areg];
	size_t n = (size_t)dt->rows * dt->cols;
	u8 *d = pto_tile(r, in->dst);
	u8 *a = pto_tile(r, areg);
	s64 s = pto_src_b(r, in);
	size_t i;

	switch (in->op) {
	case PTO_OP_TLOAD:
		return pto_tile_xfer(r, in, true);
	case PTO_OP_TSTORE:
		return pto_tile_xfer(r, in, false);
	case PTO_OP_TMOV:
		memmove(d, a, n * dt->esize);
		return true;
	case PTO_OP_TFILL:
		for (i = 0; i < n; i++)
			pto_store_int(d + i * dt->esize, dt->esize, s);
		return true;
	case PTO_OP_TBIN:
		if (dt->dtype == PTO_ISA_F32)
			pto_fp_tbin(in->mode, (u32 *)d, (u32 *)a,
				    (u32 *)pto_tile(r, in->b), n);
		else
			pto_tile_int_bin(dt, in->mode, d, a, pto_tile(r, in->b),
					 false, 0);
		return true;
	case PTO_OP_TBINS:
		if (dt->dtype == PTO_ISA_F32)
			pto_fp_tbins(in->mode, (u32 *)d, (u32 *)a, (u32)s, n);
		else
			pto_tile_int_bin(dt, in->mode, d, a, NULL, true, s);
		return true;
	case PTO_OP_TUNARY:
		if (dt->dtype == PTO_ISA_F32)
			pto_fp_tunary(in->mode, (u32 *)d, (u32 *)a, n);
		else
			pto_tile_int_unary(dt, in->mode, d, a);
		return true;
	case PTO_OP_TROWRED:
		pto_fp_rowred(in->mode, (u32 *)d, (u32 *)a, at->rows, at->cols);
		return true;
	case PTO_OP_TCAST:
		pto_tile_cast(dt, d, at, a);
		return true;
	case PTO_OP_MATMUL:
		return pto_matmul(r, in);
	}
	return true;
}

/*
 * PUSH or POP. On a full or empty ring the unit parks (pto_xring.c) and,
 * once released, runs this instruction again.
 */
static bool pto_ring(struct pto_run *r, const struct pto_insn *in, u32 pc)
{
	u32 reg = in->op == PTO_OP_PUSH ? in->a : in->dst;
	const struct pto_tile_layout *t = &r->k->tiles[reg];
	s32 st = pto_xring_op(r->task, r->block, r->core, r->part - 1,
			     in->op == PTO_OP_PUSH, pto_tile(r, reg), t->rows,
			     t->cols * t->esize);

	if (st == PTO_STATUS_PARKED) {
		/* Released, the instruction runs again. */
		pto_prof_wait_begin(r->task, r->block * r->task->nparts + r->part,
				    in->op == PTO_OP_PUSH ?
				    DRM_PTO_NPU_WAIT_RING_PUSH :
				    DRM_PTO_NPU_WAIT_RING_POP, pc);
		r->parked = true;
		r->park_ring = true;
		r->park_pc = pc;
		r->pc = pc;
		return false;
	}
	return st == DRM_PTO_NPU_STATUS_OK ? true : pto_fault(r, st, pc);
}

static s64 pto_sreg(struct pto_run *r, u32 which)
{
	switch (which) {
	case PTO_SREG_BLOCK_IDX:
		return r->block;
	case PTO_SREG_BLOCK_NUM:
		return r->task->block_num;
	case PTO_SREG_SUB_BLOCK_ID:
		return r->sub_block;
	case PTO_SREG_CORE_ID:
		return r->core->index;
	case PTO_SREG_CORE_TYPE:
		return r->core->type;
	case PTO_SREG_NUM_ARGS:
		return r->task->num_tensors;
	}
	return 0;
}

static bool pto_alu(struct pto_run *r, const struct pto_insn *in, u32 pc)
{
	s64 a = r->s[in->a];
	s64 b = pto_src_b(r, in);
	s64 v;

	switch (in->mode) {
	case PTO_ALU_ADD:
		v = (s64)((u64)a + (u64)b);
		break;
	case PTO_ALU_SUB:
		v = (s64)((u64)a - (u64)b);
		break;
	case PTO_ALU_MUL:
		v = (s64)((u64)a * (u64)b);
		break;
	case PTO_ALU_DIV:
	case PTO_ALU_MOD:
		if (!b)
			return pto_fault(r, DRM_PTO_NPU_STATUS_ARITH_FAULT, pc);
		if (a == S64_MIN && b == -1)
			v = in->mode == PTO_ALU_DIV ? S64_MIN : 0;
		else
			v = in->mode == PTO_ALU_DIV ? a / b : a % b;
		break;
	case PTO_ALU_AND:
		v = a & b;
		break;
	case PTO_ALU_OR:
		v = a | b;
		break;
	case PTO_ALU_XOR:
		v = a ^ b;
		break;
	case PTO_ALU_SHL:
		v = (s64)((u64)a << (b & 63));
		break;
	case PTO_ALU_SHR:
		v = a >> (b & 63);
		break;
	case PTO_ALU_MIN:
		v = min(a, b);
		break;
	default:
		v = max(a, b);
		break;
	}
	r->s[in->dst] = v;
	return true;
}

/**
 * pto_cmp_eval - compare two signed values
 * @op: enum pto_cmp
 * @a: left
 * @b: right
 *
 * Return: the comparison's truth.
 */
bool pto_cmp_eval(u32 op, s64 a, s64 b)
{
	switch (op) {
	case PTO_CMP_EQ:
		return a == b;
	case PTO_CMP_NE:
		return a != b;
	case PTO_CMP_GT:
		return a > b;
	case PTO_CMP_LT:
		return a < b;
	case PTO_CMP_GE:
		return a >= b;
	default:
		return a <= b;
	}
}
EXPORT_SYMBOL_IF_KUNIT(pto_cmp_eval);

static bool pto_gm_scalar(struct pto_run *r, const struct pto_insn *in)
{
	const struct pto_targ *t = &r->task->targs[in->imm];
	u8 *p = pto_gm_elem(r, in->imm, r->s[in->a], r->s[in->b]);
	struct pto_gm_access a;
	u64 v = 0;
	s32 old;

	if (!p)
		return false;
	if (!r->gm.on) {
		switch (in->op) {
		case PTO_OP_GLD:
			r->s[in->dst] = pto_load_int(p, t->dtype);
			break;
		case PTO_OP_GST:
			pto_store_int(p, t->esize, r->s[in->c]);
			break;
		default:
			r->s[in->dst] = atomic_fetch_add((int)r->s[in->c],
							 (atomic_t *)p);
			break;
		}
		return true;
	}
	a = pto_gm_acc(r, in);
	switch (in->op) {
	case PTO_OP_GLD:
		pto_gm_load(&r->gm, &a, p, (u8 *)&v, t->esize);
		r->s[in->dst] = pto_load_int(&v, t->dtype);
		return true;
	case PTO_OP_GST:
		pto_store_int(&v, t->esize, r->s[in->c]);
		if (pto_gm_store(&r->gm, &a, p, (u8 *)&v, t->esize))
			return pto_gm_nomem(r, in);
		return true;
	default:
		if (pto_gm_atomic_add(&r->gm, &a, p, (s32)r->s[in->c], &old))
			return pto_gm_nomem(r, in);
		r->s[in->dst] = old;
		return true;
	}
}

/* CACHEINVALID: the whole GM, or the line of a tensor's base address. */
static bool pto_cacheinvalid(struct pto_run *r, const struct pto_insn *in)
{
	const u8 *line = in->mode == PTO_CINV_TENSOR ?
			 r->task->targs[in->imm].base : NULL;

	if (pto_gm_invalidate(&r->gm, r->task, line))
		return pto_gm_nomem(r, in);
	return true;
}

/* The unit has left its barrier with status @st. */
static bool pto_syncall_leave(struct pto_run *r, s32 st, u32 pc)
{
	u32 unit = r->block * r->task->nparts + r->part;

	pto_prof_wait_end(r->task, unit);
	trace_pto_barrier_leave(r->task, unit, r->core, st);
	return st == DRM_PTO_NPU_STATUS_OK ? true :
	       pto_fault(r, st, pto_barrier_fault_detail(r->core, st, pc));
}

/*
 * A unit that has to wait at a barrier parks: its state stays in the
 * core's pto_run, its thread goes on with other units, and whoever
 * completes the round (or the scheduler's watchdog) makes it runnable
 * again (pto_barrier.c). No thread sleeps at a barrier.
 */
static bool pto_syncall(struct pto_run *r, const struct pto_insn *in, u32 pc)
{
	struct pto_device *pdev = r->core->pdev;
	u32 unit = r->block * r->task->nparts + r->part;
	s32 st;

	pto_count(pdev, barriers);
	trace_pto_barrier_enter(r->task, unit, r->core, 0);
	pto_prof_wait_begin(r->task, unit, in->mode == PTO_SYNC_HARD ?
			    DRM_PTO_NPU_WAIT_BARRIER_HARD :
			    DRM_PTO_NPU_WAIT_BARRIER_SOFT, pc);
	if (in->mode == PTO_SYNC_HARD) {
		st = pto_barrier_hard(r->task, r->core);
	} else {
		u8 *p = pto_gm_elem(r, in->imm, 0, 0);

		if (!p)
			return false;
		st = pto_barrier_soft(r->task, r->core, (s32 *)p,
				      r->s[in->a]);
	}
	if (st == PTO_STATUS_PARKED) {
		/* Released, the unit goes on after the barrier. */
		r->parked = true;
		r->park_pc = pc;
		r->pc = pc + 1;
		return false;
	}
	return pto_syncall_leave(r, st, pc);
}

static bool pto_loop_enter(struct pto_run *r, const struct pto_insn *in,
			   u32 pc, u32 *next)
{
	s64 count = pto_src_b(r, in);
	struct pto_loop *l;

	if (count < 0 || count > PTO_MAX_LOOP_COUNT)
		return pto_fault(r, DRM_PTO_NPU_STATUS_LOOP_FAULT, pc);
	if (!count) {
		*next = r->k->match[pc] + 1;
		return true;
	}
	/* The verifier bounds nesting by PTO_MAX_LOOP_DEPTH. */
	l = &r->loops[r->depth++];
	l->pc = pc;
	l->reg = in->dst;
	l->count = count;
	l->iter = 0;
	r->s[in->dst] = 0;
	return true;
}

/* ENDLOOP: the next iteration, or out of the innermost loop. */
static void pto_loop_end(struct pto_run *r, u32 *next)
{
	struct pto_loop *l = &r->loops[r->depth - 1];

	if (++l->iter < l->count) {
		r->s[l->reg] = l->iter;
		*next = l->pc + 1;
	} else {
		r->depth--;
	}
}

/*
 * Run from @r->pc until END, a fault or a park. Scalar instructions are
 * checked (pto_check()) every PTO_CHECK_EVERY, longer ones after each.
 */
static void pto_run_program(struct pto_run *r)
{
	const struct pto_insn *insns = r->k->insns;
	u32 pc = r->pc, steps = 0;

	for (;;) {
		const struct pto_insn *in = &insns[pc];
		bool ok = true;
		u32 next = pc + 1;

		r->work++;
		if (++steps == PTO_CHECK_EVERY) {
			steps = 0;
			if (!pto_check(r))
				return;
		}
		switch (in->op) {
		case PTO_OP_END:
			return;
		case PTO_OP_LDI:
			r->s[in->dst] = in->imm;
			break;
		case PTO_OP_MOV:
			r->s[in->dst] = r->s[in->a];
			break;
		case PTO_OP_SREG:
			r->s[in->dst] = pto_sreg(r, in->mode);
			break;
		case PTO_OP_ARG:
			r->s[in->dst] = r->task->scalars[in->imm];
			break;
		case PTO_OP_ALU:
			ok = pto_alu(r, in, pc);
			break;
		case PTO_OP_CMP:
			r->s[in->dst] = pto_cmp_eval(in->mode, r->s[in->a],
						     pto_src_b(r, in));
			break;
		case PTO_OP_JMP:
			next = in->imm;
			break;
		case PTO_OP_JZ:
			if (!r->s[in->a])
				next = in->imm;
			break;
		case PTO_OP_JNZ:
			if (r->s[in->a])
				next = in->imm;
			break;
		case PTO_OP_LOOP:
			ok = pto_loop_enter(r, in, pc, &next);
			break;
		case PTO_OP_ENDLOOP:
			pto_loop_end(r, &next);
			break;
		case PTO_OP_GLD:
		case PTO_OP_GST:
		case PTO_OP_ATOMIC_ADD:
			ok = pto_gm_scalar(r, in);
			break;
		case PTO_OP_SYNCALL:
			ok = pto_syncall(r, in, pc);
			break;
		case PTO_OP_PUSH:
		case PTO_OP_POP:
			ok = pto_ring(r, in, pc) && pto_check(r);
			steps = 0;
			break;
		case PTO_OP_FENCE:
			if (pto_gm_fence(&r->gm, r->task))
				ok = pto_gm_nomem(r, in);
			break;
		case PTO_OP_CACHEINVALID:
			ok = pto_cacheinvalid(r, in);
			break;
		default:
			ok = pto_tile_op(r, in) && pto_check(r);
			steps = 0;
			break;
		}
		if (!ok)
			return;
		pc = next;
	}
}

/*
 * Fault injection (debugfs inject_hang): the unit makes no progress, as a
 * core that hangs, until it is cancelled or, the wall-clock last resort,
 * timeout_ms has passed.
 */
static void pto_hang(struct pto_run *r)
{
	u64 end = ktime_get_ns() + (u64)pto_clamped_timeout_ms() * NSEC_PER_MSEC;

	while (!atomic_read(&r->task->cancel)) {
		if (ktime_get_ns() > end) {
			pto_fault(r, DRM_PTO_NPU_STATUS_TIMEOUT, 0);
			return;
		}
		usleep_range(1000, 2000);
	}
	pto_fault(r, DRM_PTO_NPU_STATUS_CANCELLED, 0);
}

/*
 * The unit has ended (END, a fault or a cancel): its GM stores are written
 * back, as the chip's core writes back its cache at the end of its block.
 */
static void pto_unit_end(struct pto_run *r)
{
	if (pto_gm_view_end(&r->gm, r->task) &&
	    r->res->status == DRM_PTO_NPU_STATUS_OK)
		pto_fault(r, DRM_PTO_NPU_STATUS_NOMEM, r->pc);
}

/* A released unit: how its wait ended, then on from where it parked. */
static bool pto_exec_resume(struct pto_run *r, s32 st)
{
	r->parked = false;
	if (r->park_ring) {
		r->park_ring = false;
		pto_prof_wait_end(r->task, r->block * r->task->nparts + r->part);
		if (st != DRM_PTO_NPU_STATUS_OK) {
			pto_fault(r, st, r->park_pc);
			pto_unit_end(r);
			return false;
		}
	} else if (!pto_syncall_leave(r, st, r->park_pc)) {
		pto_unit_end(r);
		return false;
	}
	pto_run_program(r);
	if (!r->parked)
		pto_unit_end(r);
	return r->parked;
}

/* A fresh state for @unit of @task on @core, at its first instruction. */
static void pto_run_init(struct pto_run *r, struct pto_core *core,
			 struct pto_task *task, u32 unit,
			 struct pto_exec_result *res)
{
	/* A unit that never ended (its device went away parked): no stores. */
	pto_gm_view_drop(&r->gm);
	/* Not the view: dropped, its tables are empty (2 KiB not rewritten). */
	memset(r, 0, offsetof(struct pto_run, gm));
	r->res = res;
	r->core = core;
	r->task = task;
	r->k = task->kern[pto_type_cidx(core->type)];
	r->block = unit / task->nparts;
	r->part = unit % task->nparts;
	if (task->rings)
		r->sub_block = task->split == DRM_PTO_NPU_SPLIT_UP_DOWN && r->part ?
			       r->part - 1 : 0;
	else
		r->sub_block = core->sub_block;
	r->local = core->local;
	r->budget = task->queue->work_budget;
	/* pto_core_run() read the clock as the unit started. */
	r->flush_at = task->recs[unit].ts[PTO_TS_START] + PTO_QUANTUM_NS;
	pto_gm_view_start(&r->gm, task, unit);
}

/**
 * pto_exec_unit - run one unit (a block's part on one core) of a task
 * @core: the core (its local memory holds the tiles, its pto_run the state)
 * @task: the task
 * @unit: block * nparts + part (part 0 of a mixed block is its AIC)
 * @res: out: status and detail
 * @resume: the unit parked (at a barrier or a ring) and has been released
 *          with status @core->park_st: go on from there
 *
 * Return: true if the unit parked (@res is not final).
 */
bool pto_exec_unit(struct pto_core *core, struct pto_task *task, u32 unit,
		   struct pto_exec_result *res, bool resume)
{
	struct pto_run *r = core->exec;

	res->status = DRM_PTO_NPU_STATUS_OK;
	res->detail = 0;
	if (resume) {
		r->res = res;
		return pto_exec_resume(r, core->park_st);
	}
	pto_run_init(r, core, task, unit, res);
	if (unlikely(atomic_dec_if_positive(&core->pdev->inject_hang) >= 0))
		pto_hang(r);
	else
		pto_run_program(r);
	if (!r->parked)
		pto_unit_end(r);
	return r->parked;
}

/**
 * pto_exec_state_alloc - a core's interpreter state (kfree() it)
 *
 * Return: the state, or NULL.
 */
void *pto_exec_state_alloc(void)
{
	return kzalloc(sizeof(struct pto_run), GFP_KERNEL);
}

/**
 * pto_exec_state_free - free a core's interpreter state
 * @state: from pto_exec_state_alloc(), or NULL
 */
void pto_exec_state_free(void *state)
{
	struct pto_run *r = state;

	if (r)
		pto_gm_view_drop(&r->gm);
	kfree(r);
}
