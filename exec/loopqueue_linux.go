package exec

// jobQueue is a target's FIFO of jobs waiting for a connection.
type jobQueue = fifo[ljob]

// wakeHeap orders closed-model users (ids >= 0) and sessions (sessionWake)
// by the instant they next act.
type wakeHeap = timerHeap[int32]
