// The receiver guide's "After the 2xx" statements (read from docs/receiver.md itself, so the text users copy
// is the text tested), run against what the receiver recorded in a real PostgreSQL and a real
// SQLite file: the work query lists each payment whose applied facts changed since it was
// noted as handled, and nothing else.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Database, ROOT, eventBody, receiverOptions, rx, signedHeaders, tempDir } from './lib/helpers.mjs';
import { postgresForSuite } from './lib/postgres.mjs';

/** The named statements (`-- setup:`, `-- work:`, `-- handled:`) of the guide's block `engine`. */
function readmeStatements(engine) {
  const readme = readFileSync(join(ROOT, 'docs', 'receiver.md'), 'utf8');
  const block = new RegExp(`<!-- sql: after-2xx ${engine} -->\\n\`\`\`sql\\n([\\s\\S]*?)\`\`\``).exec(readme);
  assert.ok(block, `docs/receiver.md has the after-2xx ${engine} block`);
  const statements = {};
  for (const part of block[1].split(/^-- /m).filter(Boolean)) {
    const [head, ...lines] = part.split('\n');
    statements[head.slice(0, head.indexOf(':'))] = lines.join('\n').trim().replace(/;$/, '');
  }
  assert.deepEqual(Object.keys(statements), ['setup', 'work', 'handled']);
  return statements;
}

/**
 * The same story on each engine. `db` runs a statement: run(sql, params) and all(sql) -> rows.
 * The receiver records through `store`.
 */
function story(name, makeStore, makeDb, engine) {
  test(`${name}: payments to act on, as the guide's statements find them`, async () => {
    const sql = readmeStatements(engine);
    const store = await makeStore();
    const db = await makeDb();
    const receiver = rx.createReceiver(receiverOptions(store, { log: false }));
    await receiver.ready();
    await db.run(sql.setup);
    let n = 0;
    const deliver = async (paymentId, statusVersion) => {
      n += 1;
      const body = eventBody({ eventId: `evt_after_${name}_${n}`, paymentId, statusVersion });
      const answer = await receiver.handle({ body, headers: signedHeaders(body) });
      assert.equal(answer.status, 200, answer.body);
      return [JSON.parse(answer.body).decision, body];
    };
    const work = async () => (await db.all(sql.work)).map((row) => `${row.payment_id}@${row.status_version}`);
    const handled = (row) => db.run(sql.handled, row.split('@'));

    assert.equal((await deliver('pay_a', 9))[0], 'apply');
    assert.equal((await deliver('pay_b', 1))[0], 'apply');
    assert.deepEqual(await work(), ['pay_a@9', 'pay_b@1'], 'oldest change first');
    for (const row of await work()) await handled(row);
    assert.deepEqual(await work(), [], 'nothing once noted');

    // 10 after 9: a number, not text ('10' < '9' as text).
    assert.equal((await deliver('pay_a', 10))[0], 'apply');
    assert.deepEqual(await work(), ['pay_a@10']);
    // A duplicate and a stale event change nothing to act on.
    const again = eventBody({ eventId: `evt_after_${name}_3`, paymentId: 'pay_a', statusVersion: 10 });
    const duplicate = await receiver.handle({ body: again, headers: signedHeaders(again) });
    assert.equal(JSON.parse(duplicate.body).decision, 'duplicate');
    assert.equal((await deliver('pay_a', 8))[0], 'stale');
    assert.deepEqual(await work(), ['pay_a@10']);
    // Noting an older version (a slow job finishing late) never lowers a newer note.
    await handled('pay_a@10');
    await handled('pay_a@9');
    assert.deepEqual(await work(), []);
    // Versions past 2^64, still exact.
    const big = (2n ** 64n + 1n).toString();
    assert.equal((await deliver('pay_b', big))[0], 'apply');
    assert.deepEqual(await work(), [`pay_b@${big}`]);
    await handled(`pay_b@${big}`);
    assert.deepEqual(await work(), []);
    await db.close?.();
  });
}

describe('After the 2xx: the guide\'s work and handled statements', () => {
  const suite = postgresForSuite({ max: 2 });
  story('PostgreSQL', () => rx.postgresStore(suite.pool), () => ({
    run: (text, params) => suite.pool.query(text, params),
    all: async (text) => (await suite.pool.query(text)).rows,
  }), 'postgres');

  let file;
  story('SQLite', () => {
    file = join(tempDir(), 'receiver.sqlite');
    return rx.sqliteStore(new Database(file));
  }, () => {
    const db = new Database(file);
    return {
      run: (text, params = []) => db.prepare(text).run(...params),
      all: (text) => db.prepare(text).all(),
      close: () => db.close(),
    };
  }, 'sqlite');
});
