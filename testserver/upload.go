package testserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"mime"
	"mime/multipart"

	"github.com/valyala/fasthttp"
)

var pathUpload = []byte("/upload")

// uploadReply is what /upload answers: what the body held, as the server
// parsed it by its Content-Type, so a test (or a user checking a plan) sees
// that a multipart, form or binary body arrived whole.
type uploadReply struct {
	Kind   string              `json:"kind"` // "multipart", "form" or "raw"
	Size   int                 `json:"size"` // the body's bytes
	SHA256 string              `json:"sha256"`
	Fields map[string][]string `json:"fields,omitempty"`
	Files  map[string][]upFile `json:"files,omitempty"`
}

type upFile struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int    `json:"size"`
	SHA256      string `json:"sha256"`
}

// upload answers POST /upload with what its body held: the fields and files
// of a multipart/form-data body (parsed with Go's mime/multipart, which
// refuses a malformed one: 400), the fields of a form, or the size and
// SHA-256 of any other body.
func (s *Server) upload(ctx *fasthttp.RequestCtx) {
	if !allowMethod(ctx, "POST, PUT", ctx.IsPost() || ctx.IsPut()) {
		return
	}
	body := ctx.Request.Body()
	sum := sha256.Sum256(body)
	rep := uploadReply{Kind: "raw", Size: len(body), SHA256: hex.EncodeToString(sum[:])}
	mediaType, params, _ := mime.ParseMediaType(string(ctx.Request.Header.ContentType()))
	switch mediaType {
	case "multipart/form-data":
		rep.Kind = "multipart"
		if err := readMultipart(&rep, body, params["boundary"]); err != nil {
			writeJSON(ctx, fasthttp.StatusBadRequest, errorReply{"multipart body: " + err.Error()})
			return
		}
	case "application/x-www-form-urlencoded":
		rep.Kind = "form"
		rep.Fields = map[string][]string{}
		for k, v := range ctx.PostArgs().All() {
			rep.Fields[string(k)] = append(rep.Fields[string(k)], string(v))
		}
	}
	writeJSON(ctx, fasthttp.StatusOK, rep)
}

func readMultipart(rep *uploadReply, body []byte, boundary string) error {
	rep.Fields, rep.Files = map[string][]string{}, map[string][]upFile{}
	r := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		p, err := r.NextRawPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return err
		}
		if p.FileName() == "" {
			rep.Fields[p.FormName()] = append(rep.Fields[p.FormName()], string(data))
			continue
		}
		sum := sha256.Sum256(data)
		rep.Files[p.FormName()] = append(rep.Files[p.FormName()], upFile{Filename: p.FileName(),
			ContentType: p.Header.Get("Content-Type"), Size: len(data), SHA256: hex.EncodeToString(sum[:])})
	}
}
