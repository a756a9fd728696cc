// Package examples holds runnable tressi plans; its test loads every one of
// them, so an example cannot silently rot.
package examples
