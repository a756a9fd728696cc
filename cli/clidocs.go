package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// WriteCLIDocs writes docs/cli.md, the reference of every command and flag,
// from the command tree itself, so the page cannot disagree with --help.
// `go run ./cli/gendocs` rewrites the file; a test fails when it is stale.
func WriteCLIDocs(w io.Writer) error {
	root := newRoot(&env{})
	root.InitDefaultCompletionCmd()
	bw := bufio.NewWriter(w)
	bw.WriteString("# Command reference\n\n" +
		"<!-- Generated from the command tree by `go run ./cli/gendocs`: do not edit by hand. -->\n\n" +
		"Every command and flag, as `tressi COMMAND --help` shows them. Long flags take two dashes (`--var`),\n" +
		"though a single dash is accepted too, as in Terraform; flags may come before or after the arguments.\n" +
		"Exit codes: 0 success, 1 invalid input, 2 thresholds failed, early exit or no request succeeded,\n" +
		"3 internal error, 130 interrupted.\n\n")
	cmds := visibleCommands(root)
	for _, c := range cmds {
		fmt.Fprintf(bw, "- [`%s`](#%s) — %s\n", c.CommandPath(), anchor(c.CommandPath()), c.Short)
	}
	for _, c := range cmds {
		writeCommandDoc(bw, c)
	}
	writeFlagTable(bw, "Flags of every command", root.PersistentFlags())
	return bw.Flush()
}

// visibleCommands lists the commands under root, depth first, in name
// order, leaving out hidden ones and cobra's help command.
func visibleCommands(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" {
			continue
		}
		out = append(out, c)
		out = append(out, visibleCommands(c)...)
	}
	return out
}

func writeCommandDoc(w *bufio.Writer, c *cobra.Command) {
	fmt.Fprintf(w, "\n## %s\n\n%s\n\n", c.CommandPath(), c.Short)
	fmt.Fprintf(w, "```\n%s\n```\n\n", c.UseLine())
	if c.Long != "" {
		w.WriteString(strings.TrimSpace(c.Long) + "\n\n")
	}
	if c.Example != "" {
		w.WriteString("Examples:\n\n```sh\n")
		for _, line := range strings.Split(c.Example, "\n") {
			w.WriteString(strings.TrimPrefix(line, "  ") + "\n")
		}
		w.WriteString("```\n\n")
	}
	if subs := c.Commands(); len(subs) > 0 {
		w.WriteString("Subcommands: ")
		var names []string
		for _, s := range subs {
			if !s.Hidden && s.Name() != "help" {
				names = append(names, fmt.Sprintf("[`%s`](#%s)", s.Name(), anchor(s.CommandPath())))
			}
		}
		w.WriteString(strings.Join(names, ", ") + "\n\n")
	}
	writeFlagTable(w, "", c.LocalNonPersistentFlags())
}

// writeFlagTable writes one row per visible flag: its spellings, its value,
// its default and what it does.
func writeFlagTable(w *bufio.Writer, title string, fs *pflag.FlagSet) {
	var rows []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		name := "`--" + f.Name + "`"
		if f.Shorthand != "" {
			name = "`-" + f.Shorthand + "`, " + name
		}
		value := ""
		if t := f.Value.Type(); t != "bool" {
			value = "`" + t + "`"
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" {
			def = "`" + f.DefValue + "`"
		}
		usage := strings.NewReplacer("\n", " ", "|", "\\|", "<", "&lt;", ">", "&gt;").Replace(f.Usage)
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", name, value, def, usage))
	})
	if len(rows) == 0 {
		return
	}
	if title != "" {
		fmt.Fprintf(w, "\n## %s\n\n", title)
	}
	w.WriteString("| flag | value | default | meaning |\n|---|---|---|---|\n")
	w.WriteString(strings.Join(rows, "\n") + "\n")
}

// anchor is the GitHub heading anchor of a command path.
func anchor(path string) string { return strings.ReplaceAll(strings.ToLower(path), " ", "-") }
