#!/bin/sh
# run.sh ARGS...: runs node with ARGS when Node and its Node-API headers are
# there and the module is built; otherwise skips (exit 77) saying what is
# missing. ctest passes KILN_NODE_EXE, KILN_NODE_INCLUDE and KILN_NODE_ADDON.
node=${KILN_NODE_EXE:-node}
if ! command -v "$node" >/dev/null 2>&1; then
  echo "SKIP: node is not installed (Debian package nodejs, version 20 or later)"
  exit 77
fi
if [ ! -f "${KILN_NODE_INCLUDE:-/usr/include/node}/node_api.h" ]; then
  echo "SKIP: Node-API headers (/usr/include/node/node_api.h) are missing; they come with nodejs"
  exit 77
fi
if [ ! -f "${KILN_NODE_ADDON:-}" ]; then
  echo "FAIL: the native module was not built (KILN_NODE_ADDON=${KILN_NODE_ADDON:-unset})"
  exit 1
fi
if [ -n "${KILN_NODE_PRELOAD:-}" ]; then
  # A sanitizer build: its runtimes must be loaded before the module.
  LD_PRELOAD="$KILN_NODE_PRELOAD" exec "$node" "$@"
fi
exec "$node" "$@"
