package loop

import "github.com/tressi/tressi/exec/internal/drive"

// jobQueue is a target's FIFO of jobs waiting for a connection.
type jobQueue = drive.Fifo[ljob]

// wakeHeap orders closed-model users (ids >= 0) and sessions (sessionWake)
// by the instant they next act.
type wakeHeap = drive.TimerHeap[int32]
