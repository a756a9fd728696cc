// Package scaleout holds no code: its tests check the scale-out manifests
// beside it. The Kubernetes manifests are decoded strictly with the
// Kubernetes API types (a misspelt field fails), the Nomad jobs are parsed as
// HCL and checked field by field, both are checked to be sized from the
// example plan, and the shards' exact container arguments are run as
// processes in network namespaces and merged (netns_test.go).
package scaleout
