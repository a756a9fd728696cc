package grpc

import (
	"strconv"
	"time"
)

// maxTimeoutDigits is the largest value grpc-timeout's 8 digits hold.
const maxTimeoutDigits = 1e8 - 1

// AppendTimeout appends d as a grpc-timeout value: at most 8 digits and a
// unit, in the finest unit that fits, rounded up (grpc-go's
// EncodeDuration), so the server never sees a shorter deadline than asked.
func AppendTimeout(dst []byte, d time.Duration) []byte {
	if d <= 0 {
		return append(dst, "0n"...)
	}
	units := [...]struct {
		size time.Duration
		unit byte
	}{{time.Nanosecond, 'n'}, {time.Microsecond, 'u'}, {time.Millisecond, 'm'},
		{time.Second, 'S'}, {time.Minute, 'M'}}
	for _, u := range units {
		if n := ceilDiv(d, u.size); n <= maxTimeoutDigits {
			return append(strconv.AppendInt(dst, n, 10), u.unit)
		}
	}
	return append(strconv.AppendInt(dst, ceilDiv(d, time.Hour), 10), 'H')
}

func ceilDiv(d, unit time.Duration) int64 {
	n := int64(d / unit)
	if d%unit > 0 {
		n++
	}
	return n
}

// ParseTimeout reads a grpc-timeout value; false when it is malformed.
func ParseTimeout(s string) (time.Duration, bool) {
	if len(s) < 2 || len(s) > 9 {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:len(s)-1], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	unit := map[byte]time.Duration{'n': time.Nanosecond, 'u': time.Microsecond, 'm': time.Millisecond,
		'S': time.Second, 'M': time.Minute, 'H': time.Hour}[s[len(s)-1]]
	if unit == 0 {
		return 0, false
	}
	return time.Duration(n) * unit, true
}
