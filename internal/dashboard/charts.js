// The live view's charts, drawn from internal/live's Updates: the
// dashboard page feeds them from its event stream, the HTML report from the
// finished run. Everything is inside tressiLive, beside any other script.
window.tressiLive = (function () {
"use strict";

// The view the server streams (internal/live's Update): intervals replace
// those of the same start; a reset is the whole history.
const view = { run: {}, width: 1e9, intervals: new Map(), gauges: [], totals: null };
const colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];

// Buckets are HDR's for two significant digits: a quantile is the upper
// edge of the nearest-rank value's bucket, as the report computes it.
function upperEdge(i) {
  if (i < 256) return i;
  const b = (i >> 7) - 1, sub = i - b * 128;
  return (sub + 1) * Math.pow(2, b) - 1;
}
function merge(hists) {
  const m = new Map(); let count = 0, max = 0;
  for (const h of hists) {
    if (!h || !h.count) continue;
    (h.idx || []).forEach((i, k) => m.set(i, (m.get(i) || 0) + h.n[k]));
    count += h.count; max = Math.max(max, h.max);
  }
  return { idx: [...m.keys()].sort((a, b) => a - b), m, count, max };
}
function quantile(h, q) {
  if (!h.count) return null;
  const rank = Math.max(Math.ceil(q * h.count), 1);
  let seen = 0;
  for (const i of h.idx) { seen += h.m.get(i); if (seen >= rank) return Math.min(upperEdge(i), h.max) / 1e6; }
  return h.max / 1e6;
}

function apply(u) {
  update(u);
  // The last update is drawn at once: a frame may never come (a hidden
  // tab, a headless browser that reads the page as soon as it is idle).
  if (view.run.state === "ended") draw(); else scheduleDraw();
}
function update(u) {
  if (u.reset) { view.intervals.clear(); view.gauges = []; }
  for (const iv of u.intervals || []) view.intervals.set(iv.t_ns, iv);
  view.gauges.push(...(u.gauges || []));
  view.run = u.run; view.width = u.w_ns || view.width; view.totals = u.totals;
}

let pending = false;
function scheduleDraw() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; draw(); });
}

function draw() {
  const ivs = [...view.intervals.values()].sort((a, b) => a.t_ns - b.t_ns);
  const t = iv => (iv.t_ns + iv.w_ns) / 1e9;
  const perSec = (iv, n) => n / (iv.w_ns / 1e9);
  const lat = ivs.map(iv => merge((iv.series || []).map(s => s.latency)));
  const svc = ivs.map(iv => merge((iv.series || []).map(s => s.service)));
  const pct = (hs, q) => hs.map((h, k) => [t(ivs[k]), quantile(h, q)]);
  const rate = [
    { name: "offered", points: ivs.map(iv => [t(iv), perSec(iv, iv.due)]) },
    { name: "achieved", points: ivs.map(iv => [t(iv), perSec(iv, (iv.series || []).reduce((s, x) => s + x.responses, 0))]) },
  ];
  // A search's probe value, when it counts requests per second as the
  // chart does (a closed search's counts users).
  if (view.run.search && view.run.search.unit === "req/s") {
    rate.push({ name: "probe", points: view.gauges.map(g => [g.t_ns / 1e9, g.probe_rate || 0]) });
  }
  chart("rate", rate);
  for (const [name, hs] of [["latency", lat], ["service", svc]]) {
    chart(name, [["p50", 0.5], ["p90", 0.9], ["p99", 0.99], ["max", 1]].map(([n, q]) => ({ name: n, points: pct(hs, q) })));
  }
  const kinds = new Set();
  const errs = ivs.map(iv => {
    const m = {};
    for (const s of iv.series || []) {
      const bad = s.requests - s.ok;
      if (!bad) continue;
      const k = s.error || ("status " + s.status);
      m[k] = (m[k] || 0) + bad; kinds.add(k);
    }
    return m;
  });
  chart("errors", [...kinds].sort().map(k => ({ name: k, points: errs.map((m, i) => [t(ivs[i]), m[k] || 0]) })));
  const lag = ivs.map(iv => merge([iv.send_lag]));
  chart("sendlag", [{ name: "p99", points: pct(lag, 0.99) }, { name: "max", points: pct(lag, 1) }]);
  const gauge = key => view.gauges.map(g => [g.t_ns / 1e9, g[key] || 0]);
  chart("connections", [{ name: "open connections", points: gauge("connections") },
    { name: "active sessions", points: gauge("sessions") }, { name: "in flight", points: gauge("in_flight") }]);
  drawTotals();
  document.body.dataset.liveRendered = "true";
  document.body.dataset.state = view.run.state || "";
}

