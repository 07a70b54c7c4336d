// The replay data of `articula view` (format "articula-replay 1", viewer/README.md): JSON with
// base64 little-endian arrays, decoded once at load.

function bytes(b64) {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; ++i) out[i] = s.charCodeAt(i);
  return out.buffer;
}
export const f64 = (b64) => new Float64Array(bytes(b64));
export const f32 = (b64) => new Float32Array(bytes(b64));

export function readData(doc) {
  const el = doc.getElementById('articula-data');
  if (!el) throw new Error('this page carries no replay data (no #articula-data element)');
  const data = JSON.parse(el.textContent);
  if (data.format !== 'articula-replay 1')
    throw new Error(`replay data of format '${data.format}', this viewer reads 'articula-replay 1'`);
  for (const run of data.runs) {
    run.t = f64(run.t);
    run.q = f32(run.q);
    for (const a of run.arrows) {
      a.origin = f32(a.origin);
      a.force = f32(a.force);
    }
    for (const c of run.contacts) {
      c.point = f32(c.point);
      c.active = f32(c.active);
    }
    if (run.path) run.path.points = f32(run.path.points);
    for (const k of Object.keys(run.channels)) run.channels[k] = f32(run.channels[k]);
  }
  return data;
}

// The index of the last row at or before time t (0 before the first).
export function rowAt(t, time) {
  let lo = 0, hi = t.length - 1;
  if (hi < 0 || time <= t[0]) return 0;
  if (time >= t[hi]) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (t[mid] <= time) lo = mid; else hi = mid;
  }
  return lo;
}
