package eval

import (
	"encoding/json"
	"testing"
)

var all = []Truth{Unknown, False, True}

// The Kleene truth tables, written out rather than derived, so a mistake in
// And/Or cannot hide behind the same mistake in the test.
func TestKleeneTables(t *testing.T) {
	const U, F, T = Unknown, False, True
	and := map[[2]Truth]Truth{
		{T, T}: T, {T, U}: U, {T, F}: F,
		{U, T}: U, {U, U}: U, {U, F}: F,
		{F, T}: F, {F, U}: F, {F, F}: F,
	}
	or := map[[2]Truth]Truth{
		{T, T}: T, {T, U}: T, {T, F}: T,
		{U, T}: T, {U, U}: U, {U, F}: U,
		{F, T}: T, {F, U}: U, {F, F}: F,
	}
	not := map[Truth]Truth{T: F, F: T, U: U}
	for _, a := range all {
		if got := Not(a); got != not[a] {
			t.Errorf("Not(%v) = %v, want %v", a, got, not[a])
		}
		for _, b := range all {
			if got := And(a, b); got != and[[2]Truth{a, b}] {
				t.Errorf("And(%v, %v) = %v, want %v", a, b, got, and[[2]Truth{a, b}])
			}
			if got := Or(a, b); got != or[[2]Truth{a, b}] {
				t.Errorf("Or(%v, %v) = %v, want %v", a, b, got, or[[2]Truth{a, b}])
			}
		}
	}
	if And() != T || Or() != F {
		t.Errorf("empty And = %v (want true), empty Or = %v (want false)", And(), Or())
	}
}

// Variadic forms must agree with folding the binary table, and De Morgan
// must hold, over every triple.
func TestKleeneLaws(t *testing.T) {
	for _, a := range all {
		for _, b := range all {
			for _, c := range all {
				if And(a, b, c) != And(And(a, b), c) {
					t.Errorf("And(%v,%v,%v) not associative", a, b, c)
				}
				if Or(a, b, c) != Or(Or(a, b), c) {
					t.Errorf("Or(%v,%v,%v) not associative", a, b, c)
				}
			}
			if Not(And(a, b)) != Or(Not(a), Not(b)) {
				t.Errorf("De Morgan fails for And(%v,%v)", a, b)
			}
			if Not(Or(a, b)) != And(Not(a), Not(b)) {
				t.Errorf("De Morgan fails for Or(%v,%v)", a, b)
			}
		}
	}
}

func TestTruthStringJSON(t *testing.T) {
	want := map[Truth]string{True: "true", False: "false", Unknown: "unknown"}
	for tv, s := range want {
		if tv.String() != s {
			t.Errorf("%d.String() = %q, want %q", int8(tv), tv.String(), s)
		}
		b, err := json.Marshal(tv)
		if err != nil || string(b) != `"`+s+`"` {
			t.Errorf("json.Marshal(%v) = %s, %v", tv, b, err)
		}
		var back Truth
		if err := json.Unmarshal(b, &back); err != nil || back != tv {
			t.Errorf("round trip %s = %v, %v", b, back, err)
		}
	}
	var x Truth
	if err := json.Unmarshal([]byte(`"maybe"`), &x); err == nil {
		t.Error(`unmarshal "maybe" succeeded, want error`)
	}
	if _, err := json.Marshal(Truth(7)); err == nil {
		t.Error("marshal Truth(7) succeeded, want error")
	}
	if Of(true) != True || Of(false) != False {
		t.Error("Of(bool) wrong")
	}
	var zero Truth
	if zero != Unknown {
		t.Error("zero Truth must be Unknown")
	}
}
