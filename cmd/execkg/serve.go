package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/executablekg/execkg/cdshooks"
)

func init() {
	register(command{name: "serve", summary: "serve CDS Hooks 2.0 services and a page to try cases: execkg serve --addr :8080", run: runServe})
}

func runServe(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("serve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var ef engineFlags
	ef.register(fl)
	addr := fl.String("addr", "localhost:8080", "address to listen on (host:port; :8080 listens on every interface)")
	feedback := fl.String("feedback-log", "cds-feedback.jsonl", "JSON-lines file CDS Hooks feedback is appended to (\"\" keeps none)")
	maxBody := fl.Int64("max-body", 8<<20, "largest request body in bytes")
	timeout := fl.Duration("timeout", 30*time.Second, "time allowed to answer one request (evaluation and FHIR fetches)")
	quiet := fl.Bool("quiet", false, "do not log each request on standard error")
	clientKeys := fl.String("client-jwks", "", "JWK Set file of the trusted CDS clients' public keys: every CDS Hooks call must then carry a JWT signed by one of them (default: no client authentication)")
	clientIss := fl.String("client-iss", "", "comma-separated JWT issuers allowed with --client-jwks (default: any whose key is in the set)")
	publicURL := fl.String("public-url", "", "the service's base URL as clients call it (https://cds.example.org), the JWT audience's prefix; needed with --client-jwks")
	fhirServers := fl.String("fhir-servers", "", "comma-separated FHIR base URLs the service may fetch missing prefetch from (default: any the client names)")
	if code, ok := parseFlags(fl, args, stdout, stderr, `usage: execkg serve [flags]

Serves GET /cds-services (discovery), POST /cds-services/{id} (patient-view,
order-select, order-sign), POST /cds-services/{id}/feedback, GET /healthz,
and a page at / to paste a case text or a FHIR bundle. Stops cleanly on
SIGINT or SIGTERM.`); !ok {
		return code
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "execkg serve: unexpected argument %q\n", fl.Arg(0))
		fl.Usage()
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var auth *cdshooks.ClientAuth
	if *clientKeys != "" {
		var err error
		if auth, err = cdshooks.LoadClientAuth(*clientKeys, strings.Split(*clientIss, ","), *publicURL); err != nil {
			fmt.Fprintln(stderr, "execkg serve:", err)
			return 2
		}
	}
	ef.debug = true // the cards list the data that would change the advice, from the trace
	progs, err := ef.programs(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "execkg serve:", err)
		return 1
	}
	defer ef.close()
	var packs []cdshooks.Pack
	for _, prog := range progs {
		defer prog.Close()
		packs = append(packs, cdshooks.NewPack(prog))
	}
	srv, err := cdshooks.New(cdshooks.Config{
		Packs:       packs,
		FeedbackLog: *feedback, MaxBody: *maxBody, EvalTimeout: *timeout,
		Logger:          log.New(stderr, "execkg serve: ", log.LstdFlags),
		AllowFHIRServer: allowFHIRServers(*fhirServers),
		ClientAuth:      auth,
	})
	if err != nil {
		fmt.Fprintln(stderr, "execkg serve:", err)
		return 1
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "execkg serve:", err)
		return 1
	}
	var handler http.Handler = srv
	if !*quiet {
		handler = accessLog(srv, log.New(stderr, "execkg serve: ", log.LstdFlags))
	}
	hs := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      *timeout + 15*time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	fmt.Fprintf(stdout, "execkg serve: listening on http://%s (discovery at /cds-services, page at /)\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(stderr, "execkg serve:", err)
		return 1
	case <-ctx.Done():
	}
	fmt.Fprintln(stdout, "execkg serve: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		fmt.Fprintln(stderr, "execkg serve: shutdown:", err)
		return 1
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(stderr, "execkg serve:", err)
		return 1
	}
	return 0
}

// allowFHIRServers vets a request's fhirServer against the allowed base
// URLs, so that the service sends a client's token only where it was told
// to; an empty list allows any.
func allowFHIRServers(list string) func(*url.URL) error {
	var allowed []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimRight(strings.TrimSpace(s), "/"); s != "" {
			allowed = append(allowed, s)
		}
	}
	if len(allowed) == 0 {
		return nil
	}
	return func(u *url.URL) error {
		got := strings.TrimRight(u.String(), "/")
		for _, a := range allowed {
			if got == a || strings.HasPrefix(got, a+"/") {
				return nil
			}
		}
		return fmt.Errorf("%s is not a FHIR server this service fetches from (--fhir-servers %s)", got, strings.Join(allowed, ","))
	}
}

// accessLog logs one line per request: method, path, status, bytes, time.
// The body is never logged (it holds patient data).
func accessLog(h http.Handler, l *log.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		l.Printf("%s %s %d %dB %s", r.Method, r.URL.Path, sw.status, sw.n, time.Since(start).Round(time.Millisecond))
	})
}

type statusWriter struct {
	http.ResponseWriter
	status, n int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += n
	return n, err
}
