// Package fast is the fasthttp engine: lock-free workers on fasthttp's
// client, one per closed-model user or a pool the open model's pacer
// releases slots to, and session runners for scenarios. It runs every plan
// on every OS, and is the engine where epoll is missing.
package fast
