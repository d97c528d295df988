package neo4jtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A second process cannot take the lock while this one holds it, and gets it
// once it is released.
func TestLockExcludesAnotherProcess(t *testing.T) {
	if os.Getenv("NEO4JTEST_CHILD") != "" {
		unlock, err := Lock(os.Getenv("NEO4JTEST_CHILD"))
		if err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString("locked\n")
		unlock()
		return
	}
	uri := "bolt://lock-test-" + t.Name() + "-" + time.Now().Format("150405.000000000")
	t.Cleanup(func() { os.Remove(LockPath(uri)) })
	unlock, err := Lock(uri)
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLockExcludesAnotherProcess$")
	cmd.Env = append(os.Environ(), "NEO4JTEST_CHILD="+uri)
	var out strings.Builder
	cmd.Stdout = &out
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		t.Fatalf("the child took the lock while the parent held it: %q", out.String())
	case <-time.After(500 * time.Millisecond):
	}
	unlock()
	select {
	case err := <-done:
		require.NoError(t, err)
		require.Contains(t, out.String(), "locked")
	case <-time.After(20 * time.Second):
		t.Fatal("the child never got the lock after it was released")
	}
}
