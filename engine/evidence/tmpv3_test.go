package evidence

import "testing"

func TestTmpV3(t *testing.T) {
	ps := []string{"high risk of adverse events", "high event risk", "high-risk patient", "high risk of MACE", "high-risk features on testing", "high risk of major adverse cardiovascular events"}
	for _, m := range []string{"High-risk features", "High-risk features: low-attenuation core (<30 HU)"} {
		for _, p := range ps {
			ok, _ := Covers(m, []string{p})
			t.Logf("%q %q %v", m, p, ok)
		}
	}
}
