// Opens a replay page of `articula view` in headless Chromium (playwright-core) and runs the
// browser checks of docs/viewer.md, each under a name: the page loads with no console error,
// the canvas is not blank, the slider moves the robot's pixels (and the scene graph puts the
// path frame where C++ forward kinematics did), one timeline mark per event (a click jumps
// there), the ghost runs drawn translucent, the plot cursors following the time, the controls.
// Writes {name: {ok, detail}} and the load times to --report; tests/viewer/expect.cjs turns
// each name into a CTest test. Exit code 1 when any check fails.
// usage: node check.cjs PAGE.html --chromium PATH --node-modules DIR [--report JSON]
//        [--screenshot PNG] [--runs N] [--events N] [--plots N]
'use strict';
const fs = require('node:fs');
const path = require('node:path');

function parse(argv) {
  const o = { page: argv[0] };
  for (let i = 1; i < argv.length; i += 2) o[argv[i].replace(/^--/, '')] = argv[i + 1];
  return o;
}
const args = parse(process.argv.slice(2));
const { chromium } = require(path.resolve(args['node-modules'], 'playwright-core'));

const report = { page: args.page, checks: {} };
function check(name, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`);
  report.checks[name] = { ok: Boolean(ok), detail };
}
function finish(code) {
  if (args.report) fs.writeFileSync(args.report, JSON.stringify(report, null, 1));
  process.exit(code);
}

(async () => {
  const browser = await chromium.launch({
    executablePath: args.chromium,
    // Software WebGL (SwiftShader): CI machines have no GPU. No background networking: the
    // page must open offline.
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
           '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) errors.push(`request to ${r.url()}`); });
  const t = Date.now();
  await page.goto('file://' + path.resolve(args.page));
  await page.waitForFunction(() => window.articula && (window.articula.error || window.articula.state().frames > 0),
                             null, { timeout: 60000 });
  const loadMs = Date.now() - t;
  const err = await page.evaluate(() => window.articula.error);
  if (err) {
    check('loads', false, `the page reports: ${err}`);
    await browser.close();
    finish(1);
  }
  const s0 = await page.evaluate(() => window.articula.state());
  report.load_ms = loadMs;
  report.first_frame_ms = s0.firstFrameMs;
  console.log(`     loaded and drawn in ${loadMs} ms (first frame ${s0.firstFrameMs.toFixed(0)} ms after the script started)`);
  const drawn = await page.evaluate(() => window.articula.drawnFraction());
  check('canvas_not_blank', drawn > 0.02, `${(100 * drawn).toFixed(1)} % of the pixels are not background`);

  // The slider at two times: the rendered pixels change, and where the robot is.
  const [t0, t1] = await page.evaluate(() => window.articula.range());
  await page.locator('#slider').fill('2000');
  const sa = await page.evaluate(() => window.articula.state());
  await page.locator('#slider').fill('5000');
  const sb = await page.evaluate(() => window.articula.state());
  const px = await page.evaluate(([a, b]) => window.articula.pixelChange(a, b), [sa.time, sb.time]);
  check('slider_moves_robot',
        Math.abs(sb.time - (t0 + t1) / 2) <= 1e-3 * (t1 - t0) + 1e-9 && sb.rows[0] > sa.rows[0] &&
          px.changed > 0.001 && px.inside > 0.9,
        `t ${sa.time.toFixed(4)} → ${sb.time.toFixed(4)} s (rows ${sa.rows[0]} → ${sb.rows[0]}): ` +
          `${(100 * px.changed).toFixed(2)} % of the pixels changed, ${(100 * px.inside).toFixed(0)} % of them on the robots`);
  if (sb.plots > 0 || args.plots) {
    // Each cursor sits across its plot where the replay time is along [t0, t1].
    const want = [sa, sb].map((s) => (s.time - t0) / (t1 - t0));
    const at = [sa, sb].map((s) => s.cursors);
    check('plot_cursor_follows',
          sb.plots === Number(args.plots ?? sb.plots) && sb.plots > 0 &&
            at.every((cs, i) => cs.every((c) => Math.abs(c - want[i]) < 0.01)),
          `${sb.plots} plots; cursors at ${at.map((cs) => cs.map((c) => c.toFixed(3)).join(','))} of the width, ` +
            `the time at ${want.map((w) => w.toFixed(3))}`);
  }

  // The scene graph's kinematics against C++ forward_kinematics (the path points, float32).
  const worst = await page.evaluate(() => {
    const a = window.articula, st = a.state();
    let w = 0, n = 0;
    st.runs.forEach((r, k) => {
      const run = a.data.runs[k];
      if (!run.path) return;
      for (const f of [0.1, 0.37, 0.5, 0.81, 1.0]) {
        a.setTime(a.range()[0] + f * (a.range()[1] - a.range()[0]));
        const row = a.state().rows[k], p = a.framePosition(k, run.path.frame);
        if (!p) return;
        for (let i = 0; i < 3; ++i) w = Math.max(w, Math.abs(p[i] - run.path.points[3 * row + i]));
        ++n;
      }
    });
    return n ? w : -1;
  });
  if (worst >= 0) check('kinematics_match', worst < 1e-4, `path frame vs forward_kinematics, worst ${worst.toExponential(2)} m`);

  // Events: one mark and one list entry each; a click on a mark jumps to its event.
  const marks = await page.locator('.event-mark').count();
  let eventsOk = marks === s0.events && (args.events === undefined || s0.events === Number(args.events));
  let eventDetail = `${marks} marks for ${s0.events} events${args.events !== undefined ? ` (the log has ${args.events})` : ''}`;
  if (marks > 0) {
    const want = await page.evaluate(() => {
      const all = window.articula.data.runs.flatMap((r) => r.events.map((e) => e.t)).sort((a, b) => a - b);
      return all[all.length - 1];
    });
    await page.locator('.event-mark').last().click({ force: true });
    const te = await page.evaluate(() => window.articula.time());
    const current = await page.locator('#events li.current').count();
    eventsOk = eventsOk && Math.abs(te - want) < 1e-9 && current >= 1;
    eventDetail += `; a click on the last mark jumps to t = ${te} (event at ${want}), ${current} listed as current`;
  }
  check('event_marks', eventsOk, eventDetail);

  // Ghosts: translucent, and drawn (hiding them changes the pixels).
  if (args.runs !== undefined || s0.runs.length > 1) {
    const ghosts = s0.runs.filter((r) => r.ghost);
    const diff = await page.evaluate(() => {
      const a = window.articula.pixels();
      document.getElementById('show-ghosts').click();
      const b = window.articula.pixels();
      document.getElementById('show-ghosts').click();
      let n = 0;
      for (let i = 0; i < a.length; i += 4) if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 24) ++n;
      return n / (a.length / 4);
    });
    check('ghost_drawn',
          s0.runs.length === Number(args.runs ?? s0.runs.length) && ghosts.length === s0.runs.length - 1 &&
            ghosts.every((r) => r.opacity < 1 && r.visible) && s0.runs.filter((r) => !r.ghost).every((r) => r.opacity === 1) &&
            diff > 0.0005,
          `${s0.runs.length} runs, ${ghosts.length} ghosts (opacity ${ghosts.map((r) => r.opacity)}); hiding them changes ` +
            `${(100 * diff).toFixed(2)} % of the pixels`);
  }

  // Play (at 0.1×, so that the run lasts) advances the time; the frame rate while playing.
  await page.selectOption('#speed', '0.1');
  const f0 = await page.evaluate(() => {
    window.articula.setTime(window.articula.range()[0]);
    window.articula.play(true);
    return { frames: window.articula.state().frames, at: performance.now() };
  });
  await page.waitForTimeout(1500);
  const s2 = await page.evaluate(() => ({ ...window.articula.state(), at: performance.now() }));
  await page.evaluate(() => window.articula.play(false));
  await page.selectOption('#speed', '1');
  report.play_fps = (1000 * (s2.frames - f0.frames)) / (s2.at - f0.at);
  console.log(`     ${report.play_fps.toFixed(1)} frames per second while playing`);
  const toggles = ['#show-axes', '#show-frames', '#show-inertia', '#show-arrows', '#show-ghosts'];
  for (const id of toggles) await page.locator(id).click();
  check('controls', s2.time > t0 && s2.frames > f0.frames, `play advanced to t = ${s2.time.toFixed(4)} s in ${s2.frames - f0.frames} frames`);

  if (args.screenshot) {
    await page.evaluate(() => window.articula.setTime((window.articula.range()[0] + window.articula.range()[1]) * 0.55));
    for (const id of toggles) await page.locator(id).click();
    await page.waitForTimeout(200);
    await page.screenshot({ path: args.screenshot });
    console.log(`     screenshot ${args.screenshot}`);
  }
  check('loads', errors.length === 0, errors.length ? `console errors: ${errors.join(' | ')}` : 'no console error, no request off the page');
  await browser.close();
  finish(Object.values(report.checks).every((c) => c.ok) ? 0 : 1);
})().catch((e) => { console.error(e); finish(1); });
