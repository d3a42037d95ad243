#!/bin/sh
# Checks of the Go binding, run by ctest (bindings/go/CMakeLists.txt sets the
# environment: GOFLAGS, GOCACHE, PKG_CONFIG_PATH and an rpath for the built
# libkiln, KILN_SOURCE_DIR, KILN_CLI, KILN_MODELS_DIR).
#
#   run_tests.sh binding    gofmt, go vet, go test -race of bindings/go
#   run_tests.sh example    the same for examples/go (a separate module)
#   run_tests.sh overhead   per-run cost of Go over C on a tiny model
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

if ! command -v go >/dev/null 2>&1; then
    echo "SKIP: no go command (install golang-go)"
    exit 77
fi

formatted() {
    unformatted=$(gofmt -l "$1")
    if [ -n "$unformatted" ]; then
        echo "FAIL: gofmt would change: $unformatted"
        exit 1
    fi
}

case "${1:-}" in
binding)
    cd "$here"
    formatted .
    go vet ./...
    go test -race -count=1 -v ./...
    ;;
example)
    cd "$src/examples/go"
    formatted .
    go vet ./...
    go test -race -count=1 -v ./...
    go run . # classify the samples: prints "accuracy: 20/20"
    ;;
overhead)
    cd "$here"
    # The limit is far above the ~1 us measured, so a loaded machine does not
    # fail it; it catches a binding that starts allocating or copying per call.
    go run ./cmd/overhead -model "$src/tests/data/models/add_relu.onnx" -max-us 25
    ;;
*)
    echo "usage: $0 binding|example|overhead" >&2
    exit 2
    ;;
esac
