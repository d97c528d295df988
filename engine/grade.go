package engine

import "github.com/executablekg/execkg/rules"

// gradeTerm is the pack's own words for a row's grade (its
// meta/grading.json term and note) for packs whose scheme is not
// rules.DefaultGrading, the one the output's class and level fields are
// named after; for that scheme the fields say it already, and the output
// stays as it was.
func (p *Program) gradeTerm(class, level string) string {
	sc := p.pack.Scheme()
	if sc.Scheme == rules.DefaultGrading.Scheme {
		return ""
	}
	return sc.Label(class, level)
}
