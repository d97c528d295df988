package embed

import (
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// cacheFormat is bumped whenever the file layout changes; files of another
// format are ignored and rewritten.
const cacheFormat = 1

// Cache wraps an Embedder with an on-disk cache, so a pack's texts are
// embedded once. Entries are keyed by the embedder's Name (which includes
// the model), and the SHA-256 of name and text; one gob file per embedder
// lives in the cache directory and is replaced atomically (temporary file
// + rename) whenever new vectors were added, so a reader never sees a
// half-written file. Concurrent processes may each add entries; the last
// writer wins and the lost entries are simply recomputed next time.
type Cache struct {
	inner Embedder
	dir   string

	mu      sync.Mutex
	loaded  bool
	entries map[string][]float32
	dim     int
	hits    int
	misses  int
}

type cacheFile struct {
	Format   int
	Embedder string
	Dim      int
	Entries  map[string][]float32
}

// NewCache returns a caching wrapper around inner storing under dir.
func NewCache(inner Embedder, dir string) *Cache {
	return &Cache{inner: inner, dir: dir}
}

// Name is the wrapped embedder's name: cached vectors are the same vectors.
func (c *Cache) Name() string { return c.inner.Name() }

// Dim is the wrapped embedder's dimension, or the cached one when the
// embedder only learns it on its first call.
func (c *Cache) Dim() int {
	if d := c.inner.Dim(); d > 0 {
		return d
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dim
}

// Stats returns how many texts were served from the cache and how many
// were computed by the wrapped embedder.
func (c *Cache) Stats() (hits, misses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// Unwrap returns the wrapped embedder.
func (c *Cache) Unwrap() Embedder { return c.inner }

// Path is the cache file of the wrapped embedder.
func (c *Cache) Path() string {
	safe := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, c.inner.Name())
	return filepath.Join(c.dir, safe+".gob")
}

func (c *Cache) key(text string) string {
	h := sha256.Sum256([]byte(c.inner.Name() + "\x00" + text))
	return hex.EncodeToString(h[:])
}

// load reads the cache file once; a missing file is an empty cache, an
// unreadable or foreign one is reported.
func (c *Cache) load() error {
	if c.loaded {
		return nil
	}
	c.entries = map[string][]float32{}
	f, err := os.Open(c.Path())
	if errors.Is(err, fs.ErrNotExist) {
		c.loaded = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("embedding cache: %w", err)
	}
	defer f.Close()
	var cf cacheFile
	if err := gob.NewDecoder(f).Decode(&cf); err != nil {
		return fmt.Errorf("embedding cache %s is unreadable (%v); delete it and it will be rebuilt", c.Path(), err)
	}
	if cf.Format == cacheFormat && cf.Embedder == c.inner.Name() {
		c.entries = cf.Entries
		c.dim = cf.Dim
	}
	c.loaded = true
	return nil
}

// Embed returns cached vectors and computes the missing ones with the
// wrapped embedder (outside the lock, so concurrent callers are not
// serialised on a slow model), then persists the new ones.
func (c *Cache) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	keys := make([]string, len(texts))
	var missing []string
	missIdx := map[string][]int{}

	c.mu.Lock()
	if err := c.load(); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	for i, t := range texts {
		keys[i] = c.key(t)
		if v, ok := c.entries[keys[i]]; ok {
			out[i] = v
			c.hits++
			continue
		}
		if _, pending := missIdx[keys[i]]; !pending {
			missing = append(missing, t)
		}
		missIdx[keys[i]] = append(missIdx[keys[i]], i)
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}

	vecs, err := c.inner.Embed(ctx, missing)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(missing) {
		return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", c.inner.Name(), len(vecs), len(missing))
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	for j, t := range missing {
		k := c.key(t)
		c.entries[k] = vecs[j]
		if c.dim == 0 {
			c.dim = len(vecs[j])
		}
		for _, i := range missIdx[k] {
			out[i] = vecs[j]
			c.misses++
		}
	}
	if err := c.save(); err != nil {
		return nil, err
	}
	return out, nil
}

// save writes the whole cache to a temporary file in the cache directory
// and renames it over the old one.
func (c *Cache) save() error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("embedding cache: create %s: %w", c.dir, err)
	}
	tmp, err := os.CreateTemp(c.dir, ".embed-*.tmp")
	if err != nil {
		return fmt.Errorf("embedding cache: %w", err)
	}
	cf := cacheFile{Format: cacheFormat, Embedder: c.inner.Name(), Dim: c.dim, Entries: c.entries}
	if err := gob.NewEncoder(tmp).Encode(&cf); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("embedding cache: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("embedding cache: write %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), c.Path()); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("embedding cache: replace %s: %w", c.Path(), err)
	}
	return nil
}
