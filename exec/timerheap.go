package exec

// timerHeap orders what waits for an instant in a loop: closed-model
// users (think time, max_rate), HTTP sessions' next steps, WebSocket
// sessions' timers. A binary min-heap on a plain slice: container/heap
// would box every push, and this allocates nothing once grown.
type timerHeap[T any] []timed[T]

// timed is one entry: an instant and what waits for it.
type timed[T any] struct {
	at int64
	v  T
}

func (h *timerHeap[T]) len() int { return len(*h) }

// top is the earliest instant; the heap must not be empty.
func (h *timerHeap[T]) top() int64 { return (*h)[0].at }

func (h *timerHeap[T]) push(at int64, v T) {
	*h = append(*h, timed[T]{at, v})
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p].at <= a[i].at {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

// pop takes the earliest entry off; the heap must not be empty.
func (h *timerHeap[T]) pop() (int64, T) {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && a[l].at < a[m].at {
			m = l
		}
		if r < n && a[r].at < a[m].at {
			m = r
		}
		if m == i {
			break
		}
		a[m], a[i] = a[i], a[m]
		i = m
	}
	*h = a
	return top.at, top.v
}
