// The plot panels (uPlot): one per entry of data.plots, every run's channel in it (ghost runs
// dashed), a vertical line at the replay time, and a click that moves the replay there.
import uPlot from 'uplot';

const colours = ['#1f4e9c', '#c0504d', '#2e8b57', '#8064a2', '#f79646', '#4bacc6'];

export class Plots {
  constructor(container, data, onPick) {
    this.time = 0;
    this.charts = [];
    const width = Math.max(container.clientWidth - 8, 240);
    data.plots.forEach((channels, p) => {
      // One table per run (its own times), joined on the union of the times.
      const tables = [], series = [{ label: 't (s)' }];
      data.runs.forEach((run) => {
        const cols = channels.filter((c) => run.channels[c]);
        if (cols.length === 0) return;
        tables.push([Array.from(run.t), ...cols.map((c) => Array.from(run.channels[c]))]);
        cols.forEach((c) => {
          const k = channels.indexOf(c);
          series.push({ label: data.runs.length > 1 ? `${c} (${run.label})` : c, stroke: colours[k % colours.length],
                        width: 1.5, dash: run.ghost ? [6, 4] : undefined, spanGaps: true });
        });
      });
      if (tables.length === 0) return;
      const joined = tables.length === 1 ? tables[0] : uPlot.join(tables);
      const el = document.createElement('div');
      el.className = 'plot';
      el.dataset.panel = String(p);
      container.appendChild(el);
      const self = this;
      const chart = new uPlot({
        width, height: 190, series,
        scales: { x: { time: false } },
        legend: { live: true },
        hooks: {
          draw: [(u) => {
            const x = u.valToPos(self.time, 'x', true);
            const ctx = u.ctx;
            ctx.save();
            ctx.strokeStyle = '#d2372c';
            ctx.lineWidth = 1.5 * devicePixelRatio;
            ctx.beginPath();
            ctx.moveTo(x, u.bbox.top);
            ctx.lineTo(x, u.bbox.top + u.bbox.height);
            ctx.stroke();
            ctx.restore();
            u.root.dataset.cursor = String((x - u.bbox.left) / u.bbox.width); // where the cursor is, 0 to 1
          }],
        },
      }, joined, el);
      chart.over.addEventListener('click', () => {
        if (chart.cursor.left >= 0) onPick(chart.posToVal(chart.cursor.left, 'x'));
      });
      this.charts.push(chart);
    });
  }

  setTime(time) {
    this.time = time;
    for (const c of this.charts) {
      c.redraw(false, false);
      // The legend shows the values at the replay time (the last row at or before it).
      const t = c.data[0];
      let lo = 0, hi = t.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (t[mid] <= time) lo = mid; else hi = mid - 1;
      }
      if (t.length > 0) c.setLegend({ idx: lo }, false);
    }
  }
}
