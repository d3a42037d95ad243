#!/bin/sh
# run_pytest.sh KILN_EXE TEST_FILE...: the server's pytest suites, skipped
# (exit 77) with the reason when this build has no server or the Python
# packages are missing.
kiln=$1
shift
if ! "$kiln" serve --help >/dev/null 2>&1; then
  echo "SKIP: this kiln was built without the server (Debian: libmicrohttpd-dev libcjson-dev)"
  exit 77
fi
if ! /usr/bin/python3 -c 'import pytest, requests, onnx, numpy' 2>/dev/null; then
  echo "SKIP: python3-pytest, python3-requests, python3-onnx or python3-numpy is missing"
  exit 77
fi
KILN_EXE=$kiln exec /usr/bin/python3 -m pytest -q -p no:cacheprovider "$@"
