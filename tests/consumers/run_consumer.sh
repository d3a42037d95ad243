#!/bin/bash
# The ctests consumer_c, consumer_go, consumer_java, consumer_node,
# consumer_python and consumer_web: README.md's "Install and use from your
# own project" followed as written, for one language, from an empty folder
# outside the repository.
#
#   run_consumer.sh LANG BUILD_DIR SOURCE_DIR     (LANG: c go java node python web)
#
# The commands are not copied here: they are read from README.md between
# <!-- consumer:LANG:package --> and <!-- consumer:LANG:project --> markers
# (and their closing <!-- /consumer:... -->), so a README that drifts fails
# the test. The package block runs in the checkout, the project block in the
# new folder after the program (tests/consumers/programs/) is put there. The
# program prints "FILE CLASS" per digit sample; every sample must be there and
# each class must be what the C example (BUILD/examples/c/classify_digits)
# prints, which is also at least 19 of the 20 labels.
#
# The README's folders are set here: KILN_SRC is the checkout, KILN_BUILD the
# build (already built by ctest's caller; the package commands only reuse it)
# and KILN_PREFIX a temporary install prefix. Exit 77 (skip) only when the
# language's toolchain is not installed.
set -euo pipefail
if [[ $# -ne 3 ]]; then
  echo "usage: $0 c|go|java|node|python|web BUILD_DIR SOURCE_DIR" >&2
  exit 2
fi
lang=$1
build=$(cd "$2" && pwd)
src=$(cd "$3" && pwd)
here=$src/tests/consumers
programs=$here/programs

fail() { echo "FAIL (consumer_$lang): $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
need() { command -v "$1" > /dev/null 2>&1 || skip "$1 not found (Debian package $2)"; }

case $lang in
  c) need cc gcc; need pkg-config pkg-config; program=app.c ;;
  go) need go golang-go; need pkg-config pkg-config; program=main.go ;;
  java) need javac default-jdk-headless; need java default-jdk-headless; program=App.java ;;
  node) need node nodejs; need npm npm
        [[ -f /usr/include/node/node_api.h ]] || skip "Node-API headers /usr/include/node/node_api.h missing (Debian package nodejs)"
        program=app.mjs ;;
  python) [[ -x /usr/bin/python3 ]] || skip "/usr/bin/python3 not found (Debian package python3)"
          /usr/bin/python3 -c 'import venv, ensurepip' 2> /dev/null ||
            skip "python3 cannot make virtual environments (Debian package python3-venv)"
          /usr/bin/python3 -c 'import numpy, setuptools, wheel' 2> /dev/null ||
            skip "python3-numpy, python3-setuptools or python3-wheel missing"
          program=app.py ;;
  web) need emcc emscripten; need node nodejs; need npm npm
       [[ -x ${KILN_CHROMIUM:-/usr/bin/chromium} ]] || skip "chromium not found (Debian package chromium)"
       # Chromium is driven with playwright-core, as wasm_browser does.
       if [[ ! -d $src/wasm/browser/node_modules/playwright-core ]]; then
         echo "installing playwright-core into wasm/browser/node_modules (npm ci --ignore-scripts; no browser download)"
         (cd "$src/wasm/browser" && npm ci --ignore-scripts --omit=optional --no-audit --no-fund > /dev/null) ||
           skip "playwright-core is not installed and npm ci failed (run: cd wasm/browser && npm ci --ignore-scripts)"
       fi
       program=index.html ;;
  *) echo "run_consumer.sh: unknown language '$lang'" >&2; exit 2 ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/kiln-consumer-$lang.XXXXXX")
