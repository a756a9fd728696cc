package exec

// jobQueue is a FIFO of jobs waiting for a connection: a ring that grows,
// so steady queueing allocates nothing.
type jobQueue struct {
	buf        []ljob
	head, size int
}

func (q *jobQueue) len() int { return q.size }

func (q *jobQueue) push(j ljob) {
	if q.size == len(q.buf) {
		grown := make([]ljob, max(16, 2*len(q.buf)))
		for i := range q.size {
			grown[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.size)%len(q.buf)] = j
	q.size++
}

func (q *jobQueue) peek() *ljob { return &q.buf[q.head] }

func (q *jobQueue) pop() ljob {
	j := q.buf[q.head]
	q.buf[q.head] = ljob{}
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return j
}

// wakeHeap orders closed-model users by the instant they next act: a
// binary min-heap on plain slices (container/heap would box every push).
type wakeHeap struct {
	at   []int64
	user []int32
}

func (h *wakeHeap) len() int   { return len(h.at) }
func (h *wakeHeap) top() int64 { return h.at[0] }
func (h *wakeHeap) swap(i, j int) {
	h.at[i], h.at[j] = h.at[j], h.at[i]
	h.user[i], h.user[j] = h.user[j], h.user[i]
}

func (h *wakeHeap) push(at int64, u int32) {
	h.at = append(h.at, at)
	h.user = append(h.user, u)
	for i := len(h.at) - 1; i > 0; {
		p := (i - 1) / 2
		if h.at[p] <= h.at[i] {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h *wakeHeap) pop() (int64, int32) {
	at, u := h.at[0], h.user[0]
	n := len(h.at) - 1
	h.swap(0, n)
	h.at, h.user = h.at[:n], h.user[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.at[l] < h.at[m] {
			m = l
		}
		if r < n && h.at[r] < h.at[m] {
			m = r
		}
		if m == i {
			break
		}
		h.swap(i, m)
		i = m
	}
	return at, u
}
