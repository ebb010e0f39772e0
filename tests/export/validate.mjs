// validate.mjs FILE...: the Khronos glTF Validator on each exported asset. Prints
// "PASS: validator FILE" when it reports no error and no warning, else "FAIL: ..." with the
// first messages; exits non-zero when any file fails.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import validator from 'gltf-validator';

let failed = 0;
for (const file of process.argv.slice(2)) {
  const report = await validator.validateBytes(new Uint8Array(readFileSync(file)), {
    uri: basename(file),
    maxIssues: 50,
  });
  const { numErrors, numWarnings, messages } = report.issues;
  const ok = numErrors === 0 && numWarnings === 0;
  const first = messages.filter((m) => m.severity <= 1).slice(0, 3)
    .map((m) => `${m.code} at ${m.pointer || ''}: ${m.message}`).join('; ');
  console.log(`${ok ? 'PASS' : 'FAIL'}: validator ${basename(file)}: ${numErrors} errors, ${numWarnings} warnings, ` +
    `${report.info.animationCount} animations, ${report.info.nodeCount ?? '?'} nodes${ok ? '' : ` (${first})`}`);
  if (!ok) failed++;
}
process.exit(failed ? 1 : 0);
