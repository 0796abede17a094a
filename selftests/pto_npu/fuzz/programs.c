// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel programs: random bytes, generated ones that mostly verify, and
 * mutations of those (kernel_create_destroy, verifier_programs_run).
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <string.h>

#include "fuzz.h"

static const uint8_t fz_dtypes[] = { PTO_ISA_F32, PTO_ISA_I32, PTO_ISA_I16,
				     PTO_ISA_I8, PTO_ISA_I64 };

uint8_t fz_dtype(struct fz_rng *r)
{
	return fz_dtypes[fz_below(r, FZ_N(fz_dtypes))];
}

static void fz_gen_tiles(struct fz_rng *r, struct fz_prog *p)
{
	uint8_t dtype = fz_dtype(r);
	uint32_t rows = 1u << fz_below(r, 5), cols = 1u << fz_below(r, 5), i;

	if (p->core == PTO_CORE_AIC)
		dtype = PTO_ISA_F32;
	p->ntiles = fz_below(r, 7);
	for (i = 0; i < p->ntiles; i++) {
		struct pto_tile_decl *t = &p->tiles[i];

		memset(t, 0, sizeof(*t));
		/* Most tiles share one shape and dtype, so tile ops verify. */
		t->dtype = fz_pct(r, 80) ? dtype : fz_dtype(r);
		t->rows = fz_pct(r, 80) ? rows : 1u << fz_below(r, 5);
		t->cols = fz_pct(r, 80) ? cols : 1u << fz_below(r, 5);
		t->buf = p->core == PTO_CORE_AIV ? PTO_BUF_UB :
			 PTO_BUF_L1 + fz_below(r, 4);
	}
}

static uint8_t fz_sreg(struct fz_rng *r)
{
	return (uint8_t)fz_below(r, PTO_NUM_SREGS);
}

static uint8_t fz_treg(struct fz_rng *r, const struct fz_prog *p)
{
	return (uint8_t)fz_below(r, p->ntiles);
}

/* A likely valid instruction (not control flow). */
static struct pto_insn fz_gen_insn(struct fz_rng *r, const struct fz_prog *p)
{
	bool imm = fz_pct(r, 60), tiles = p->ntiles > 0;
	struct pto_insn in;
	uint32_t k = fz_below(r, tiles ? 20 : 10);

