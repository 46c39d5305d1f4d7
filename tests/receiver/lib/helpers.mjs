// Shared by the receiver tests: the INSTALLED package (CONSUMER_DIR, default target/consumer,
// as `make consumer` leaves it), loaded through its own "exports" map; signed deliveries;
// the drivers (better-sqlite3, pg) from the repository's node_modules; temporary folders.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const CONSUMER_DIR = resolve(process.env.CONSUMER_DIR ?? join(ROOT, 'target', 'consumer'));
export const PACKAGE_DIR = join(CONSUMER_DIR, 'node_modules', 'cryptopay-verify');
if (!existsSync(join(PACKAGE_DIR, 'package.json'))) {
  throw new Error(`cryptopay-verify is not installed in ${CONSUMER_DIR}: run make consumer (or make receiver-test)`);
}
const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8'));

/** The file the package's exports map gives for a subpath under Node's import conditions. */
export function exportedFile(subpath, condition = 'import') {
  let target = manifest.exports[subpath];
  while (target && typeof target === 'object') target = target.node ?? target[condition] ?? target.default;
  return join(PACKAGE_DIR, target);
}

/** The installed package and its receiver, as `import` sees them (one instance, shared). */
export const pkg = await import(pathToFileURL(exportedFile('.')).href);
export const rx = await import(pathToFileURL(exportedFile('./receiver')).href);

const require = createRequire(join(ROOT, 'package.json'));
export const Database = require('better-sqlite3');
export const pg = require('pg');

export const SECRET = `whsec_rx_${randomBytes(12).toString('hex')}`;
export const TS_HEADER = 'X-Webhook-Timestamp';
export const SIG_HEADER = 'X-Webhook-Signature';
export const nowSecs = () => Math.floor(Date.now() / 1000);

/** A payment.updated body; statusVersion given as a JSON number when it is a JS number, else as a string. */
export function eventBody({ eventId, paymentId, statusVersion, status = 'open', eventType = 'payment.updated', note = 'Müller – 5 €' }) {
  return Buffer.from(JSON.stringify({
    schema_version: '1',
    event_id: eventId,
    event_type: eventType,
    occurred_at: '2026-11-22T10:00:00Z',
    data: { payment_id: paymentId, status_version: statusVersion, status, order_ref: note },
  }));
}

/** The two headers of a delivery of `body` signed now (or at `timestamp`) with `secret`. */
export function signedHeaders(body, { timestamp = nowSecs(), secret = SECRET } = {}) {
  const ts = String(timestamp);
  return { [TS_HEADER]: ts, [SIG_HEADER]: pkg.signWebhook({ secret, timestamp: ts, body }) };
}

/** Options of createReceiver with these header names and secret. */
export function receiverOptions(store, extra = {}) {
  return { secrets: SECRET, maxSkewSecs: 300, timestampHeader: TS_HEADER, signatureHeader: SIG_HEADER, store, ...extra };
}

/** Collects the receiver's log lines. */
export function captureLog() {
  const lines = [];
  return { lines, warn: (line) => lines.push(`warn ${line}`), error: (line) => lines.push(`error ${line}`) };
}

export function tempDir(prefix = 'cpv-rx-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A seeded pseudo-random generator (mulberry32): reproducible runs, the seed printed. */
export function random(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  return {
    next,
    int,
    pick: (list) => list[int(list.length)],
    shuffle(list) {
      for (let i = list.length - 1; i > 0; i -= 1) {
        const j = int(i + 1);
        [list[i], list[j]] = [list[j], list[i]];
      }
      return list;
    },
  };
}

/** Reads every row of a SQLite store's tables (prefix `cryptopay_` unless given). */
export function sqliteRows(db, prefix = 'cryptopay_') {
  return {
    events: db.prepare(`SELECT * FROM ${prefix}events ORDER BY event_id`).all(),
    payments: db.prepare(`SELECT * FROM ${prefix}payments ORDER BY payment_id`).all(),
    quarantine: db.prepare(`SELECT * FROM ${prefix}quarantine ORDER BY id`).all(),
  };
}

/** Reads every row of a PostgreSQL store's tables, versions as exact text. */
export async function postgresRows(client, prefix = 'cryptopay_') {
  const q = async (sql) => (await client.query(sql)).rows;
  return {
    events: await q(`SELECT event_id, payment_id, status_version::text AS status_version, decision, received_at, body
      FROM ${prefix}events ORDER BY event_id`),
    payments: await q(`SELECT payment_id, status_version::text AS status_version, event_id, data::text AS data, updated_at
      FROM ${prefix}payments ORDER BY payment_id`),
    quarantine: await q(`SELECT id, received_at, code, body FROM ${prefix}quarantine ORDER BY id`),
  };
}

/**
 * The pooler tests' workload (pooler.test.mjs, postgresjs.test.mjs) through `receiver`: 120
 * events of 12 payments (versions 1 to 120), each delivered twice, shuffled by `seed`, 8 at a
 * time. Asserts every answer is 200 and nothing was logged (`logged`); then, in the rows
 * `read()` gives, each event recorded once with the decision one of its answers gave, and every
 * payment at its highest version, applied by the event of that version.
 */
export async function poolerBurst(receiver, { seed, logged, read }) {
  const deliveries = [];
  for (let i = 1; i <= 120; i += 1) {
    const body = eventBody({ eventId: `evt_pgb${i}`, paymentId: `pay_pgb${i % 12}`, statusVersion: i, status: `v${i}` });
    deliveries.push({ eventId: `evt_pgb${i}`, body }, { eventId: `evt_pgb${i}`, body });
  }
  random(seed).shuffle(deliveries);
  const answers = [];
  for (let i = 0; i < deliveries.length; i += 8) {
    const group = deliveries.slice(i, i + 8);
    answers.push(...await Promise.all(group.map(({ body }) => receiver.handle({ body, headers: signedHeaders(body) }))));
  }
  assert.deepEqual(answers.filter((a) => a.status !== 200).map((a) => a.body), [], logged.join('\n'));
  assert.deepEqual(logged, []);
  const rows = await read();
  assert.equal(rows.events.length, 120);
  for (const event of rows.events) {
    const said = answers.filter((_, i) => deliveries[i].eventId === event.event_id).map((a) => JSON.parse(a.body).decision);
    assert.equal(said.filter((d) => d !== 'duplicate').length, 1, `${event.event_id} answered ${said}`);
    assert.equal(event.decision, said.find((d) => d !== 'duplicate'), event.event_id);
  }
  for (let p = 0; p < 12; p += 1) {
    const highest = 120 - ((120 - p) % 12);
    const payment = rows.payments.find((r) => r.payment_id === `pay_pgb${p}`);
    assert.deepEqual([payment.status_version, payment.event_id, JSON.parse(payment.data).status], [String(highest), `evt_pgb${highest}`, `v${highest}`]);
  }
}
