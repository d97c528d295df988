"""medspaCy's ConText on the rows of `execkg context-bench`.

Reads JSON lines {"text": ..., "target": ...} on standard input and writes
one line per row: {"found", "negated", "uncertain", "hypothetical",
"experiencer"}, then a last line {"done": true, "seconds": ..., "rows": ...,
"medspacy": version}. The target span is the first case-insensitive
occurrence of the target in the text, marked as the document's only entity;
medspaCy's own pipeline (PyRuSH sentences, default ConText rules) does the
rest. Seconds count the pipeline and ConText calls only, not loading.
"""

import json
import os
import sys
import time

os.environ.setdefault("LOGURU_LEVEL", "WARNING")  # PyRuSH logs every token at DEBUG

try:
    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level="WARNING")
except ImportError:
    pass

import medspacy  # noqa: E402


def main():
    rows = [json.loads(line) for line in sys.stdin if line.strip()]
    nlp = medspacy.load()
    context = nlp.get_pipe("medspacy_context")
    # Components before ConText (sentence splitting; the target matcher
    # has no rules and finds nothing).
    before = [(name, pipe) for name, pipe in nlp.pipeline if name != "medspacy_context"]
    out = []
    t0 = time.perf_counter()
    for r in rows:
        text, target = r["text"], r["target"]
        doc = nlp.make_doc(text)
        for _, pipe in before:
            doc = pipe(doc)
        i = text.lower().find(target.lower())
        span = doc.char_span(i, i + len(target), label="TARGET", alignment_mode="expand") if i >= 0 else None
        if span is None:
            out.append({"found": False, "negated": False, "uncertain": False, "hypothetical": False, "experiencer": "patient"})
            continue
        doc.ents = [span]
        doc = context(doc)
        e = doc.ents[0]
        out.append({
            "found": True,
            "negated": bool(e._.is_negated),
            "uncertain": bool(e._.is_uncertain),
            "hypothetical": bool(e._.is_hypothetical),
            "experiencer": "other" if e._.is_family else "patient",
        })
    seconds = time.perf_counter() - t0
    w = sys.stdout
    for o in out:
        w.write(json.dumps(o) + "\n")
    w.write(json.dumps({"done": True, "seconds": seconds, "rows": len(rows), "medspacy": getattr(medspacy, "__version__", "?")}) + "\n")


if __name__ == "__main__":
    main()
