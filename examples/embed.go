package examples

import "embed"

// FS holds the quickstart plan inside the binary, so `tressi demo` runs
// from anywhere, not only from a checkout.
//
//go:embed quickstart.hcl
var FS embed.FS

// Quickstart is the quickstart plan's name in FS.
const Quickstart = "quickstart.hcl"
