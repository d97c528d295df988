package neo4jtest

import "testing"

// A fuzz worker is recognised from the flags go test gives it, so Main
// never makes it wait for the lock its parent holds.
func TestFuzzWorker(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"-test.fuzzworker", "-test.paniconexit0", "-test.fuzzcachedir=/tmp/x"}, true},
		{[]string{"-test.paniconexit0", "-test.fuzzworker=true"}, true},
		{[]string{"-test.run", "^TestX$", "-test.fuzz", "FuzzAsk"}, false},
		{[]string{"-test.v=true"}, false},
		{nil, false},
	} {
		if got := fuzzWorker(c.args); got != c.want {
			t.Errorf("fuzzWorker(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
