#!/usr/bin/env bash
# ABI guard: compares a built libkiln.so with the committed baseline.
#
#   capi/abi/check_abi.sh BUILD_DIR            check (exit 0 = compatible)
#   capi/abi/check_abi.sh --update BUILD_DIR   rewrite the baseline (a release
#                                              decision: commit it on purpose)
#
# Two baselines, both append-only:
#   kiln.abi        libabigail's view of every exported kiln_* function and
#                   the public types they use (abidw, types of capi/kiln.h only)
#   constants.txt   every "#define KILN_* <integer>" of capi/kiln.h: status
#                   codes, dtypes and option keys are fixed forever
#
# Passes when functions or constants were only added. Fails when a function
# was removed or its signature (or a public type it reaches) changed, when a
# constant was removed or renumbered, or when the tools fail.
#
# Why --header-file capi/kiln.h and not --headers-dir capi: capi/ also holds
# api_internal.h, which defines the opaque handle structs. Their layout is
# private (callers only hold pointers), so a new field in struct
# kiln_session must not count as an ABI change.
#
# abidiff's exit status is a bit set: 1 tool error, 2 usage error, 4 some
# ABI change, 8 an incompatible change. Only removed symbols (and soname or
# architecture changes) set 8; a changed parameter type of a C function sets
# just 4, and so do added functions. So on 4 the report's summary lines
# decide: any "Removed" or "Changed" count above zero fails, "Added" passes.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
update=0
if [ "${1:-}" = "--update" ]; then
    update=1
    shift
fi
build=${1:?usage: check_abi.sh [--update] BUILD_DIR}
lib=$build/libkiln.so
header=$src/capi/kiln.h
baseline=$here/kiln.abi
consts=$here/constants.txt

fail() {
    echo "ABI check: FAIL: $*"
    exit 1
}

for tool in abidw abidiff readelf; do
    command -v "$tool" >/dev/null 2>&1 ||
        fail "$tool is missing (Debian packages abigail-tools, binutils)"
done
[ -e "$lib" ] || fail "no library at $lib"
readelf -S "$lib" 2>/dev/null | grep -q '\.debug_info' ||
    fail "$lib has no debug information: build with -g (CMAKE_BUILD_TYPE RelWithDebInfo or Debug)"

public_constants() {
    # "#define KILN_NAME 123" -> "KILN_NAME 123", sorted by name.
    sed -nE 's/^#define (KILN_[A-Z0-9_]+)[[:space:]]+(-?[0-9]+)([[:space:]].*)?$/\1 \2/p' "$header" |
        LC_ALL=C sort
}

if [ "$update" = 1 ]; then
    abidw --header-file "$header" --drop-private-types --no-corpus-path \
        --out-file "$baseline" "$lib" || fail "abidw failed"
    public_constants >"$consts"
    echo "ABI baseline updated: $baseline ($(grep -c '<elf-symbol ' "$baseline") symbols)," \
        "$consts ($(wc -l <"$consts") constants)"
    exit 0
fi

[ -f "$baseline" ] || fail "no baseline at $baseline (create it with --update)"
[ -f "$consts" ] || fail "no constants baseline at $consts (create it with --update)"

report=$(mktemp)
trap 'rm -f "$report"' EXIT
abidiff --hf1 "$header" --hf2 "$header" "$baseline" "$lib" >"$report" 2>&1
rc=$?
status=ok
why=""
if [ $((rc & 3)) -ne 0 ]; then
    status=fail
    why="abidiff failed (exit $rc)"
elif [ $((rc & 8)) -ne 0 ]; then
    status=fail
    why="incompatible change (abidiff exit $rc: removed symbol, soname or architecture)"
elif [ $((rc & 4)) -ne 0 ]; then
    # Every "<N> Removed" / "<N> Changed" count in the summary lines.
    bad=$(grep 'changes summary' "$report" | grep -oE '[0-9]+ (Removed|Changed)' |
        awk '$1 > 0' | tr '\n' ' ')
    if [ -n "$bad" ]; then
        status=fail
        why="changed or removed interface (abidiff exit $rc: $bad)"
    fi
fi

# Constants: every baseline line must still be there, unchanged.
missing=$(LC_ALL=C comm -23 <(LC_ALL=C sort "$consts") <(public_constants) | tr '\n' ';')
if [ -n "$missing" ]; then
    status=fail
    why="${why:+$why; }constants removed or renumbered: $missing"
fi
added_consts=$(LC_ALL=C comm -13 <(LC_ALL=C sort "$consts") <(public_constants) | wc -l)

summary=$(grep 'changes summary' "$report" | sed 's/^/  /')
if [ "$status" = ok ]; then
    echo "ABI check: OK (abidiff exit $rc, $added_consts new constants)"
    [ -n "$summary" ] && echo "$summary"
    exit 0
fi
cat "$report"
fail "$why"