function drawTotals() {
  const run = view.run, tot = view.totals;
  const el = id => document.getElementById(id) || { style: {}, dataset: {} }; // the report has no header
  el("plan").textContent = (run.plan || "") + (run.shard && run.shard !== "0/1" ? " · shard " + run.shard : "");
  const st = el("state");
  st.textContent = run.state || ""; st.className = "state-" + (run.state || "");
  const g = view.gauges.length ? view.gauges[view.gauges.length - 1] : null;
  const elapsed = g ? Math.max(g.t_ns, 0) : 0, planned = run.planned_ns || 0;
  // A search's planned time is its worst case: every probe held to its end.
  const of = run.search ? " s of at most " : " s of ";
  let text = run.state === "waiting" ? "waiting for the start" : (elapsed / 1e9).toFixed(1) + of + (planned / 1e9).toFixed(1) + " s";
  if (tot && run.slots) text += " · " + tot.requests + " of " + run.slots + " slots recorded";
  el("progress-text").textContent = text;
  el("progress").style.width = (planned ? Math.min(100, 100 * elapsed / planned) : 0) + "%";
  const set = (id, v) => { el(id).textContent = v; };
  if (g) {
    set("g-connections", g.connections || 0); set("g-sessions", g.sessions || 0); set("g-in-flight", g.in_flight || 0);
    set("g-send-lag", (g.send_lag_ns / 1e6).toFixed(3));
  }
  if (!tot) return;
  set("t-requests", tot.requests); set("t-ok", tot.ok); set("t-errors", tot.errors); set("t-not-sent", tot.not_sent);
  const p = tot.latency_ms;
  set("t-p50", p.count ? p.p50.toFixed(3) : "-"); set("t-p99", p.count ? p.p99.toFixed(3) : "-"); set("t-max", p.count ? p.max.toFixed(3) : "-");
  drawThresholds(run);
  drawProbes(run.search);
  const body = document.querySelector("#live-endpoints tbody");
  body.replaceChildren(...(tot.endpoints || []).map(e => {
    const tr = document.createElement("tr");
    tr.dataset.endpoint = e.name;
    const l = e.latency_ms, f = v => l.count ? v.toFixed(3) : "-";
    for (const v of [e.name, e.requests, e.ok, e.errors, f(l.p50), f(l.p90), f(l.p99), f(l.max)]) {
      const td = document.createElement("td"); td.textContent = v; tr.appendChild(td);
    }
    return tr;
  }));
}

// drawThresholds lists the plan's thresholds with their live state: failed
// (with what tripped it), holding so far, or judged only at the end.
function drawThresholds(run) {
  const table = document.getElementById("live-thresholds");
  if (!table) return;
  const th = run.thresholds || [];
  table.hidden = th.length === 0;
  table.querySelector("tbody").replaceChildren(...th.map(t => {
    const failed = (run.failures || []).find(f => f.startsWith(t.name + ":"));
    const state = failed ? "failed: " + failed.slice(t.name.length + 1).trim()
      : !t.live ? "judged at the end (see the report)"
      : run.state === "ended" ? "held while the run went" : "holding";
    const tr = document.createElement("tr");
    tr.dataset.threshold = t.name; tr.dataset.state = failed ? "failed" : t.live ? "ok" : "end";
    for (const v of [t.name, t.limit, t.live ? "live" : "at the end", state]) {
      const td = document.createElement("td"); td.textContent = v; tr.appendChild(td);
    }
    if (failed) tr.style.color = "#c00";
    return tr;
  }));
}

// drawProbes lists a capacity search's probes: those judged, and the one
// running with its hold's figures so far.
function drawProbes(search) {
  const table = document.getElementById("live-probes");
  if (!table) return;
  table.hidden = !search;
  if (!search) return;
  document.getElementById("live-criteria").textContent = (search.criteria || []).join(", ") || "no thresholds";
  table.querySelector("tbody").replaceChildren(...search.probes.map(p => {
    const tr = document.createElement("tr");
    tr.dataset.probe = p.index; tr.dataset.verdict = p.verdict;
    const reason = (p.reasons || [])[0];
    for (const v of [p.index, p.offered + " " + search.unit, p.achieved_rps.toFixed(1), p.requests,
      p.p99_ms < 0 ? "-" : p.p99_ms.toFixed(3), (100 * p.error_rate).toFixed(2), p.verdict + (reason ? ": " + reason : "")]) {
      const td = document.createElement("td"); td.textContent = v; tr.appendChild(td);
    }
    if (p.verdict === "fail") tr.style.color = "#c00";
    return tr;
  }));
}

// chart draws series of [x, y] points as lines on the canvas named name.
function chart(name, series) {
  const c = document.querySelector('canvas[data-chart="' + name + '"]');
  const w = c.width = c.clientWidth || 460, h = c.height = c.clientHeight || 200;
  const ctx = c.getContext("2d");
  ctx.clearRect(0, 0, w, h);
  const pts = series.flatMap(s => s.points.filter(p => p[1] !== null));
  const xmax = Math.max(1, ...pts.map(p => p[0])), ymax = Math.max(1e-9, ...pts.map(p => p[1])) * 1.1;
  const L = 50, B = 20, X = x => L + (w - L - 5) * x / xmax, Y = y => h - B - (h - B - 5) * y / ymax;
  ctx.strokeStyle = "#999"; ctx.fillStyle = "#555"; ctx.font = "11px sans-serif";
  ctx.beginPath(); ctx.moveTo(L, 5); ctx.lineTo(L, h - B); ctx.lineTo(w - 5, h - B); ctx.stroke();
  ctx.fillText(fmt(ymax), 2, 12); ctx.fillText("0", L - 10, h - B); ctx.fillText(xmax.toFixed(0) + " s", w - 40, h - 5);
  series.forEach((s, k) => {
    ctx.strokeStyle = colors[k % colors.length]; ctx.lineWidth = 1.5; ctx.beginPath();
    let started = false;
    for (const [x, y] of s.points) {
      if (y === null) continue;
      if (started) ctx.lineTo(X(x), Y(y)); else { ctx.moveTo(X(x), Y(y)); started = true; }
    }
    ctx.stroke();
  });
  const legend = c.nextElementSibling;
  legend.replaceChildren(...series.map((s, k) => {
    const span = document.createElement("span");
    span.dataset.series = s.name; span.style.color = colors[k % colors.length];
    span.textContent = "● " + s.name; return span;
  }));
  c.dataset.points = pts.length;
}
function fmt(v) { return v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toPrecision(2); }

// render draws u at once: a finished run's whole view, in the HTML report.
function render(u) { update(u); draw(); }

return { apply, render, view };
})();
