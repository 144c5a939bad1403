// Copyright (c) 2026, kubenode.cgroups contributors
// GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

#include "textflag.h"

// func cloneWaiter(flags, stack, allSignals uintptr) (pid, errno uintptr)
//
// clone(2) a process that shares this one's memory (CLONE_VM: no page tables to copy, so it costs the kernel a task
// and little else) and only waits: in the child, every signal but SIGKILL is blocked, it asks for SIGKILL when its
// parent dies, and pauses forever. The child never returns into Go: it runs on the stack it is given and pushes
// nothing onto it, so children can share one.
TEXT ·cloneWaiter(SB), NOSPLIT, $0-40
	MOVQ	flags+0(FP), DI
	MOVQ	stack+8(FP), SI
	MOVQ	allSignals+16(FP), R12
	MOVQ	$0, DX
	MOVQ	$0, R10
	MOVQ	$0, R8
	MOVQ	$56, AX // SYS_clone
	SYSCALL
	CMPQ	AX, $0
	JEQ	child
	CMPQ	AX, $0xfffffffffffff001
	JLS	started
	NEGQ	AX
	MOVQ	$0, pid+24(FP)
	MOVQ	AX, errno+32(FP)
	RET

started:
	MOVQ	AX, pid+24(FP)
	MOVQ	$0, errno+32(FP)
	RET

child:
	MOVQ	$2, DI  // SIG_SETMASK
	MOVQ	R12, SI // every signal (SIGKILL and SIGSTOP cannot be blocked)
	MOVQ	$0, DX
	MOVQ	$8, R10
	MOVQ	$14, AX // SYS_rt_sigprocmask
	SYSCALL
	MOVQ	$1, DI // PR_SET_PDEATHSIG
	MOVQ	$9, SI // SIGKILL
	MOVQ	$157, AX // SYS_prctl
	SYSCALL

wait:
	MOVQ	$34, AX // SYS_pause
	SYSCALL
	JMP	wait
