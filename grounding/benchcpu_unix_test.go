//go:build unix

package grounding

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user and system, all
// threads, the garbage collector's included). On a machine shared with
// other work, CPU time per case moves far less than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
