#!/bin/bash
# Prints the raw and gzip -9 sizes of .wasm files.
for f in "$@"; do
  raw=$(stat -c %s "$f")
  gz=$(gzip -9 -c "$f" | wc -c)
  awk -v n="$(basename "$f")" -v r="$raw" -v g="$gz" \
    'BEGIN { printf "%s: %d bytes (%.2f MiB), gzip -9: %d bytes (%.2f MiB)\n", n, r, r / 1048576, g, g / 1048576 }'
done
