//go:build !unix

package grounding

import "time"

// processCPU is not measured here; the cpu-ms metrics read 0.
func processCPU() time.Duration { return 0 }
