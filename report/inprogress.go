package report

import "os"

// A meta.json that says "running" is either a run still going on or one
// killed or crashed on the way. meta.json names the process and host that
// run it: on this host, with that process alive, the run is in progress
// (a reused process id could fool this; the warning names the process so
// the user can look).

// runningHere says whether env's run is still going on in a process of
// this host, and that process id.
func runningHere(env map[string]any) (pid int, ok bool) {
	host, _ := env["hostname"].(string)
	n, _ := env["pid"].(float64)
	if here, err := os.Hostname(); err != nil || host == "" || host != here || n <= 0 {
		return 0, false
	}
	return int(n), processAlive(int(n))
}
