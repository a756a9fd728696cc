// Command tressi is the CLI: it binds flags and calls the packages that do the work.
package main

import (
	"os"

	"github.com/tressi/tressi/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr))
}
