// Command gendocs writes docs/cli.md from tressi's command tree:
//
//	go run ./cli/gendocs            # from the repository root
//	go run ./cli/gendocs -o FILE
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/tressi/tressi/cli"
)

func main() {
	out := flag.String("o", "docs/cli.md", "file to write")
	flag.Parse()
	var b bytes.Buffer
	if err := cli.WriteCLIDocs(&b); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}
