#!/usr/bin/env bash
# The README's two commands share build/, so each must leave it fit for the
# other. In a fresh copy of this tree (its tracked files and untracked files
# git does not ignore), this runs the demo and then the test command's
# configuration, and in another copy the same two the other way round. Both
# orders must end with the full test count registered in build/ (argument 1:
# the count of the main build) and the demo classifying all its samples;
# after the demo-first order a suite is also built and run from build/, as
# the reliability step does.
#   usage: scripts/check_command_order.sh EXPECTED_TEST_COUNT
set -euo pipefail
cd "$(dirname "$0")/.."
expected=${1:?usage: check_command_order.sh EXPECTED_TEST_COUNT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fresh_copy() { # fresh_copy DIR
    mkdir -p "$1"
    git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
        [ -e "$f" ] && printf '%s\0' "$f"
    done | tar --null -T - -cf - | tar -xf - -C "$1"
}

demo() { # demo DIR: the README's first command; fails unless every sample is right
    local out
    out=$("$1/scripts/demo.sh" 2>&1) || { echo "$out" | tail -20; return 1; }
    echo "$out" | grep -E '^accuracy: ([0-9]+)/\1$' ||
        { echo "$out" | tail -20; echo "order check: the demo did not classify every sample"; return 1; }
}

configure_tests() { "$1/scripts/test.sh" --configure-only >"$work/configure.log" 2>&1 ||
                    { tail -20 "$work/configure.log"; return 1; }; }

count_tests() { # count_tests DIR ORDER
    local n
    n=$(ctest --test-dir "$1/build" -N --no-tests=error | sed -n 's/^Total Tests: //p')
    if [ "$n" != "$expected" ]; then
        echo "FAIL order check ($2): build/ registers ${n:-no} tests, the test command's build has $expected"
        return 1
    fi
    echo "PASS order check ($2): $n tests registered"
}

fresh_copy "$work/a"
demo "$work/a"
configure_tests "$work/a"
count_tests "$work/a" "demo, then test"
cmake --build "$work/a/build" -j "$(nproc)" --target test_api >"$work/a-build.log" 2>&1 ||
    { tail -20 "$work/a-build.log"; exit 1; }
ctest --test-dir "$work/a/build" --no-tests=error -R '^test_api$' | tail -3

fresh_copy "$work/b"
configure_tests "$work/b"
demo "$work/b"
count_tests "$work/b" "test, then demo"
