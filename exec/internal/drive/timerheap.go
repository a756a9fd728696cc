package drive

// TimerHeap orders what waits for an instant in a loop: closed-model
// users (think time, max_rate), HTTP sessions' next steps, connections'
// and queued requests' deadlines, WebSocket sessions' timers. A binary min-heap on a plain slice: container/heap
// would box every push, and this allocates nothing once grown.
type TimerHeap[T any] []Timed[T]

// Timed is one entry: an instant and what waits for it.
type Timed[T any] struct {
	At int64
	V  T
}

func (h *TimerHeap[T]) Len() int { return len(*h) }

// Top is the earliest instant; the heap must not be empty.
func (h *TimerHeap[T]) Top() int64 { return (*h)[0].At }

func (h *TimerHeap[T]) Push(at int64, v T) {
	*h = append(*h, Timed[T]{at, v})
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p].At <= a[i].At {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

// Hasten brings every entry for which due says so forward to now (those
// due later), and restores the heap's order: what must act at once, such
// as waits a stop ends, without taking the rest off.
func (h *TimerHeap[T]) Hasten(now int64, due func(T) bool) {
	a := *h
	moved := false
	for i := range a {
		if a[i].At > now && due(a[i].V) {
			a[i].At, moved = now, true
		}
	}
	if !moved {
		return
	}
	for i := len(a)/2 - 1; i >= 0; i-- {
		a.down(i)
	}
}

// Pop takes the earliest entry off; the heap must not be empty.
func (h *TimerHeap[T]) Pop() (int64, T) {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	a.down(0)
	*h = a
	return top.At, top.V
}

// down moves entry i down to its place below.
func (a TimerHeap[T]) down(i int) {
	n := len(a)
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && a[l].At < a[m].At {
			m = l
		}
		if r < n && a[r].At < a[m].At {
			m = r
		}
		if m == i {
			return
		}
		a[m], a[i] = a[i], a[m]
		i = m
	}
}
