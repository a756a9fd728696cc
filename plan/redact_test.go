package plan

import "testing"

func TestSecretsBytes(t *testing.T) {
	s := Secrets{"hunter22"}
	for _, tc := range []struct{ in, want string }{
		{"token=hunter22;", "token=(sensitive);"},
		{"hunter22 and hunter22", "(sensitive) and (sensitive)"},
		{"cut short: hunter", "cut short: (sensitive)"}, // a sample's body ends inside the secret
		{"cut short: hun", "cut short: hun"},            // too short a beginning to tell
		{"nothing here", "nothing here"},
	} {
		if got := string(s.Bytes([]byte(tc.in))); got != tc.want {
			t.Errorf("Bytes(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var short Secrets
	short.addText("on")
	if len(short) != 0 {
		t.Errorf("a 2-character value is searched for: %q", short)
	}
}