	memset(&in, 0, sizeof(in));
	switch (k) {
	case 0:
		in.op = PTO_OP_LDI;
		in.dst = fz_sreg(r);
		in.imm = fz_pct(r, 80) ? (int64_t)fz_below(r, 20) : (int64_t)fz_int(r);
		break;
	case 1:
		in.op = PTO_OP_MOV;
		in.dst = fz_sreg(r);
		in.a = fz_sreg(r);
		break;
	case 2:
		in.op = PTO_OP_SREG;
		in.dst = fz_sreg(r);
		in.mode = (uint8_t)fz_below(r, PTO_SREG_NUM_ARGS + 1);
		break;
	case 3:
		in.op = PTO_OP_ARG;
		in.dst = fz_sreg(r);
		in.imm = fz_below(r, 4);
		break;
	case 4:
	case 5:
		in.op = k == 4 ? PTO_OP_ALU : PTO_OP_CMP;
		in.dst = fz_sreg(r);
		in.a = fz_sreg(r);
		in.mode = (uint8_t)fz_below(r, k == 4 ? PTO_ALU_MAX + 1 : PTO_CMP_LE + 1);
		if (imm) {
			in.flags = PTO_INSN_F_IMM;
			in.imm = fz_pct(r, 80) ? (int64_t)fz_below(r, 8) : (int64_t)fz_int(r);
		} else {
			in.b = fz_sreg(r);
		}
		break;
	case 6:
		in.op = PTO_OP_GLD;
		in.dst = fz_sreg(r);
		in.a = fz_sreg(r);
		in.b = fz_sreg(r);
		in.imm = fz_below(r, 3);
		break;
	case 7:
		in.op = PTO_OP_GST;
		in.a = fz_sreg(r);
		in.b = fz_sreg(r);
		in.c = fz_sreg(r);
		in.imm = fz_below(r, 3);
		break;
	case 8:
		in.op = PTO_OP_ATOMIC_ADD;
		in.dst = fz_sreg(r);
		in.a = fz_sreg(r);
		in.b = fz_sreg(r);
		in.c = fz_sreg(r);
		in.imm = fz_below(r, 3);
		break;
	case 9:
		in.op = fz_pct(r, 50) ? PTO_OP_FENCE : PTO_OP_CACHEINVALID;
		if (fz_pct(r, 3)) {
			/* SYNCALL: SOFT with a workspace, or HARD. */
			in.op = PTO_OP_SYNCALL;
			in.mode = (uint8_t)fz_below(r, 2);
			if (in.mode == PTO_SYNC_SOFT) {
				in.a = fz_sreg(r);
				in.imm = fz_below(r, 3);
			} else {
				in.imm = p->core == PTO_CORE_AIV ? PTO_SYNC_AIV :
								   PTO_SYNC_AIC;
			}
		}
		break;
	case 10:
	case 11:
		in.op = k == 10 ? PTO_OP_TLOAD : PTO_OP_TSTORE;
		in.dst = fz_treg(r, p);
		in.a = fz_sreg(r);
		in.b = fz_sreg(r);
		in.imm = fz_below(r, 3);
		break;
	case 12:
		in.op = PTO_OP_TFILL;
		in.dst = fz_treg(r, p);
		if (imm) {
			in.flags = PTO_INSN_F_IMM;
			in.imm = (int64_t)fz_int(r);
		} else {
			in.b = fz_sreg(r);
		}
		break;
	case 13:
		in.op = PTO_OP_TMOV;
		in.dst = fz_treg(r, p);
		in.a = fz_treg(r, p);
		break;
	case 14:
		in.op = PTO_OP_TBIN;
		in.dst = fz_treg(r, p);
		in.a = fz_treg(r, p);
		in.b = fz_treg(r, p);
		in.mode = (uint8_t)fz_below(r, PTO_TBIN_XOR + 1);
		break;
	case 15:
		in.op = PTO_OP_TBINS;
		in.dst = fz_treg(r, p);
		in.a = fz_treg(r, p);
		in.mode = (uint8_t)fz_below(r, PTO_TBIN_XOR + 1);
		if (imm) {
			in.flags = PTO_INSN_F_IMM;
			in.imm = (int64_t)fz_int(r);
		} else {
			in.b = fz_sreg(r);
		}
		break;
	case 16:
		in.op = PTO_OP_TUNARY;
		in.dst = fz_treg(r, p);
		in.a = fz_treg(r, p);
		in.mode = (uint8_t)fz_below(r, PTO_TUNARY_ABS + 1);
		break;
	case 17:
		in.op = fz_pct(r, 50) ? PTO_OP_TROWRED : PTO_OP_TCAST;
		in.dst = fz_treg(r, p);
		in.a = fz_treg(r, p);
		if (in.op == PTO_OP_TROWRED)
			in.mode = (uint8_t)fz_below(r, PTO_ROWRED_MAX + 1);
		break;
	case 18:
		in.op = PTO_OP_MATMUL;
		in.dst = fz_treg(r, p);
		in.a = fz_treg(r, p);
		in.b = fz_treg(r, p);
		if (fz_pct(r, 50))
			in.flags = PTO_INSN_F_ACC;
		break;
	default:
		in.op = fz_pct(r, 50) ? PTO_OP_PUSH : PTO_OP_POP;
		if (in.op == PTO_OP_PUSH)
			in.a = fz_treg(r, p);
		else
			in.dst = fz_treg(r, p);
		break;
	}
	return in;
}

/* Innermost LOOP of each instruction, as the verifier sees it. */
static void fz_loop_of(const struct fz_prog *p, int *loop_of)
{
	int stack[8], depth = 0;
	uint32_t pc;

	for (pc = 0; pc < p->n; pc++) {
		loop_of[pc] = depth ? stack[depth - 1] : -1;
		if (p->insns[pc].op == PTO_OP_LOOP && depth < 8)
			stack[depth++] = (int)pc;
		else if (p->insns[pc].op == PTO_OP_ENDLOOP && depth)
			depth--;
	}
}

