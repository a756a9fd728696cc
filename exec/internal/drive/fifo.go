package drive

// Fifo is a queue of what waits for a connection (HTTP jobs, WebSocket
// sessions), first come, first served: a ring that grows, so steady
// queueing allocates nothing.
type Fifo[T any] struct {
	buf        []T
	head, size int
}

func (q *Fifo[T]) Len() int { return q.size }

func (q *Fifo[T]) Push(v T) {
	if q.size == len(q.buf) {
		grown := make([]T, max(16, 2*len(q.buf)))
		for i := range q.size {
			grown[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.size)%len(q.buf)] = v
	q.size++
}

// Peek is the head; the queue must not be empty.
func (q *Fifo[T]) Peek() *T { return &q.buf[q.head] }

// Pop takes the head off; the queue must not be empty.
func (q *Fifo[T]) Pop() T {
	var zero T
	v := q.buf[q.head]
	q.buf[q.head] = zero
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return v
}
