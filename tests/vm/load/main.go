// Copyright (c) 2026, kubenode.cgroups contributors
// GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// load: the one process of the test VMs' load image (issue 76), what a pod runs to take a node's memory, PIDs,
// CPU or disk. Every mode is bounded twice: by its count (-mib, -count, -threads) and by -seconds, after which
// the program exits 0 by itself, its children with it. It prints one JSON line when it starts and one when it
// ends (the pod's log), so that what a load reached is on record even when the kernel kills it.
//
//	load -mode memory -mib N -rate R     allocate and touch N MiB at R MiB/s, then hold
//	load -mode fork -count N             start up to N processes that only wait, retrying when the kernel refuses
//	load -mode cpu -threads N            spin N threads
//	load -mode disk -mib N -rate R -path F   write N MiB into F at R MiB/s (fsync'd), then hold
//
// The VMs reach no registry: tests/vm/oci_image.py packs this binary into an image, as it does the pause binary.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

const mib = 1 << 20

// Page size of the test VMs (x86_64): touching one byte a page commits the page.
const pageSize = 4096

// report prints one JSON line to stdout.
func report(event string, fields map[string]any) {
	fields["event"] = event
	fields["time"] = time.Now().UTC().Format(time.RFC3339Nano)
	line, _ := json.Marshal(fields)
	fmt.Println(string(line))
}

// memory takes total MiB at rate MiB/s, touching every page so that the kernel charges it, then holds it.
func memory(total, rate int, deadline time.Time) map[string]any {
	// The chunks are held in a slice until the end: the collector must not give them back.
	debug.SetGCPercent(-1)
	chunks := make([][]byte, 0, total)
	interval := time.Second / time.Duration(max(rate, 1))
	next := time.Now()
	for len(chunks) < total && time.Now().Before(deadline) {
		chunk := make([]byte, mib)
		for offset := 0; offset < mib; offset += pageSize {
			chunk[offset] = 1
		}
		chunks = append(chunks, chunk)
		next = next.Add(interval)
		time.Sleep(time.Until(next))
	}
	reached := len(chunks)
	time.Sleep(time.Until(deadline))
	runtime.KeepAlive(chunks)
	return map[string]any{"mib": reached}
}

// cloneWaiter (clone_amd64.s) starts a process that shares this one's memory and only waits.
func cloneWaiter(flags, stack, allSignals uintptr) (pid, errno uintptr)

// The children's flags: one address space, file table, fs and signal handlers shared with the parent (each a task
// and a kernel stack, about what a thread costs), SIGCHLD at their end as for any child process.
const cloneFlags = syscall.CLONE_VM | syscall.CLONE_FS | syscall.CLONE_FILES | syscall.CLONE_SIGHAND | uintptr(syscall.SIGCHLD)

// The children's one stack (they push nothing onto it) and their signal mask, kept for the program's life.
var (
	childStack [64]uint64
	allSignals = [1]uint64{^uint64(0)}
)

// fork starts up to count waiting children, as a fork bomb does: when the kernel refuses (EAGAIN: pids.max or
// threads-max; ENOMEM), it tries again every 10 ms, and so holds the pressure until the deadline. A child shares
// the parent's memory (cloneWaiter), so that the load takes PIDs rather than memory: a copied Go process costs the
// kernel about 150 KiB, and Linux sizes threads-max at one task per 128 KiB of RAM, so copies run out of memory
// first. The children die with the parent (PR_SET_PDEATHSIG, and the kernel kills a PID namespace with its init).
func fork(count int, deadline time.Time) map[string]any {
	stack := uintptr(unsafe.Pointer(&childStack[len(childStack)-8]))
	signals := uintptr(unsafe.Pointer(&allSignals[0]))
	started, refused := 0, 0
	var firstRefusal time.Time
	for time.Now().Before(deadline) {
		if started >= count {
			time.Sleep(time.Until(deadline))
			break
		}
		if _, errno := cloneWaiter(cloneFlags, stack, signals); errno != 0 {
			refused++
			if firstRefusal.IsZero() {
				firstRefusal = time.Now()
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		started++
	}
	runtime.KeepAlive(&childStack)
	runtime.KeepAlive(&allSignals)
	fields := map[string]any{"started": started, "refused": refused}
	if !firstRefusal.IsZero() {
		fields["first_refusal"] = firstRefusal.UTC().Format(time.RFC3339Nano)
	}
	return fields
}

// cpu spins threads busy loops until the deadline.
func cpu(threads int, deadline time.Time) map[string]any {
	runtime.GOMAXPROCS(max(threads, runtime.NumCPU()))
	var spins atomic.Int64
	for range threads {
		go func() {
			for local := int64(0); ; local++ {
				if local%(1<<20) == 0 {
					spins.Add(1)
				}
			}
		}()
	}
	time.Sleep(time.Until(deadline))
	return map[string]any{"threads": threads, "mega_spins": spins.Load()}
}

// disk writes total MiB into path at rate MiB/s, fsync'd every 16 MiB so that the blocks are really taken, then
// holds the file until the deadline.
func disk(path string, total, rate int, deadline time.Time) (map[string]any, error) {
	file, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	chunk := make([]byte, mib)
	for offset := range chunk {
		chunk[offset] = byte(offset)
	}
	interval := time.Second / time.Duration(max(rate, 1))
	next, written := time.Now(), 0
	for written < total && time.Now().Before(deadline) {
		if _, err := file.Write(chunk); err != nil {
			return map[string]any{"mib": written, "error": err.Error()}, nil
		}
		written++
		if written%16 == 0 {
			_ = file.Sync()
		}
		next = next.Add(interval)
		time.Sleep(time.Until(next))
	}
	_ = file.Sync()
	time.Sleep(time.Until(deadline))
	return map[string]any{"mib": written}, nil
}

func main() {
	mode := flag.String("mode", "", "memory, fork, cpu or disk")
	size := flag.Int("mib", 0, "memory and disk: MiB to take")
	rate := flag.Int("rate", 64, "memory and disk: MiB a second")
	count := flag.Int("count", 0, "fork: processes to fork")
	threads := flag.Int("threads", 0, "cpu: threads to spin")
	path := flag.String("path", "/scratch/fill", "disk: the file to write")
	seconds := flag.Int("seconds", 0, "how long the load lasts, 1 to 3600")
	flag.Parse()
	if *seconds < 1 || *seconds > 3600 {
		fmt.Fprintf(os.Stderr, "load: -seconds %d: give 1 to 3600\n", *seconds)
		os.Exit(2)
	}
	counted := map[string]int{"memory": *size, "fork": *count, "cpu": *threads, "disk": *size}
	if bound, known := counted[*mode]; !known || bound <= 0 {
		fmt.Fprintf(os.Stderr, "load: -mode %q: give memory, fork, cpu or disk with its count (-mib, -count or -threads) above 0\n", *mode)
		os.Exit(2)
	}
	deadline := time.Now().Add(time.Duration(*seconds) * time.Second)
	report("start", map[string]any{"mode": *mode, "mib": *size, "rate": *rate, "count": *count,
		"threads": *threads, "seconds": *seconds})
	var result map[string]any
	var err error
	switch *mode {
	case "memory":
		result = memory(*size, *rate, deadline)
	case "fork":
		result = fork(*count, deadline)
	case "cpu":
		result = cpu(*threads, deadline)
	case "disk":
		result, err = disk(*path, *size, *rate, deadline)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "load: %v\n", err)
		os.Exit(1)
	}
	report("end", result)
}
