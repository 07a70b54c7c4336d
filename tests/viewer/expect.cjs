// One browser check of a report written by check.cjs, as its own CTest test: prints the
// check's detail and exits 0 when it passed, 1 when it failed or is absent from the report.
// usage: node expect.cjs REPORT.json NAME
'use strict';
const fs = require('node:fs');
const [file, name] = process.argv.slice(2);
let report;
try {
  report = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch (e) {
  console.error(`no report ${file}: ${e.message} (the page check did not run)`);
  process.exit(1);
}
const c = report.checks[name];
if (!c) {
  console.error(`the report of ${report.page} has no check '${name}' (checks: ${Object.keys(report.checks).join(', ')})`);
  process.exit(1);
}
console.log(`${c.ok ? 'ok' : 'FAIL'} ${name} (${report.page}): ${c.detail}`);
process.exit(c.ok ? 0 : 1);
