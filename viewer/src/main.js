// The replay page of `articula view` (docs/viewer.md): reads the inlined data, draws the robot
// of each run in one three.js scene, and keeps the 3D view, the slider, the event list and
// the plots at one replay time. window.articula is the page's interface for tests and scripts.
import * as THREE from 'three';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { readData, rowAt } from './decode.js';
import { Robot } from './robot.js';
import { makeWorld, frame, addSurfaces, RunOverlay, arrowScale } from './scene.js';
import { Plots } from './plots.js';

const started = performance.now();
const $ = (id) => document.getElementById(id);
const fmt = (t) => (Math.abs(t) < 1e-12 ? '0' : t.toFixed(Math.abs(t) < 10 ? 4 : 2));

function boot() {
  const data = readData(document);
  document.title = `${data.title} — articula replay`;
  $('title').textContent = data.title;
  const world = makeWorld($('canvas'));
  addSurfaces(world.scene, data.scene);
  const scale = arrowScale(data.runs);
  const runs = data.runs.map((run, k) => {
    const robot = new Robot(data.model, { ghost: run.ghost, colour: k });
    const overlay = new RunOverlay(run, scale, run.ghost);
    world.scene.add(robot.root, overlay.group);
    const s = document.createElement('span');
    s.textContent = `${run.label}${run.status ? ` (${run.status})` : ''}${run.rows < run.decimated_from ?
      `, ${run.rows} of ${run.decimated_from} rows` : ''}`;
    if (run.ghost) s.className = 'ghost';
    $('runs').appendChild(s);
    return { run, robot, overlay, row: 0 };
  });
  let t0 = Infinity, t1 = -Infinity;
  for (const { run } of runs) {
    if (run.t.length === 0) continue;
    t0 = Math.min(t0, run.t[0]);
    t1 = Math.max(t1, run.t[run.t.length - 1]);
  }
  if (!(t1 >= t0)) t0 = t1 = 0;
  const span = Math.max(t1 - t0, 1e-12);

  // Events: marks on the timeline and a list, both jumping to the event's time.
  const events = [];
  runs.forEach(({ run }) => run.events.forEach((e) => events.push({ ...e, run: run.label, ghost: run.ghost })));
  events.sort((a, b) => a.t - b.t);
  for (const e of events) {
    const mark = document.createElement('div');
    mark.className = `event-mark${e.ghost ? ' ghost' : ''}`;
    mark.style.left = `${(100 * (e.t - t0)) / span}%`;
    mark.title = `t = ${fmt(e.t)} s  ${e.text}${runs.length > 1 ? ` [${e.run}]` : ''}`;
    mark.addEventListener('click', () => setTime(e.t));
    $('marks').appendChild(mark);
    const li = document.createElement('li');
    li.innerHTML = '<span class="t"></span><span class="text"></span>';
    li.querySelector('.t').textContent = `${fmt(e.t)} s`;
    li.querySelector('.text').textContent = `${e.text}${runs.length > 1 ? ` [${e.run}]` : ''}`;
    li.addEventListener('click', () => setTime(e.t));
    $('events').appendChild(li);
    e.item = li;
  }
  if (events.length === 0) $('events').innerHTML = '<li>none</li>';

  const plots = new Plots($('plots'), data, (t) => setTime(t));

  let time = t0, playing = false, last = 0, dirty = true, frames = 0;
  function setTime(t) {
    time = Math.min(Math.max(t, t0), t1);
    for (const r of runs) {
      r.row = rowAt(r.run.t, time);
      r.robot.setRow(r.run.q, r.run.nq, r.row);
      r.overlay.update(r.row);
    }
    $('slider').value = String(Math.round((10000 * (time - t0)) / span));
    $('clock').textContent = `t = ${fmt(time)} s`;
    for (const e of events) e.item.classList.toggle('current', Math.abs(e.t - time) <= 1e-9 * (1 + Math.abs(e.t)));
    plots.setTime(time);
    dirty = true;
  }

  function resize() {
    const el = $('view'), w = el.clientWidth, h = el.clientHeight;
    world.renderer.setSize(w, h, false);
    world.camera.aspect = w / Math.max(h, 1);
    world.camera.updateProjectionMatrix();
    dirty = true;
  }
  const toggle = (id, apply) => {
    const box = $(id);
    box.addEventListener('change', () => { apply(box.checked); dirty = true; });
    apply(box.checked);
  };
  toggle('show-arrows', (on) => runs.forEach((r) => { r.overlay.showArrows = on; r.overlay.update(r.row); }));
  toggle('show-path', (on) => runs.forEach((r) => r.overlay.path && (r.overlay.path.visible = on)));
  toggle('show-ghosts', (on) => runs.forEach((r) => {
    if (r.run.ghost) r.robot.root.visible = r.overlay.group.visible = on;
  }));
  toggle('show-inertia', (on) => world.scene.traverse((o) => { if (o.name === 'inertia') o.visible = on; }));
  toggle('show-axes', (on) => runs.forEach((r) => r.robot.showAxes(on)));
  toggle('show-frames', (on) => runs.forEach((r) => r.robot.showFrames(on)));

  $('slider').addEventListener('input', () => setTime(t0 + (span * Number($('slider').value)) / 10000));
  const play = (on) => {
    playing = on && t1 > t0;
    if (playing && time >= t1) setTime(t0);
    $('play').textContent = playing ? '❚❚' : '▶';
    last = performance.now();
  };
  $('play').addEventListener('click', () => play(!playing));
  window.addEventListener('keydown', (e) => {
    if (e.code === 'Space' && e.target.tagName !== 'INPUT') { e.preventDefault(); play(!playing); }
  });
  world.controls.addEventListener('change', () => { dirty = true; });
  window.addEventListener('resize', resize);

  setTime(t0);
  const box = new THREE.Box3();
  for (const r of runs) box.expandByObject(r.robot.root);
  if (box.isEmpty()) box.set(new THREE.Vector3(-0.5, -0.5, 0), new THREE.Vector3(0.5, 0.5, 1));
  frame(world, box);
  resize();

  let firstFrameMs = null;
  function loop(now) {
    if (playing) {
      const dt = ((now - last) / 1000) * Number($('speed').value);
      last = now;
      setTime(time + dt);
      if (time >= t1) play(false);
    }
    if (dirty) {
      world.renderer.render(world.scene, world.camera);
      dirty = false;
      ++frames;
      if (firstFrameMs === null) firstFrameMs = performance.now() - started;
    }
    requestAnimationFrame(loop);
  }
  requestAnimationFrame(loop);

  window.articula = {
    data,
    setTime,
    play,
    time: () => time,
    range: () => [t0, t1],
    state: () => ({
      time, frames, firstFrameMs, playing,
      rows: runs.map((r) => r.row),
      runs: runs.map((r) => ({ label: r.run.label, ghost: r.run.ghost,
                               opacity: r.robot.materials[0].opacity, visible: r.robot.root.visible })),
      events: events.length,
      plots: plots.charts.length,
      cursors: plots.charts.map((c) => Number(c.root.dataset.cursor)),
    }),
    // The world position of a named frame of run k, as the scene graph places it.
    framePosition: (k, name) => {
      const p = runs[k].robot.framePosition(name);
      return p ? [p.x, p.y, p.z] : null;
    },
    // Renders now and reads the canvas back (RGBA rows, bottom row first).
    pixels: () => readPixels(),
    // Renders now and reads the pixels back: how many differ from the background.
    drawnFraction: () => {
      const px = readPixels();
      const bg = world.scene.background;
      const [r0, g0, b0] = [bg.r, bg.g, bg.b].map((c) => Math.round(255 * c));
      let n = 0;
      for (let i = 0; i < px.length; i += 4)
        if (Math.abs(px[i] - r0) + Math.abs(px[i + 1] - g0) + Math.abs(px[i + 2] - b0) > 24) ++n;
      return n / (px.length / 4);
    },
    // Renders at times ta and tb: the fraction of pixels that changed, and the share of those
    // inside the robots' screen box (the robots' bounding boxes at both times, projected).
    pixelChange: (ta, tb) => {
      const w = world.renderer.getContext().drawingBufferWidth, h = world.renderer.getContext().drawingBufferHeight;
      const rect = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
      const grow = () => {
        const b = new THREE.Box3();
        for (const r of runs) if (r.robot.root.visible) b.expandByObject(r.robot.root);
        for (const x of [b.min.x, b.max.x]) for (const y of [b.min.y, b.max.y]) for (const z of [b.min.z, b.max.z]) {
          const v = new THREE.Vector3(x, y, z).project(world.camera);
          const px = ((v.x + 1) / 2) * w, py = ((v.y + 1) / 2) * h; // readPixels rows run bottom-up
          rect.x0 = Math.min(rect.x0, px); rect.x1 = Math.max(rect.x1, px);
          rect.y0 = Math.min(rect.y0, py); rect.y1 = Math.max(rect.y1, py);
        }
      };
      setTime(ta); const a = readPixels(); grow();
      setTime(tb); const b = readPixels(); grow();
      let changed = 0, inside = 0;
      for (let i = 0; i < a.length; i += 4) {
        if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) <= 24) continue;
        ++changed;
        const x = (i / 4) % w, y = Math.floor(i / 4 / w);
        if (x >= rect.x0 - 2 && x <= rect.x1 + 2 && y >= rect.y0 - 2 && y <= rect.y1 + 2) ++inside;
      }
      return { changed: changed / (w * h), inside: changed ? inside / changed : 0 };
    },
  };

  function readPixels() {
    world.renderer.render(world.scene, world.camera);
    const gl = world.renderer.getContext();
    const px = new Uint8Array(gl.drawingBufferWidth * gl.drawingBufferHeight * 4);
    gl.readPixels(0, 0, gl.drawingBufferWidth, gl.drawingBufferHeight, gl.RGBA, gl.UNSIGNED_BYTE, px);
    return px;
  };
}

try {
  boot();
} catch (e) {
  const div = document.createElement('div');
  div.id = 'error';
  div.textContent = `articula replay: ${e.message}`;
  document.body.prepend(div);
  console.error(e);
  window.articula = { error: e.message };
}
