// Draws the report's charts as inline SVG from the JSON in #report-data.
// No library and no network: the file must open anywhere, years later.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var NS = "http://www.w3.org/2000/svg";
  var W = 640, H = 260, M = { l: 56, r: 16, t: 26, b: 36 };
  var COLORS = ["#2f6fde", "#d9482b", "#1f9d55", "#8e44ad", "#c77c02", "#00838f", "#6d4c41", "#c2185b"];

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
  function svgIn(id, name) {
    var box = document.getElementById(id);
    var svg = el("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "data-chart": name }, box);
    return svg;
  }
  // niceTicks returns about n round tick values covering [0, max].
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
  function empty(svg, why) {
    var t = text(svg, W / 2, H / 2, why, "middle");
    t.setAttribute("class", "empty");
  }

  // lineChart draws lines [{name, color, dashed, points: [[x, y]...]}] over
  // x axis xs (tick values with labels) and a linear y axis from zero.
  function lineChart(id, name, lines, xTicks, xLabel) {
    var svg = svgIn(id, name);
    var pts = [];
    lines.forEach(function (l) { pts = pts.concat(l.points); });
    if (pts.length === 0) { empty(svg, "no data"); return; }
    var xmin = Infinity, xmax = -Infinity, ymax = 0;
    pts.forEach(function (p) { xmin = Math.min(xmin, p[0]); xmax = Math.max(xmax, p[0]); ymax = Math.max(ymax, p[1]); });
    if (xTicks) { xmin = Math.min(xmin, xTicks[0].v); xmax = Math.max(xmax, xTicks[xTicks.length - 1].v); }
    if (xmax === xmin) xmax = xmin + 1;
    var yt = niceTicks(ymax, 5);
    var ytop = yt[yt.length - 1];
    var pw = W - M.l - M.r, ph = H - M.t - M.b;
    function sx(x) { return M.l + (x - xmin) / (xmax - xmin) * pw; }
    function sy(y) { return M.t + ph - y / ytop * ph; }
    yt.forEach(function (v) {
      el("line", { x1: M.l, x2: W - M.r, y1: sy(v), y2: sy(v), "class": "grid" }, svg);
      text(svg, M.l - 6, sy(v) + 4, fmt(v), "end");
    });
    if (!xTicks) {
      xTicks = niceTicks(xmax - xmin, 8).map(function (v) { return { v: xmin + v, label: fmt(xmin + v) }; })
        .filter(function (t) { return t.v <= xmax; });
    }
    xTicks.forEach(function (t) { text(svg, sx(t.v), H - M.b + 16, t.label, "middle"); });
    el("line", { x1: M.l, x2: W - M.r, y1: sy(0), y2: sy(0), "class": "axis" }, svg);
    el("line", { x1: M.l, x2: M.l, y1: M.t, y2: sy(0), "class": "axis" }, svg);
    text(svg, M.l + pw / 2, H - 4, xLabel, "middle");
    var legend = el("g", { "class": "legend" }, svg);
    var lx = M.l;
    lines.forEach(function (l) {
      if (l.points.length === 0) return;
      var d = l.points.map(function (p, i) { return (i ? "L" : "M") + sx(p[0]).toFixed(1) + "," + sy(p[1]).toFixed(1); }).join("");
      var path = el("path", { d: d, fill: "none", stroke: l.color, "stroke-width": 1.6, "data-series": l.name }, svg);
      if (l.dashed) path.setAttribute("stroke-dasharray", "5,4");
      el("title", {}, path).textContent = l.name;
      el("rect", { x: lx, y: 8, width: 12, height: 3, fill: l.color }, legend);
      text(legend, lx + 16, 14, l.name);
      lx += 28 + l.name.length * 6.5;
    });
  }

  function seriesLines(d, suffix, dashed, fields) {
    return fields.map(function (f) {
      return {
        name: f.name + suffix, color: f.color, dashed: dashed,
        points: d.series.map(function (s) { return [s.t, s[f.key]]; })
      };
    });
  }
  function withBaseline(fields) {
    var lines = seriesLines(data, "", false, fields);
    if (data.baseline) lines = lines.concat(seriesLines(data.baseline, " (baseline)", true, fields));
    return lines;
  }

  lineChart("chart-latency", "latency", withBaseline([
    { name: "p50", key: "p50_ms", color: COLORS[0] },
    { name: "p99", key: "p99_ms", color: COLORS[1] }
  ]), null, "seconds after start");

  if (data.open_connections && document.getElementById("chart-connections")) {
    lineChart("chart-connections", "connections", [{
      name: "open connections", color: COLORS[5],
      points: data.open_connections.map(function (v, i) { return [i, v]; })
    }], null, "seconds after start");
  }

  lineChart("chart-throughput", "throughput", withBaseline([
    { name: "responses/s", key: "completed", color: COLORS[2] },
    { name: "errors/s", key: "errors", color: COLORS[1] }
  ]), null, "seconds after start");

  // The distribution's x axis counts "nines" (-log10(1 - fraction)) so the
  // tail gets as much room as the median.
  function nines(f) { return Math.min(-Math.log10(Math.max(1 - f, 1e-5)), 5); }
  function cdfLine(d, name, color, dashed) {
    return { name: name, color: color, dashed: dashed, points: (d.cdf || []).map(function (p) { return [nines(p.fraction), p.ms]; }) };
  }
  var cdfLines = [cdfLine(data, "latency", COLORS[0], false)];
  if (data.baseline) cdfLines.push(cdfLine(data.baseline, "latency (baseline)", COLORS[0], true));
  lineChart("chart-cdf", "distribution", cdfLines, [
    { v: 0, label: "0%" }, { v: 1, label: "90%" }, { v: 2, label: "99%" }, { v: 3, label: "99.9%" }, { v: 4, label: "99.99%" }
  ], "percentile");

  function statusChart(id) {
    var svg = svgIn(id, "status");
    var codes = {};
    Object.keys(data.status || {}).forEach(function (k) { codes[k] = true; });
    if (data.baseline) Object.keys(data.baseline.status || {}).forEach(function (k) { codes[k] = true; });
    var keys = Object.keys(codes).sort(function (a, b) { return a - b; });
    if (keys.length === 0) { empty(svg, "no requests"); return; }
    var sets = [{ name: "this run", status: data.status, unexpected: data.unexpected, color: COLORS[0] }];
    if (data.baseline) sets.push({ name: "baseline", status: data.baseline.status, unexpected: data.baseline.unexpected, color: "#9aa3ad" });
    var ymax = 0;
    sets.forEach(function (s) { keys.forEach(function (k) { ymax = Math.max(ymax, s.status[k] || 0); }); });
    var yt = niceTicks(ymax, 5), ytop = yt[yt.length - 1];
    var pw = W - M.l - M.r, ph = H - M.t - M.b;
    function sy(y) { return M.t + ph - y / ytop * ph; }
    yt.forEach(function (v) {
      el("line", { x1: M.l, x2: W - M.r, y1: sy(v), y2: sy(v), "class": "grid" }, svg);
      text(svg, M.l - 6, sy(v) + 4, fmt(v), "end");
    });
    var slot = pw / keys.length, bw = Math.min(48, slot * 0.7) / sets.length;
    keys.forEach(function (k, i) {
      var x0 = M.l + slot * i + (slot - bw * sets.length) / 2;
      sets.forEach(function (s, j) {
        var v = s.status[k] || 0;
        // A status is a failure when an endpoint did not expect it (the
        // plan's expect blocks); older reports without that fall back to
        // "no response or 4xx/5xx".
        var failed = s.unexpected ? (s.unexpected[k] || 0) > 0 : k === "0" || Number(k) >= 400;
        var color = failed ? (j ? "#e0a59a" : COLORS[1]) : s.color;
        var r = el("rect", { x: x0 + j * bw, y: sy(v), width: bw - 2, height: sy(0) - sy(v), fill: color, "data-status": k, "data-ok": String(!failed) }, svg);
        el("title", {}, r).textContent = s.name + " " + k + ": " + v;
      });
      text(svg, M.l + slot * (i + 0.5), H - M.b + 16, k === "0" ? "none" : k, "middle");
    });
    el("line", { x1: M.l, x2: W - M.r, y1: sy(0), y2: sy(0), "class": "axis" }, svg);
  }
  statusChart("chart-status");

  document.body.setAttribute("data-rendered", "true");
})();
