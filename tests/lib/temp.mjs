// Temporary folders for the tests, removed when the test process exits: one exit listener for
// all of them, however many a test file makes (a listener each had Node warn of a leak).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import './signals.mjs';

const dirs = new Set();
process.on('exit', () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A new temporary folder whose name starts with `prefix`, removed when the process exits. */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}
