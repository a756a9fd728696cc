// Package drive holds the drivers' clockwork, shared by both engines: the
// open model's burst clock and slot ring, the timer heap and the admission
// FIFO.
package drive
