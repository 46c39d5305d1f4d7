// Order statistics and formatting for the harness. No timing assertions live here: these
// only summarise what was measured.

export function quantile(values, q) {
  const xs = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return NaN;
  const pos = (xs.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo);
}

export const median = (values) => quantile(values, 0.5);

export function summary(values) {
  return { median: median(values), p25: quantile(values, 0.25), p75: quantile(values, 0.75), n: values.length };
}

/** Per-round ratios a[i] / b[i] (samples taken in the same round), summarised. */
export function pairedRatio(a, b) {
  const n = Math.min(a.length, b.length);
  const r = [];
  for (let i = 0; i < n; i += 1) r.push(a[i] / b[i]);
  return summary(r);
}

export function fmtNs(ns) {
  if (!Number.isFinite(ns)) return 'n/a';
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e4) return `${(ns / 1e3).toFixed(1)} us`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} us`;
  return `${ns.toFixed(0)} ns`;
}

export function fmtMBs(bytes, ns) {
  if (!Number.isFinite(ns) || ns <= 0) return 'n/a';
  const mbs = bytes / ns * 1e3; // bytes per ns * 1e9 / 1e6
  return mbs >= 100 ? mbs.toFixed(0) : mbs.toFixed(1);
}

export function fmtRatio(s) {
  if (!s || !Number.isFinite(s.median)) return 'n/a';
  const f = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));
  return `${f(s.median)}`;
}

export function fmtRatioSpread(s) {
  if (!s || !Number.isFinite(s.median)) return 'n/a';
  const f = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));
  return `${f(s.median)} (${f(s.p25)}-${f(s.p75)})`;
}

export function fmtBytes(n) {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(2)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}
