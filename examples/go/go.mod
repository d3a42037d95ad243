module kiln.dev/examples/digits

go 1.19

require kiln.dev/kiln v0.0.0

// The binding is used from the source tree; see bindings/go/README.md.
replace kiln.dev/kiln => ../../bindings/go
