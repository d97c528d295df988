package engine_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/eval"
)

// Build once, answer many: the library use of a decision-support app.
func Example() {
	ctx := context.Background()
	prog, err := engine.NewDefault(ctx)
	if err != nil {
		panic(err)
	}
	defer prog.Close()

	res, err := prog.Ask(ctx, "c1", "Patient with decompensated heart failure and an eGFR of 24 mL/min/1.73 m².")
	if err != nil {
		panic(err)
	}
	for _, rec := range res.Recommendations {
		fmt.Printf("%s %s/%s %s\n", rec.RowID, rec.Class, rec.Level, rec.Direction)
		for _, c := range rec.FiredBy {
			fmt.Println("  because", strings.TrimSpace(c.Concept+" "+c.Operator+" "+c.Threshold+" "+c.Unit))
		}
	}
	// Output:
	// table_08.json::row_2 III/C NEGATIVE
	//   because decompensated heart failure PRESENT
	//   because estimated glomerular filtration rate < 30 mL/min/1.73 m2
}

// Coded data, no text: evidence matched by concept name or SNOMED CT key.
func ExampleProgram_Evaluate() {
	ctx := context.Background()
	prog, err := engine.NewDefault(ctx)
	if err != nil {
		panic(err)
	}
	defer prog.Close()
	ldl := 2.0
	res, err := prog.Evaluate(ctx, "c2", []eval.Evidence{
		{Concept: "chronic coronary syndrome", Present: true},
		{Concept: "maximum tolerated statin therapy", Present: true},
		{Concept: "ezetimibe", ConceptKey: "sct:409149001", Present: true},
		{Concept: "low-density lipoprotein cholesterol", Present: true, Value: &ldl, Unit: "mmol/L"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(res.PredictedRowIDs) > 0, contains(res.PredictedRowIDs, "table_18.json::row_4"))
	// Output: true true
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
