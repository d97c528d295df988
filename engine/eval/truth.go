package eval

import "fmt"

// Truth is a three-valued (Kleene) truth value. The zero value is Unknown,
// so a result nobody decided never reads as false.
type Truth int8

const (
	Unknown Truth = iota
	False
	True
)

// String returns "true", "false" or "unknown".
func (t Truth) String() string {
	switch t {
	case True:
		return "true"
	case False:
		return "false"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("Truth(%d)", int8(t))
}

// MarshalText writes the String form, so JSON holds "true"/"false"/"unknown".
func (t Truth) MarshalText() ([]byte, error) {
	switch t {
	case True, False, Unknown:
		return []byte(t.String()), nil
	}
	return nil, fmt.Errorf("eval: invalid truth value %d", int8(t))
}

// UnmarshalText reads "true", "false" or "unknown".
func (t *Truth) UnmarshalText(b []byte) error {
	switch string(b) {
	case "true":
		*t = True
	case "false":
		*t = False
	case "unknown":
		*t = Unknown
	default:
		return fmt.Errorf("eval: truth value %q: want true, false or unknown", b)
	}
	return nil
}

// Of converts a bool.
func Of(b bool) Truth {
	if b {
		return True
	}
	return False
}

// Not is Kleene negation: unknown stays unknown.
func Not(t Truth) Truth {
	switch t {
	case True:
		return False
	case False:
		return True
	}
	return Unknown
}

// And is Kleene conjunction: false if any is false, else unknown if any is
// unknown, else true. And() is true (the empty conjunction).
func And(ts ...Truth) Truth {
	out := True
	for _, t := range ts {
		switch t {
		case False:
			return False
		case Unknown:
			out = Unknown
		}
	}
	return out
}

// Or is Kleene disjunction: true if any is true, else unknown if any is
// unknown, else false. Or() is false (the empty disjunction).
func Or(ts ...Truth) Truth {
	out := False
	for _, t := range ts {
		switch t {
		case True:
			return True
		case Unknown:
			out = Unknown
		}
	}
	return out
}