trap 'rm -rf "$work"' EXIT
case $work/ in "$src"/*) fail "the temporary folder $work is inside the repository";; esac
project=$work/project
mkdir -p "$project" "$work/prefix" "$work/home"

# The shell lines of README block NAME (the fenced lines between its markers).
readme_block() {
  awk -v first="<!-- consumer:$lang:$1 -->" -v last="<!-- /consumer:$lang:$1 -->" '
    $0 == first { inside = 1; next }
    $0 == last { inside = 0; next }
    inside && /^```/ { fenced = !fenced; next }
    inside && fenced { print }' "$src/README.md"
}
for block in package project; do
  readme_block "$block" > "$work/$block.sh"
  [[ -s $work/$block.sh ]] || fail "README.md has no <!-- consumer:$lang:$block --> block"
done

export KILN_SRC=$src KILN_BUILD=$build KILN_PREFIX=$work/prefix
# A private HOME keeps npm, pip and Go from reading or writing the user's
# settings. Go's build cache is this run's own too: one kept in the build
# tree reused a cgo build of the binding linked against an earlier run's
# (deleted) install prefix ("cannot find -lkiln"), and Debian's Go ships its
# standard library compiled, so a fresh cache costs about a second.
export HOME=$work/home
export GOCACHE=$work/gocache GOPATH=$work/gopath GOPROXY=off GOFLAGS=
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
export npm_config_cache=$work/npm-cache
unset PKG_CONFIG_PATH LD_LIBRARY_PATH KILN_LIBRARY KILN_NODE_ADDON PYTHONPATH CGO_CFLAGS CGO_LDFLAGS
if [[ $lang == python ]]; then
  # Debian's python3 (with python3-numpy) is the README's python3; a pyenv or
  # venv interpreter earlier on PATH may have no NumPy.
  mkdir -p "$work/bin" && ln -s /usr/bin/python3 "$work/bin/python3"
  export PATH=$work/bin:$PATH
fi

echo "== README consumer:$lang:package (in $src)"
cat "$work/package.sh"
(cd "$src" && bash -euo pipefail "$work/package.sh") || fail "the README's package commands failed"

cp "$programs/$program" "$project/"
echo "== README consumer:$lang:project (in $project)"
cat "$work/project.sh"
(cd "$project" && bash -euo pipefail "$work/project.sh") > "$work/out.txt" ||
  { cat "$work/out.txt"; fail "the README's project commands failed"; }
if [[ $lang == web ]]; then
  # The README's block installs the package; a page needs a browser.
  node "$here/web_page_check.mjs" "$project" "$src/examples/digits/samples" > "$work/out.txt" ||
    { cat "$work/out.txt"; fail "the page in headless Chromium failed"; }
fi
cat "$work/out.txt"

# Compare with the labels in the file names and with the C example.
grep -E '^digit_[0-9]+_label_[0-9]\.pb [0-9]$' "$work/out.txt" | sort > "$work/got.txt" || true
expected_count=$(find "$src/examples/digits/samples" -name '*.pb' | wc -l)
got_count=$(wc -l < "$work/got.txt")
[[ $got_count -eq $expected_count ]] ||
  fail "the program classified $got_count samples, the folder has $expected_count"
right=$(awk '{ label = $1; sub(/.*_label_/, "", label); sub(/\.pb$/, "", label); if (label == $2) n++ }
             END { print n + 0 }' "$work/got.txt")
classify=$build/examples/c/classify_digits
[[ -x $classify ]] || fail "$classify is not built (the C example is the reference)"
"$classify" "$src/examples/digits/digits.onnx" "$src/examples/digits/samples" |
  sed -nE 's/^(digit_[0-9]+_label_[0-9]\.pb):? (predicted )?([0-9]).*/\1 \3/p' | sort > "$work/want.txt"
[[ -s $work/want.txt ]] || fail "no predictions parsed from $classify"
diff "$work/want.txt" "$work/got.txt" > "$work/diff.txt" ||
  { cat "$work/diff.txt"; fail "predictions differ from the C example (< C example, > $lang)"; }
((right * 20 >= expected_count * 19)) || fail "only $right of $expected_count samples match their labels"
echo "consumer_$lang: $right/$expected_count digits right, the same classes as the C example"