/* A program that mostly verifies: balanced loops, forward jumps, an END. */
void fz_gen_prog(struct fz_rng *r, struct fz_prog *p)
{
	uint32_t target = 2 + fz_below(r, fz_pct(r, 90) ? 30 : FZ_PROG_MAX - 8);
	int loop_of[FZ_PROG_MAX], depth = 0;
	uint32_t pc, t;

	memset(p, 0, sizeof(*p));
	p->core = fz_pct(r, 70) ? PTO_CORE_AIV : PTO_CORE_AIC;
	fz_gen_tiles(r, p);
	while (p->n + depth + 1 < target) {
		struct pto_insn in;
		uint32_t k = fz_below(r, 100);

		memset(&in, 0, sizeof(in));
		if (k < 8 && depth < PTO_MAX_LOOP_DEPTH) {
			in.op = PTO_OP_LOOP;
			in.dst = fz_sreg(r);
			if (fz_pct(r, 75)) {
				in.flags = PTO_INSN_F_IMM;
				in.imm = fz_pct(r, 90) ? (int64_t)fz_below(r, 5) :
					 (int64_t)fz_below(r, PTO_MAX_LOOP_COUNT + 1);
			} else {
				in.b = fz_sreg(r);
			}
			depth++;
		} else if (k < 16 && depth) {
			in.op = PTO_OP_ENDLOOP;
			depth--;
		} else if (k < 22) {
			in.op = PTO_OP_JMP + (uint8_t)fz_below(r, 3);
			if (in.op != PTO_OP_JMP)
				in.a = fz_sreg(r);
		} else {
			in = fz_gen_insn(r, p);
		}
		p->insns[p->n++] = in;
	}
	while (depth--)
		p->insns[p->n++] = INSN(PTO_OP_ENDLOOP, 0, 0, 0, 0, 0, 0, 0);
	p->insns[p->n++] = INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0);

	/* Jumps: a later instruction of the same loop body. */
	fz_loop_of(p, loop_of);
	for (pc = 0; pc < p->n; pc++) {
		struct pto_insn *in = &p->insns[pc];
		uint32_t cand[FZ_PROG_MAX], nc = 0;

		if (in->op != PTO_OP_JMP && in->op != PTO_OP_JZ && in->op != PTO_OP_JNZ)
			continue;
		for (t = pc + 1; t < p->n; t++)
			if (loop_of[t] == loop_of[pc])
				cand[nc++] = t;
		if (nc)
			in->imm = cand[fz_below(r, nc)];
		else
			*in = INSN(PTO_OP_FENCE, 0, 0, 0, 0, 0, 0, 0);
	}
}

/* One to three corruptions of a program or its tile table. */
void fz_mutate_prog(struct fz_rng *r, struct fz_prog *p)
{
	uint32_t k = 1 + fz_below(r, 3), i;

	for (i = 0; i < k; i++) {
		struct pto_insn *in = &p->insns[fz_below(r, p->n)];

		switch (fz_below(r, 8)) {
		case 0:
			fz_flip(r, in, sizeof(*in));
			break;
		case 1:
			in->imm = (int64_t)fz_int(r);
			break;
		case 2:
			((uint8_t *)in)[fz_below(r, 8)] = (uint8_t)fz_int(r);
			break;
		case 3:
			in->op = (uint8_t)fz_below(r, 0x40);
			break;
		case 4:
			if (p->ntiles)
				fz_flip(r, &p->tiles[fz_below(r, p->ntiles)],
					sizeof(p->tiles[0]));
			break;
		case 5:
			if (p->n > 1)
				p->n = 1 + fz_below(r, p->n);
			break;
		case 6: {
			struct pto_insn *o = &p->insns[fz_below(r, p->n)], t = *in;

			*in = *o;
			*o = t;
			break;
		}
		default:
			p->ntiles = fz_below(r, PTO_NUM_TREGS + 2);
			break;
		}
	}
}

/* Random bytes, sometimes with a plausible opcode in each instruction. */
void fz_random_prog(struct fz_rng *r, struct fz_prog *p)
{
	uint32_t i;

	memset(p, 0, sizeof(*p));
	p->core = fz_pct(r, 90) ? 1 + fz_below(r, 2) : (uint32_t)fz_int(r);
	p->n = 1 + fz_below(r, FZ_PROG_MAX);
	p->ntiles = fz_below(r, PTO_NUM_TREGS + 1);
	fz_bytes(r, p->insns, p->n * sizeof(p->insns[0]));
	fz_bytes(r, p->tiles, sizeof(p->tiles));
	if (fz_pct(r, 50))
		for (i = 0; i < p->n; i++)
			p->insns[i].op &= 0x3f;
	if (fz_pct(r, 50))
		p->insns[p->n - 1] = INSN(PTO_OP_END, 0, 0, 0, 0, 0, 0, 0);
}

/* The dtype each tensor argument must have, as the verifier infers it. */
void fz_arg_dtypes(const struct fz_prog *p, uint8_t *need)
{
	uint32_t pc;

	memset(need, 0, FZ_TENSORS);
	for (pc = 0; pc < p->n; pc++) {
		const struct pto_insn *in = &p->insns[pc];

		if (in->imm < 0 || in->imm >= FZ_TENSORS)
			continue;
		if ((in->op == PTO_OP_TLOAD || in->op == PTO_OP_TSTORE) &&
		    in->dst < p->ntiles)
			need[in->imm] = p->tiles[in->dst].dtype;
		else if (in->op == PTO_OP_ATOMIC_ADD ||
			 (in->op == PTO_OP_SYNCALL && in->mode == PTO_SYNC_SOFT))
			need[in->imm] = PTO_ISA_I32;
	}
}

bool fz_has_hard_sync(const struct fz_prog *p)
{
	uint32_t pc;

	for (pc = 0; pc < p->n; pc++)
		if (p->insns[pc].op == PTO_OP_SYNCALL &&
		    p->insns[pc].mode == PTO_SYNC_HARD)
			return true;
	return false;
}
