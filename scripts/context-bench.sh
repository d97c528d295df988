#!/usr/bin/env bash
# Side-by-side ConText benchmark: execkg's analyser and medspaCy's ConText
# (default rules) on the same annotated rows, per-label P/R/F1 and
# sentences per second (execkg context-bench).
#
#   scripts/context-bench.sh [context-bench flags] [CORPUS.jsonl ...]
#
# medspaCy is installed from PyPI into a virtual environment the first
# time (.cache/medspacy-venv, or $EXECKG_MEDSPACY_VENV); where it cannot be
# installed the benchmark runs execkg alone and says why medspaCy was
# skipped. The default corpus is the development half; measure the
# held-out half sparingly and log it:
#
#   scripts/context-bench.sh --log engine/consistency/testdata/corpus/MEASUREMENTS.md \
#       engine/consistency/testdata/corpus/heldout.jsonl
set -u
cd "$(dirname "$0")/.." || exit 2

MEDSPACY_VERSION="${EXECKG_MEDSPACY_VERSION:-1.3.1}"
VENV="${EXECKG_MEDSPACY_VENV:-$PWD/.cache/medspacy-venv}"
PY=""
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import medspacy" 2>/dev/null; then
	PY="$VENV/bin/python"
elif ! command -v python3 >/dev/null 2>&1; then
	echo "context-bench: no python3 on PATH; medspaCy skipped" >&2
else
	echo "context-bench: installing medspacy==$MEDSPACY_VERSION into $VENV (first run only)" >&2
	if python3 -m venv "$VENV" >&2 &&
		"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "medspacy==$MEDSPACY_VERSION" >&2 &&
		"$VENV/bin/python" -c "import medspacy" >&2; then
		PY="$VENV/bin/python"
	else
		echo "context-bench: could not install medspaCy (see above: python3-venv missing, or PyPI unreachable?); medspaCy skipped" >&2
	fi
fi
exec go run ./cmd/execkg context-bench --python "$PY" "$@"
