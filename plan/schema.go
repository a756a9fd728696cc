package plan

import "github.com/hashicorp/hcl/v2"

// The schemas of every block of the plan language. HCL checks them itself, so
// unknown blocks and attributes, missing required attributes and wrong block
// labels get HCL's own diagnostics with exact ranges.

var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "target", LabelNames: []string{"name"}},
		{Type: "endpoint", LabelNames: []string{"name"}},
		{Type: "scenario", LabelNames: []string{"name"}},
		{Type: "data", LabelNames: []string{"name"}},
		{Type: "load"},
		{Type: "thresholds"},
	},
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"},
		{Name: "default"},
		{Name: "sensitive"},
		{Name: "description"},
	},
}

var targetSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "url", Required: true},
		{Name: "connections"},
		{Name: "connection"},
		{Name: "timeout"},
		{Name: "connect_timeout"},
		{Name: "expected_latency"},
		{Name: "headers"},
		{Name: "protocol"},
		{Name: "max_streams"},
		{Name: "source_addresses"},
		{Name: "resolve"},
		{Name: "basic_auth"},
		{Name: "digest_auth"},
		{Name: "redirects"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "tls"}, {Type: "proto"}},
}

var tlsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "insecure_skip_verify"},
		{Name: "ca_file"},
		{Name: "cert_file"},
		{Name: "key_file"},
		{Name: "server_name"},
		{Name: "min_version"},
		{Name: "max_version"},
		{Name: "session_resumption"},
	},
}

// requestAttributes are shared by endpoints and scenario steps.
var requestAttributes = []hcl.AttributeSchema{
	{Name: "target"},
	{Name: "method"},
	{Name: "path"},
	{Name: "headers"},
	{Name: "body"},
	{Name: "basic_auth"},
	{Name: "digest_auth"},
	{Name: "redirects"},
	{Name: "form"},
	// gRPC calls (see decode_grpc_request.go).
	{Name: "rpc"},
	{Name: "message"},
	{Name: "metadata"},
	{Name: "deadline"},
	{Name: "compression"},
}

var expectBlock = hcl.BlockHeaderSchema{Type: "expect"}

var checkBlock = hcl.BlockHeaderSchema{Type: "check", LabelNames: []string{"name"}}

var expectSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "status", Required: true}},
}

var endpointSchema = &hcl.BodySchema{
	Attributes: append(append([]hcl.AttributeSchema{}, requestAttributes...),
		hcl.AttributeSchema{Name: "weight"},
		hcl.AttributeSchema{Name: "max_rate"},
		hcl.AttributeSchema{Name: "cookies"},
	),
	Blocks: []hcl.BlockHeaderSchema{expectBlock, multipartBlock, checkBlock},
}

var scenarioSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "weight"},
		{Name: "think"},
		{Name: "data"},
		{Name: "connection"},
		{Name: "cookies"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "step", LabelNames: []string{"name"}}},
}

var stepSchema = &hcl.BodySchema{
	Attributes: append(append([]hcl.AttributeSchema{}, requestAttributes...),
		hcl.AttributeSchema{Name: "capture"},
		hcl.AttributeSchema{Name: "repeat"},
		hcl.AttributeSchema{Name: "think"},
		hcl.AttributeSchema{Name: "think_max"},
		// WebSocket steps (see websocket.go).
		hcl.AttributeSchema{Name: "connect"},
		hcl.AttributeSchema{Name: "subprotocols"},
		hcl.AttributeSchema{Name: "send"},
		hcl.AttributeSchema{Name: "binary"},
		hcl.AttributeSchema{Name: "wait"},
		hcl.AttributeSchema{Name: "skip_if"},
		hcl.AttributeSchema{Name: "exit_if_failed"},
		hcl.AttributeSchema{Name: "hold"},
		hcl.AttributeSchema{Name: "close"},
		hcl.AttributeSchema{Name: "for_each"},
		hcl.AttributeSchema{Name: "max"},
		// gRPC streaming calls (grpcstream.go).
		hcl.AttributeSchema{Name: "stream"},
		hcl.AttributeSchema{Name: "half_close"},
		hcl.AttributeSchema{Name: "cancel"},
		hcl.AttributeSchema{Name: "finish"},
	),
	Blocks: []hcl.BlockHeaderSchema{
		expectBlock,
		multipartBlock,
		checkBlock,
		{Type: "await"},
		{Type: "step", LabelNames: []string{"name"}}, // inside a for_each
	},
}

var awaitSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "json"},
		{Name: "regex"},
		{Name: "timeout"},
		{Name: "status"},
	},
}

var dataSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "csv", Required: true},
		{Name: "order"},
	},
}

var loadSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "model"},
		{Name: "selection"},
		{Name: "arrival"},
		{Name: "seed"},
		{Name: "think"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "stage"}, {Type: "search"}},
}

var stageSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "duration", Required: true},
		{Name: "rate"},
		{Name: "users"},
		{Name: "to"},
	},
}

var thresholdsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "error_rate"},
		{Name: "error_count"},
		{Name: "status_codes"},
		{Name: "p50"},
		{Name: "p90"},
		{Name: "p95"},
		{Name: "p99"},
		{Name: "p999"},
		{Name: "max"},
		{Name: "live_window"},
		{Name: "live_delay"},
		{Name: "live_min_count"},
		{Name: "abort"},
		{Name: "allow_all_failed"},
		{Name: "check_rate"},
	},
}
