package evidence

import "sync"

// phraseCache holds each phrase's content words and acronyms. The phrases
// covers reads are a pack's concept phrases, few and read again for every
// finding of every case, so each is read once (per process). Both values
// are only read afterwards.
var phraseCache sync.Map // string → phraseInfo

type phraseInfo struct {
	words    []string
	acronyms map[string]bool
}

// phraseWords returns contentWords(p) and acronyms(p).
func phraseWords(p string) ([]string, map[string]bool) {
	if v, ok := phraseCache.Load(p); ok {
		pi := v.(phraseInfo)
		return pi.words, pi.acronyms
	}
	pi := phraseInfo{words: contentWords(p), acronyms: acronyms(p)}
	phraseCache.Store(p, pi)
	return pi.words, pi.acronyms
}
