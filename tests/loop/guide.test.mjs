// docs/merchant-loop.md's "Try it against the sandbox", run as it is written there: its code
// block saved as try.mjs in a folder beside the installed package (so `cryptopay-verify`
// resolves to it; better-sqlite3 from the repository's node_modules), run with node. It must
// exit 0 and print what its comments say it prints.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CONSUMER_DIR, Database, ROOT } from '../receiver/lib/helpers.mjs';

const GUIDE = join(ROOT, 'docs', 'merchant-loop.md');

/** The first ```js block after the heading `heading` in the guide. */
function blockAfter(heading) {
  const text = readFileSync(GUIDE, 'utf8');
  const at = text.indexOf(`\n## ${heading}\n`);
  assert.ok(at >= 0, `no section "${heading}" in ${GUIDE}`);
  const block = /```js\n([\s\S]*?)\n```/.exec(text.slice(at));
  assert.ok(block, `no js block in "${heading}"`);
  return block[1];
}

test('the guide\'s "Try it against the sandbox", run verbatim: the paid order fulfilled, the short one held for review', () => {
  const dir = mkdtempSync(join(CONSUMER_DIR, '.guide-'));
  try {
    writeFileSync(join(dir, 'try.mjs'), `${blockAfter('Try it against the sandbox')}\n`);
    const run = spawnSync(process.execPath, ['try.mjs'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 0, `try.mjs exited ${run.status ?? run.signal}:\n${run.stdout}${run.stderr}`);
    assert.equal(run.stderr, '');
    const lines = run.stdout.trim().split('\n').sort();
    assert.equal(lines.length, 3, run.stdout);
    assert.match(lines[0], /^claimed 2$/);
    assert.match(lines[1], /^fulfil order-1001: paid \(key pay_[0-9a-f]+:3\)$/);
    assert.match(lines[2], /^review order-1002: partially_paid \(key pay_[0-9a-f]+:3\)$/);
    const db = new Database(join(dir, 'shop.sqlite'), { readonly: true });
    try {
      const handled = db.prepare('SELECT o.order_ref, f.outcome, f.handled_version FROM cryptopay_orders o JOIN cryptopay_fulfilment f USING (payment_id) ORDER BY o.order_ref').all();
      assert.deepEqual(handled, [
        { order_ref: 'order-1001', outcome: 'fulfil', handled_version: '3' },
        { order_ref: 'order-1002', outcome: 'review', handled_version: '3' },
      ]);
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
