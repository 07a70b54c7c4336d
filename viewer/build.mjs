// Bundles the viewer (SRC/src/main.js with three, uPlot and the styles) into OUTDIR/viewer.js
// and OUTDIR/viewer.css, and copies SRC/page.html beside them: the files `articula view`
// inlines into its page. The packages come from the node_modules beside this script (the
// build tree's copy made by `npm ci`, viewer/CMakeLists.txt), or from SRC's own.
// usage: node build.mjs [SRC [OUTDIR]]   (defaults: this script's folder, SRC/dist)
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const src = resolve(process.argv[2] ?? here);
const out = resolve(process.argv[3] ?? join(src, 'dist'));
mkdirSync(out, { recursive: true });
await esbuild.build({
  entryPoints: [join(src, 'src/main.js')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  legalComments: 'eof', // the MIT notices of three and uPlot stay in the bundle
  outfile: join(out, 'viewer.js'),
  nodePaths: [join(here, 'node_modules')],
  logLevel: 'warning',
});
copyFileSync(join(src, 'page.html'), join(out, 'page.html'));
