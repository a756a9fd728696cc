package grpc

import (
	"testing"
	"time"
)

func TestCodeNames(t *testing.T) {
	tests := []struct {
		code Code
		name string
	}{
		{OK, "OK"}, {Canceled, "CANCELLED"}, {DeadlineExceeded, "DEADLINE_EXCEEDED"},
		{Unimplemented, "UNIMPLEMENTED"}, {Unauthenticated, "UNAUTHENTICATED"}, {17, "CODE(17)"},
	}
	for _, tt := range tests {
		if got := tt.code.String(); got != tt.name {
			t.Errorf("Code(%d).String() = %q, want %q", tt.code, got, tt.name)
		}
		if tt.code <= MaxCode {
			if c, ok := ParseCode(tt.name); !ok || c != tt.code {
				t.Errorf("ParseCode(%q) = %d, %v", tt.name, c, ok)
			}
		}
	}
	if _, ok := ParseCode("17"); ok {
		t.Error("ParseCode accepted 17")
	}
}

func TestParseStatus(t *testing.T) {
	tests := map[string]Code{"0": OK, "14": Unavailable, "": Unknown, "x": Unknown, "99": 99, "99999999999": Unknown}
	for in, want := range tests {
		if got := ParseStatus([]byte(in)); got != want {
			t.Errorf("ParseStatus(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestMappingsAsGRPCGo pins the tables grpc-go's internal/transport
// http_util.go holds (HTTPStatusConvTab, http2ErrConvTab).
func TestMappingsAsGRPCGo(t *testing.T) {
	http := map[int]Code{400: Internal, 401: Unauthenticated, 403: PermissionDenied, 404: Unimplemented,
		429: Unavailable, 502: Unavailable, 503: Unavailable, 504: Unavailable, 500: Unknown, 418: Unknown}
	for status, want := range http {
		if got := FromHTTPStatus(status); got != want {
			t.Errorf("FromHTTPStatus(%d) = %v, want %v", status, got, want)
		}
	}
	reset := map[uint32]Code{0x0: Internal, 0x1: Internal, 0x2: Internal, 0x3: ResourceExhausted, 0x4: Internal,
		0x5: Internal, 0x6: Internal, 0x7: Unavailable, 0x8: Canceled, 0x9: Internal, 0xa: Internal,
		0xb: ResourceExhausted, 0xc: PermissionDenied, 0xd: Internal}
	for h2code, want := range reset {
		if got := FromResetCode(h2code); got != want {
			t.Errorf("FromResetCode(%#x) = %v, want %v", h2code, got, want)
		}
	}
	if FromGoAway() != Unavailable {
		t.Error("a GOAWAY's cut-off call is not UNAVAILABLE")
	}
}

func TestTimeout(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0n"}, {-time.Second, "0n"}, {time.Nanosecond, "1n"}, {99999999, "99999999n"},
		{100000000, "100000u"}, {time.Second, "1000000u"}, {100 * time.Second, "100000m"},
		{1500 * time.Microsecond, "1500000n"}, {100001*time.Second + 1, "100002S"},
		{2000 * time.Hour, "7200000S"}, {30000 * time.Hour, "1800000M"},
	}
	for _, tt := range tests {
		got := string(AppendTimeout(nil, tt.d))
		if got != tt.want {
			t.Errorf("AppendTimeout(%v) = %q, want %q", tt.d, got, tt.want)
		}
		if len(got) > 9 {
			t.Errorf("AppendTimeout(%v) = %q: more than 8 digits", tt.d, got)
		}
		back, ok := ParseTimeout(got)
		if !ok || back < tt.d {
			t.Errorf("ParseTimeout(%q) = %v, %v: shorter than %v", got, back, ok, tt.d)
		}
	}
}

func TestMessageEscaping(t *testing.T) {
	tests := []struct{ plain, wire string }{
		{"no such user", "no such user"}, {"50% done", "50%25 done"}, {"héllo\n", "h%C3%A9llo%0A"},
	}
	for _, tt := range tests {
		if got := EncodeMessage(tt.plain); got != tt.wire {
			t.Errorf("EncodeMessage(%q) = %q, want %q", tt.plain, got, tt.wire)
		}
		if got := DecodeMessage(tt.wire); got != tt.plain {
			t.Errorf("DecodeMessage(%q) = %q, want %q", tt.wire, got, tt.plain)
		}
	}
	if got := DecodeMessage("100%"); got != "100%" {
		t.Errorf("a trailing %% became %q", got)
	}
	if got := DecodeMessage("%zz"); got != "%zz" {
		t.Errorf("a malformed escape became %q", got)
	}
}
