package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// cacheKey identifies one LLM question. InputHash covers everything sent
// (system and user message, schema, options), so an edited prompt that
// forgot to bump its version still misses the cache.
type cacheKey struct {
	Kind          string
	Model         string
	PromptVersion string
	InputHash     string
}

// cacheEntry is one line of the answer cache file.
type cacheEntry struct {
	Kind          string          `json:"kind"`
	Model         string          `json:"model"`
	PromptVersion string          `json:"prompt_version"`
	InputHash     string          `json:"input_hash"`
	CaseHash      string          `json:"case_hash"`
	Time          time.Time       `json:"time"`
	Reply         json.RawMessage `json:"reply"`
}

func (e cacheEntry) key() cacheKey {
	return cacheKey{Kind: e.Kind, Model: e.Model, PromptVersion: e.PromptVersion, InputHash: e.InputHash}
}

// answerCache holds every schema-valid reply. The file is read once when
// the client is made; each new answer is appended as one line and synced
// before it is served, so a crash loses at most the answer being written
// and an interrupted run resumes without repeating answered calls.
type answerCache struct {
	mu      sync.RWMutex
	entries map[cacheKey]json.RawMessage
	file    *appendFile // nil: memory only
	skipped int         // unreadable lines found on load
}

// openCache loads path (missing is empty) and opens it for appending.
// path == "" gives a memory-only cache.
func openCache(path string) (*answerCache, error) {
	c := &answerCache{entries: map[cacheKey]json.RawMessage{}}
	if path == "" {
		return c, nil
	}
	f, err := os.Open(path)
	switch {
	case os.IsNotExist(err):
	case err != nil:
		return nil, fmt.Errorf("llm cache: open %s: %w (set %s to a readable file or leave it empty)", path, err, EnvCache)
	default:
		err := c.load(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("llm cache: read %s: %w", path, err)
		}
	}
	c.file, err = openAppend(path)
	if err != nil {
		return nil, fmt.Errorf("llm cache: %w (set %s to a writable path)", err, EnvCache)
	}
	return c, nil
}

// load reads JSON lines; a line that does not parse (the torn last line of
// an interrupted write, or a stray edit) is skipped, not fatal.
func (c *answerCache) load(r io.Reader) error {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var e cacheEntry
			if json.Unmarshal(line, &e) != nil || e.Kind == "" || e.InputHash == "" || len(e.Reply) == 0 {
				c.skipped++
			} else {
				c.entries[e.key()] = e.Reply // a later line for the same key wins
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (c *answerCache) get(k cacheKey) (json.RawMessage, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.entries[k]
	return r, ok
}

// put writes the entry to disk (when file-backed) and then serves it.
func (c *answerCache) put(e cacheEntry) error {
	if c.file != nil {
		if err := c.file.appendJSON(e); err != nil {
			return fmt.Errorf("llm cache: %w", err)
		}
	}
	c.mu.Lock()
	c.entries[e.key()] = e.Reply
	c.mu.Unlock()
	return nil
}

func (c *answerCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

func (c *answerCache) close() error {
	if c.file == nil {
		return nil
	}
	return c.file.close()
}

// appendFile appends whole JSON lines: one write per line (O_APPEND keeps
// lines of concurrent writers, even other processes, apart) followed by
// fsync, under a mutex for writers in this process.
type appendFile struct {
	mu   sync.Mutex
	path string
	f    *os.File
}

func openAppend(path string) (*appendFile, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", dir, err)
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s for appending: %w", path, err)
	}
	// A torn last line (no newline) would swallow the next entry: end it
	// first, so it stays one unreadable line that load skips.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			if _, err := f.Write([]byte{'\n'}); err != nil {
				f.Close()
				return nil, fmt.Errorf("end torn last line of %s: %w", path, err)
			}
		}
	}
	return &appendFile{path: path, f: f}, nil
}

func (a *appendFile) appendJSON(v any) error {
	b, err := marshalPlain(v)
	if err != nil {
		return fmt.Errorf("encode line for %s: %w", a.path, err)
	}
	b = append(b, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return fmt.Errorf("append to %s: file is closed", a.path)
	}
	if _, err := a.f.Write(b); err != nil {
		return fmt.Errorf("append to %s: %w", a.path, err)
	}
	if err := a.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", a.path, err)
	}
	return nil
}

func (a *appendFile) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	return err
}

// failEntry is one line of the failure log.
type failEntry struct {
	Time          time.Time `json:"time"`
	Kind          string    `json:"kind"`
	Model         string    `json:"model"`
	Host          string    `json:"host"`
	PromptVersion string    `json:"prompt_version"`
	CaseHash      string    `json:"case_hash"`
	Finding       string    `json:"finding,omitempty"`
	Attempts      int       `json:"attempts,omitempty"`
	Error         string    `json:"error"`
	// Fallback says what the lenient mode used instead; empty in strict
	// mode, where the case failed.
	Fallback string `json:"fallback,omitempty"`
}
