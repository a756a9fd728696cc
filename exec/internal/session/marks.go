package session

import "bytes"

// Marks: a frame's mark is "tressi" + 8 hex digits of the run's tag + 16
// of its send instant (ns after run start) + 16 of its key (session slot
// << 16 | the session's frame count). A receiver needs nothing else to time
// the delivery, the key says whose message it was, and the tag keeps apart
// messages a server stored from earlier runs (Tinode replays a topic's
// recent messages to every new subscriber).
const (
	markPrefix = "tressi"
	markLen    = len(markPrefix) + 40
)

func AppendMark(dst []byte, tag uint32, sent int64, slot uint64, n uint32) []byte {
	dst = append(dst, markPrefix...)
	dst = appendHexN(dst, uint64(tag), 8)
	dst = appendHexN(dst, uint64(sent), 16)
	return appendHexN(dst, slot<<16|uint64(n&0xffff), 16)
}

func appendHexN(dst []byte, v uint64, n int) []byte {
	const digits = "0123456789abcdef"
	for i := (n - 1) * 4; i >= 0; i -= 4 {
		dst = append(dst, digits[(v>>uint(i))&15])
	}
	return dst
}

// FindMarks calls fn for every mark of this run (tag) in frame.
func FindMarks(frame []byte, tag uint32, fn func(sent int64, key uint64)) {
	for {
		i := bytes.Index(frame, []byte(markPrefix))
		if i < 0 || len(frame)-i < markLen {
			return
		}
		p := frame[i+len(markPrefix):]
		t, ok0 := parseHexN(p, 8)
		sent, ok1 := parseHexN(p[8:], 16)
		key, ok2 := parseHexN(p[24:], 16)
		if ok0 && ok1 && ok2 && uint32(t) == tag {
			fn(int64(sent), key)
			frame = frame[i+markLen:]
		} else {
			frame = frame[i+len(markPrefix):]
		}
	}
}

func parseHexN(b []byte, n int) (uint64, bool) {
	var v uint64
	for _, c := range b[:n] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
