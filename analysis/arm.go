package analysis

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/vignettes"
)

// Arm is one system under comparison: it answers every vignette with one
// engine.Result (only case_id, predicted_row_ids and error are scored; a
// trace, when present, feeds the error analysis, re-scoring and coverage).
type Arm interface {
	Name() string
	Predict(ctx context.Context, cases []vignettes.Vignette) ([]engine.Result, error)
}

// Asker is what the query pipeline offers (engine.Program satisfies it).
type Asker interface {
	Ask(ctx context.Context, caseID, text string, opts ...engine.EvalOption) (*engine.Result, error)
}

// AskerArm runs a pipeline on the vignette texts. A case whose Ask fails
// is kept as a failed result (error set, empty output), as the reference
// system scored failed vignettes; a cancelled context stops the run.
type AskerArm struct {
	ArmName string
	Asker   Asker
	// Workers asks this many cases at once (default 1).
	Workers int
}

// Name is the arm's label.
func (a *AskerArm) Name() string { return a.ArmName }

// Predict asks every vignette and returns results in vignette order.
func (a *AskerArm) Predict(ctx context.Context, cases []vignettes.Vignette) ([]engine.Result, error) {
	cs := make([]Case, len(cases))
	for i, v := range cases {
		cs[i] = Case{ID: v.CaseID, Text: v.Question}
	}
	out, err := AskAll(ctx, a.Asker, cs, a.Workers)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].CaseID != cases[i].CaseID {
			return nil, fmt.Errorf("arm %s answered case %q for %s", a.ArmName, out[i].CaseID, cases[i].CaseID)
		}
	}
	return out, nil
}

// Case is one text to answer, as of Date when it is set.
type Case struct {
	ID, Text string
	Date     time.Time
	// Bundle, when set, is a FHIR R4 Bundle answered instead of Text.
	Bundle []byte
}

// FHIRAsker answers a FHIR R4 Bundle (engine.Program.AskFHIR).
type FHIRAsker interface {
	AskFHIR(ctx context.Context, caseID string, bundle []byte, opts ...engine.EvalOption) (*engine.Result, error)
}

// DatedAsker answers a case as of its date (engine.Program.AskOn).
type DatedAsker interface {
	AskOn(ctx context.Context, caseID, text string, date time.Time, opts ...engine.EvalOption) (*engine.Result, error)
}

// AskAll answers cases on workers goroutines, results in case order; a
// case whose Ask fails is kept as a failed result (error set, empty
// output); a dated case goes to AskOn when the asker has it. A cancelled
// context stops the run.
func AskAll(ctx context.Context, a Asker, cases []Case, workers int) ([]engine.Result, error) {
	out := make([]engine.Result, len(cases))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				c := cases[i]
				var res *engine.Result
				var err error
				if len(c.Bundle) > 0 {
					fa, ok := a.(FHIRAsker)
					if !ok {
						err = fmt.Errorf("case %s is a FHIR bundle and this pipeline reads text only", c.ID)
					} else if c.Date.IsZero() {
						res, err = fa.AskFHIR(ctx, c.ID, c.Bundle)
					} else {
						res, err = fa.AskFHIR(ctx, c.ID, c.Bundle, engine.EvalDate(c.Date))
					}
				} else if da, ok := a.(DatedAsker); ok && !c.Date.IsZero() {
					res, err = da.AskOn(ctx, c.ID, c.Text, c.Date)
				} else {
					res, err = a.Ask(ctx, c.ID, c.Text)
				}
				switch {
				case err != nil:
					out[i] = engine.Result{CaseID: c.ID, Question: c.Text, PredictedRowIDs: []string{}, Error: err.Error()}
				case res == nil:
					out[i] = engine.Result{CaseID: c.ID, Question: c.Text, PredictedRowIDs: []string{}, Error: "pipeline returned no result"}
				default:
					out[i] = *res
					if out[i].CaseID == "" {
						out[i].CaseID = c.ID
					}
				}
			}
		}()
	}
	for i := range cases {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// FileArm replays stored predictions (a prediction file).
type FileArm struct {
	ArmName string
	Path    string
}

// Name is the arm's label.
func (f *FileArm) Name() string { return f.ArmName }

// Predict reads the file; cases it lacks are scored as failed.
func (f *FileArm) Predict(context.Context, []vignettes.Vignette) ([]engine.Result, error) {
	return ReadPredictions(f.Path)
}
