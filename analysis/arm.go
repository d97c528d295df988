package analysis

import (
	"context"
	"fmt"
	"sync"

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
	Ask(ctx context.Context, caseID, text string) (*engine.Result, error)
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
	out := make([]engine.Result, len(cases))
	w := max(a.Workers, 1)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				v := cases[i]
				res, err := a.Asker.Ask(ctx, v.CaseID, v.Question)
				switch {
				case err != nil:
					out[i] = engine.Result{CaseID: v.CaseID, Question: v.Question, PredictedRowIDs: []string{}, Error: err.Error()}
				case res == nil:
					out[i] = engine.Result{CaseID: v.CaseID, Question: v.Question, PredictedRowIDs: []string{}, Error: "pipeline returned no result"}
				default:
					out[i] = *res
					if out[i].CaseID == "" {
						out[i].CaseID = v.CaseID
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
	for i := range out {
		if out[i].CaseID != cases[i].CaseID {
			return nil, fmt.Errorf("arm %s answered case %q for %s", a.ArmName, out[i].CaseID, cases[i].CaseID)
		}
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
