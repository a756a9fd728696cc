// Package container holds no code: its test builds the tressi image from
// ../Containerfile with ./build (offline, with podman) and runs it. The test
// runs only when TRESSI_TEST_IMAGE=1, because a cold build compiles every
// dependency (about ten minutes on a busy 2-core machine).
package container
