/* SPDX-License-Identifier: MIT */
/*
 * A cube + vector pipeline, out[r] = (A x B)[r] + bias[r % tr] (with @exp,
 * its exp: an attention-score epilogue), over blocks of t row tiles of
 * tr x kd by kd x nd, in either of two forms:
 *  - two tasks: an AIC task whose blocks TLOAD a tile of A, MATMUL and
 *    TSTORE the product to a GM tensor C, then, past an edge, an AIV task
 *    of two blocks a cube block (block j = 2 x cube block + half) that
 *    TLOAD their half of each product tile back, add the bias, store;
 *  - one mixed task: the AIC PUSHes each product tile into the ring and
 *    the cluster's two AIVs (split UP_DOWN) POP their halves of it, the
 *    vector work of a tile beside the cube work of the next.
 * The instructions only: the caller makes the builder and finishes it
 * (matmul_bias's pipelined form, pto-bench's row 4 share them).
 *
 * Tensor arguments: cube A=0 B=1 (two tasks: C=2); vector two tasks C=0
 * bias=1 out=2, mixed (after the cube's A and B) bias=2 out=3.
 */
#ifndef PTO_EXAMPLE_MM_PIPE_H
#define PTO_EXAMPLE_MM_PIPE_H

#include <stdbool.h>
#include <stdint.h>

#include <pto/pto.h>

struct mm_shape {
	unsigned int tr, kd, nd, t, blocks, slots;
	bool exp;
};

/* AIC: B once; for each of the block's t row tiles: TLOAD, MATMUL, out. */
static inline void mm_pipe_cube(struct pto_kb *kb, const struct mm_shape *s,
				bool mixed)
{
	int ta, tb, tc;

	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0A, s->tr, s->kd);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0B, s->kd, s->nd);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0C, s->tr, s->nd);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, (int64_t)s->t * s->tr);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, tb, 1, 1, 1);
	pto_kb_loopi(kb, 2, s->t);
	pto_kb_alui(kb, PTO_ALU_MUL, 3, 2, s->tr);
	pto_kb_alu(kb, PTO_ALU_ADD, 3, 3, 0);
	pto_kb_tload(kb, ta, 0, 3, 1);
	pto_kb_matmul(kb, tc, ta, tb, false);
	if (mixed)
		pto_kb_push(kb, tc);
	else
		pto_kb_tstore(kb, tc, 2, 3, 1);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
}

/*
 * AIV: half of every row tile (sub-block 0 the upper, 1 the lower half):
 * POP it (mixed) or TLOAD it from C, add the bias rows, TSTORE to out.
 */
static inline void mm_pipe_vec(struct pto_kb *kb, const struct mm_shape *s,
			       bool mixed)
{
	unsigned int half = s->tr / 2, a_bias = mixed ? 2 : 1;
	unsigned int a_out = mixed ? 3 : 2;
	int tp, tbias, tout;

	tp = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, half, s->nd);
	tbias = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, half, s->nd);
	tout = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, half, s->nd);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	if (mixed) {
		pto_kb_sreg(kb, 6, PTO_SREG_SUB_BLOCK_ID);
	} else {
		pto_kb_alui(kb, PTO_ALU_AND, 6, 0, 1);
		pto_kb_alui(kb, PTO_ALU_SHR, 0, 0, 1);
	}
	pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, (int64_t)s->t * s->tr);
	pto_kb_alui(kb, PTO_ALU_MUL, 7, 6, half);
	pto_kb_alu(kb, PTO_ALU_ADD, 0, 0, 7);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, tbias, a_bias, 7, 1);
	pto_kb_loopi(kb, 2, s->t);
	pto_kb_alui(kb, PTO_ALU_MUL, 3, 2, s->tr);
	pto_kb_alu(kb, PTO_ALU_ADD, 3, 3, 0);
	if (mixed)
		pto_kb_pop(kb, tp);
	else
		pto_kb_tload(kb, tp, 0, 3, 1);
	pto_kb_tbin(kb, PTO_TBIN_ADD, tout, tp, tbias);
	if (s->exp)
		pto_kb_tunary(kb, PTO_TUNARY_EXP, tout, tout);
	pto_kb_tstore(kb, tout, a_out, 3, 1);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
}

#endif /* PTO_EXAMPLE_MM_PIPE_H */
