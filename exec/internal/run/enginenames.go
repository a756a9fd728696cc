package run

// The engines.
const (
	EngineLoop     = "loop"
	EngineFasthttp = "fasthttp"
)
