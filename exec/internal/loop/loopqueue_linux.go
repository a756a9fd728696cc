package loop

import "github.com/tressi/tressi/exec/internal/drive"

// jobQueue is a target's FIFO of jobs waiting for a connection.
type jobQueue = drive.Fifo[ljob]
