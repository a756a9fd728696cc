// Draws a capacity search's two charts as inline SVG from #search-data:
// achieved vs offered and p99 vs offered, one point per probe, the knee
// (max_rate) marked. No library and no network.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("search-data").textContent);
  var NS = "http://www.w3.org/2000/svg";
  var W = 640, H = 280, M = { l: 60, r: 16, t: 28, b: 40 };
  var PASS = "#1f9d55", FAIL = "#d9482b", LINE = "#2f6fde", KNEE = "#8e44ad";

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function text(parent, x, y, s, anchor) {
    var t = el("text", { x: x, y: y, "text-anchor": anchor || "start" }, parent);
    t.textContent = s;
    return t;
  }
  function niceTicks(max, n) {
    if (!(max > 0)) max = 1;
    var step = Math.pow(10, Math.floor(Math.log10(max / n)));
    var err = max / n / step;
    if (err >= 7.5) step *= 10; else if (err >= 3.5) step *= 5; else if (err >= 1.5) step *= 2;
    var ticks = [];
    for (var v = 0; v <= max * 1.0001 + step; v += step) { ticks.push(v); if (v >= max) break; }
    return ticks;
  }
  function fmt(v) {
    if (v === 0) return "0";
    if (Math.abs(v) >= 1000) return (v / 1000).toFixed(v >= 10000 ? 0 : 1) + "k";
    if (Math.abs(v) >= 10) return v.toFixed(0);
    if (Math.abs(v) >= 1) return v.toFixed(1);
    return v.toPrecision(2);
  }

  // chart draws probes as points (x = offered, y = field) joined in
  // offered order, with optional reference lines: a diagonal (y = x), a
  // horizontal limit, and the knee as a vertical line.
  function chart(id, name, field, opts) {
    var box = document.getElementById(id);
    var svg = el("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "data-chart": name }, box);
    var probes = data.probes.filter(function (p) { return p[field] >= 0; });
    if (probes.length === 0) { text(svg, W / 2, H / 2, "no probes", "middle").setAttribute("class", "empty"); return; }
    var xmax = 0, ymax = 0;
    probes.forEach(function (p) { xmax = Math.max(xmax, p.offered); ymax = Math.max(ymax, p[field]); });
    if (opts.limit) ymax = Math.max(ymax, opts.limit * 1.2);
    if (opts.diagonal) ymax = Math.max(ymax, xmax);
    var xt = niceTicks(xmax, 8), yt = niceTicks(ymax, 5);
    var xtop = xt[xt.length - 1], ytop = yt[yt.length - 1];
    var pw = W - M.l - M.r, ph = H - M.t - M.b;
    function sx(x) { return M.l + x / xtop * pw; }
    function sy(y) { return M.t + ph - Math.min(y, ytop) / ytop * ph; }
    yt.forEach(function (v) {
      el("line", { x1: M.l, x2: W - M.r, y1: sy(v), y2: sy(v), "class": "grid" }, svg);
      text(svg, M.l - 6, sy(v) + 4, fmt(v), "end");
    });
    xt.forEach(function (v) { text(svg, sx(v), H - M.b + 16, fmt(v), "middle"); });
    el("line", { x1: M.l, x2: W - M.r, y1: sy(0), y2: sy(0), "class": "axis" }, svg);
    el("line", { x1: M.l, x2: M.l, y1: M.t, y2: sy(0), "class": "axis" }, svg);
    text(svg, M.l + pw / 2, H - 6, "offered (" + data.unit + ")", "middle");
    if (opts.diagonal) {
      var d = el("line", { x1: sx(0), y1: sy(0), x2: sx(Math.min(xtop, ytop)), y2: sy(Math.min(xtop, ytop)),
        stroke: "#9aa3ad", "stroke-dasharray": "3,3", "data-ref": "offered" }, svg);
      el("title", {}, d).textContent = "achieved = offered";
    }
    if (opts.limit) {
      var l = el("line", { x1: M.l, x2: W - M.r, y1: sy(opts.limit), y2: sy(opts.limit), stroke: FAIL,
        "stroke-dasharray": "6,3", "data-ref": "limit" }, svg);
      el("title", {}, l).textContent = "threshold " + opts.limit + " ms";
      text(svg, W - M.r - 4, sy(opts.limit) - 4, "threshold " + fmt(opts.limit) + " ms", "end");
    }
    if (data.max_rate != null) {
      var k = el("line", { x1: sx(data.max_rate), x2: sx(data.max_rate), y1: M.t, y2: sy(0), stroke: KNEE,
        "stroke-width": 1.5, "stroke-dasharray": "5,4", "data-knee": data.max_rate }, svg);
      el("title", {}, k).textContent = "knee: max_rate " + data.max_rate;
      text(svg, sx(data.max_rate) + 4, M.t + 10, "knee " + fmt(data.max_rate), "start");
    }
    var sorted = probes.slice().sort(function (a, b) { return a.offered - b.offered; });
    var path = sorted.map(function (p, i) { return (i ? "L" : "M") + sx(p.offered).toFixed(1) + "," + sy(p[field]).toFixed(1); }).join("");
    el("path", { d: path, fill: "none", stroke: LINE, "stroke-width": 1.4, "data-series": field }, svg);
    probes.forEach(function (p) {
      var c = el("circle", { cx: sx(p.offered), cy: sy(p[field]), r: 4.5, fill: p.verdict === "pass" ? PASS : FAIL,
        "data-probe": p.index, "data-verdict": p.verdict }, svg);
      el("title", {}, c).textContent = "probe " + p.index + ": " + p.offered + " " + data.unit + " → " + fmt(p[field]) + " (" + p.verdict + ")";
    });
    var legend = el("g", { "class": "legend" }, svg);
    el("circle", { cx: M.l + 6, cy: 12, r: 4, fill: PASS }, legend); text(legend, M.l + 14, 16, "pass");
    el("circle", { cx: M.l + 56, cy: 12, r: 4, fill: FAIL }, legend); text(legend, M.l + 64, 16, "fail");
  }

  chart("chart-achieved", "achieved", "achieved_rps", { diagonal: data.unit === "req/s" });
  chart("chart-p99", "p99", "p99_ms", { limit: data.p99_limit_ms });
  document.body.setAttribute("data-rendered", "true");
})();
