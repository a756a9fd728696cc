package testserver

import "github.com/valyala/fasthttp"

var pathBrowse = []byte("/browse")

// browsePage is what GET /browse serves: a page whose script walks through
// a small session against this server, one request after another with
// pauses between, so a browser's network panel records a HAR worth
// importing (tressi import har): a cookie set by script, a token in a
// query, a JSON login whose token the next request sends as a bearer, a
// form and a download. When it is done, the body carries data-done="true".
var browsePage = []byte(`<!doctype html>
<html><head><meta charset="utf-8"><title>tressi browse</title></head>
<body><p>A scripted session against the built-in target.</p>
<script>
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  document.cookie = "sid=s3ss10n-c00kie; path=/";
  await fetch("/echo?step=1&token=q-t0ken-123");
  await pause(250);
  const login = await fetch("/login", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({user: "ann", password: "pa55word-x"})});
  const {token} = await login.json();
  await pause(150);
  await fetch("/me", {headers: {Authorization: "Bearer " + token}});
  await fetch("/upload", {method: "POST", body: new URLSearchParams({q: "a b&c", secret: "hu5h-hush"})});
  await pause(100);
  await fetch("/bytes/512");
  document.body.dataset.done = "true";
})();
</script></body></html>
`)

func (s *Server) browse(ctx *fasthttp.RequestCtx) {
	if !allowMethod(ctx, "GET, HEAD", ctx.IsGet() || ctx.IsHead()) {
		return
	}
	ctx.SetContentType("text/html; charset=utf-8")
	ctx.Response.SetBodyRaw(browsePage)
}
