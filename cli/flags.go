package cli

import "strings"

// terraformStyleFlags lets long flags take one dash, as in Terraform
// (`-var k=v`, `-var-file F`, `-out FILE`): pflag would read "-var" as the
// shorthands -v -a -r. Help and docs write two dashes; one is still
// accepted, so Terraform habits and older scripts keep working. Any argument
// of a dash and two or more letters (up to an "=") becomes "--"; single-
// letter flags and everything after "--" are left alone.
func terraformStyleFlags(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(name) >= 2 && isFlagName(name) {
			a = "-" + a
		}
		out = append(out, a)
	}
	return out
}

func isFlagName(s string) bool {
	if s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c == '-' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
