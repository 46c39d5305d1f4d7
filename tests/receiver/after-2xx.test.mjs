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

// The operating table's view_stale row: an event signed with the merchant's secret far ahead of
// the service's versions holds the order back; the guide's statement sets it back, and the
// service's view is then handled, once, and the payment's later events apply.
describe('A payment a forged version holds back, set back by the guide\'s statement', () => {
  const statement = () => {
    const readme = readFileSync(join(ROOT, 'docs', 'receiver.md'), 'utf8');
    const block = /<!-- sql: stale-reset -->\n```sql\n([\s\S]*?)\n```/.exec(readme);
    assert.ok(block, 'docs/receiver.md has the stale-reset block');
    return block[1].replace("'pay_...'", '$1');
  };
  const amount = { kind: 'fiat', currency: 'USD', amount_raw: '1999' };
  const reset = async (name, store, run) => {
    const lines = [];
    const receiver = rx.createReceiver(receiverOptions(store, { log: { warn: (l) => lines.push(l), error: (l) => lines.push(l) } }));
    await receiver.ready();
    const paymentId = `pay_forged_${name}`;
    await receiver.recordCreated({ payment_id: paymentId, order_ref: `o-${name}`, source_amount: amount });
    const send = async (statusVersion, eventId) => {
      const body = eventBody({ eventId: `${eventId}_${name}`, paymentId, statusVersion, status: 'paid' });
      return JSON.parse((await receiver.handle({ body, headers: signedHeaders(body) })).body).decision;
    };
    assert.equal(await send('1000000', 'evt_forged'), 'apply');
    assert.equal(await send('3', 'evt_3'), 'stale');
    let version = 3;
    const view = () => JSON.stringify({ payment_id: paymentId, order_ref: `o-${name}`, source_amount: amount, status: 'paid', status_version: version, amount_received_raw: '1999' });
    const handled = [];
    const pass = () => receiver.fulfil({ confirm: async () => view(), handle: async ({ action, idempotencyKey }) => { handled.push(`${action} ${idempotencyKey}`); } });
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      assert.deepEqual((await pass()).outcomes, { retry: 1 });
      await receiver.retryNow();
    }
    const stale = lines.filter((l) => l.includes('view_stale'));
    assert.match(stale[0], /view_stale for payment pay_forged_\w+ \(attempt 1; tried again in \d+ s\): the service's view is at version 3, the applied event at 1000000$/);
    assert.match(stale.at(-1), /\(attempt 5; .*: still behind after 5 attempts, the applied event is one the service never sent .*set the payment's status_version back to '0' and call receiver\.retryNow\(\)/);
    assert.deepEqual(handled, []);
    await run(statement(), [paymentId]);
    await receiver.retryNow();
    assert.deepEqual((await pass()).outcomes, { fulfil: 1 });
    version = 4;
    assert.equal(await send('4', 'evt_4'), 'apply');
    await pass();
    assert.deepEqual(handled, [`fulfil ${paymentId}:3`]);
  };

  const suite = postgresForSuite({ max: 2 });
  test('PostgreSQL', async () => {
    await reset('pg', rx.postgresStore(suite.pool), (text, params) => suite.pool.query(text, params));
  });
  test('SQLite', async () => {
    const file = join(tempDir(), 'receiver.sqlite');
    const db = new Database(file);
    await reset('sqlite', rx.sqliteStore(db), (text, params) => db.prepare(text.replace('$1', '?')).run(...params));
  });
});
