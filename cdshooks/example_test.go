package cdshooks_test

import (
	"context"
	"log"
	"net/http"
	"time"

	"github.com/executablekg/execkg/cdshooks"
	"github.com/executablekg/execkg/engine"
)

// A CDS Hooks service over the built-in pack, as `execkg serve` runs it:
// discovery at /cds-services, the page at /.
func Example() {
	ctx := context.Background()
	prog, err := engine.NewDefault(ctx, engine.WithTrace(true))
	if err != nil {
		log.Fatal(err)
	}
	defer prog.Close()
	srv, err := cdshooks.New(cdshooks.Config{
		Packs:       []cdshooks.Pack{cdshooks.NewPack(prog)},
		FeedbackLog: "cds-feedback.jsonl",
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	hs := &http.Server{Addr: "localhost:8080", Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	_ = hs // hs.ListenAndServe() serves until hs.Shutdown
}
