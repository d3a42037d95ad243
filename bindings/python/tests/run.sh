#!/bin/sh
# run.sh PYTHON ARGS...: runs PYTHON ARGS when NumPy (and, for pytest runs,
# pytest) are importable by PYTHON; otherwise skips (exit 77) saying what is
# missing. ctest passes KILN_LIBRARY, KILN_CLI, KILN_SOURCE_DIR, KILN_BUILD_DIR.
py=$1
shift
if ! command -v "$py" >/dev/null 2>&1; then
  echo "SKIP: no Python interpreter ($py)"
  exit 77
fi
if ! "$py" -c "import numpy" >/dev/null 2>&1; then
  echo "SKIP: NumPy is not installed for $py (Debian package python3-numpy)"
  exit 77
fi
if [ "${1:-}" = "-m" ] && [ "${2:-}" = "pytest" ] && ! "$py" -c "import pytest" >/dev/null 2>&1; then
  echo "SKIP: pytest is not installed for $py (Debian package python3-pytest)"
  exit 77
fi
if [ -n "${KILN_LIBRARY:-}" ] && [ ! -e "$KILN_LIBRARY" ]; then
  echo "FAIL: KILN_LIBRARY=$KILN_LIBRARY does not exist (build the kiln target)"
  exit 1
fi
if [ -n "${KILN_PYTHON_PRELOAD:-}" ]; then
  # A sanitizer build: its runtimes must be loaded before libkiln.
  LD_PRELOAD="$KILN_PYTHON_PRELOAD" exec "$py" "$@"
fi
exec "$py" "$@"
