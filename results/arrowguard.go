package results

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tressi/tressi/ipcguard"
)

// messageGuard stands between the file and arrow-go, for files the fast
// reader does not take. arrow-go trusts the lengths inside a message: a
// damaged count of custom metadata entries made it allocate 18 GB and
// killed the process (found by FuzzReader). The guard reads each message
// itself, checks its lengths as the fast reader does (readMessage,
// readRecordBatch, messageMetadata), and hands arrow-go only whole
// messages that passed. It also keeps the messages since the last batch
// checked, so checkTaken can check the stream checksum over the bytes
// arrow-go read.
type messageGuard struct {
	br   *bufio.Reader
	cur  []byte // what is left of the message being handed over
	msgs []rawMessage
	// pending is the CRC-32C of the messages before msgs that the next
	// stream checksum covers (the schema's, at first).
	pending uint32
	ended   bool
	err     error
}

// endMarker is what the guard hands arrow-go at the end of the stream.
var endMarker = []byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}

func (g *messageGuard) Read(p []byte) (int, error) {
	for len(g.cur) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		if g.ended {
			return 0, io.EOF
		}
		m, err := readMessage(g.br, nil)
		switch {
		case errors.Is(err, io.EOF):
			// The end marker, with nothing after it (endOfStream), or a
			// stream whose writer never wrote one.
			g.ended, g.cur = true, endMarker
		case err != nil:
			g.err = err
		default:
			if g.err = checkMessage(m); g.err == nil {
				g.msgs = append(g.msgs, m)
				g.cur = bytes.Join([][]byte{m.prefix, m.meta, m.body}, nil)
			}
		}
	}
	n := copy(p, g.cur)
	g.cur = g.cur[n:]
	return n, nil
}

// checkMessage checks the lengths inside a batch or dictionary message
// fit in it, before arrow-go allocates by them.
func checkMessage(m rawMessage) error {
	typ, hdr, err := messageHeader(m.meta)
	if err != nil {
		return err
	}
	if _, _, err := messageMetadata(m.meta); err != nil {
		return err
	}
	switch typ {
	case headerRecord:
		_, err = readRecordBatch(hdr, len(m.body))
	case headerDictionary:
		_, err = readDictionaryBatch(hdr, len(m.body))
	default:
		err = fmt.Errorf("%w: message type %d amid the batches", ipcguard.ErrDamaged, typ)
	}
	return err
}

// take returns the messages read since the last take and what the stream
// checksum covers before them.
func (g *messageGuard) take() (msgs []rawMessage, pending uint32) {
	msgs, g.msgs = g.msgs, nil
	return msgs, g.pending
}

// rest says whether anything but the end of the stream is left once
// arrow-go has stopped: arrow-go ends quietly at what it takes for the
// end, which would drop every batch after it without a word.
func (g *messageGuard) rest() error {
	if len(g.cur) > 0 && !g.ended {
		return fmt.Errorf("%w: arrow-go stopped inside a message", ipcguard.ErrDamaged)
	}
	if g.ended {
		return nil
	}
	n, err := io.Copy(io.Discard, g)
	if err != nil {
		return err
	}
	if n > int64(len(endMarker)) {
		return fmt.Errorf("%w: %d bytes of messages after where arrow-go found the end", ipcguard.ErrDamaged, n)
	}
	return nil
}
