// The fulfilment scenarios of lib/suite.mjs with the sandbox as their world (lib/sandbox-world.mjs):
// payments created through the client and paid, reviewed, expired and cancelled through the
// sandbox, their events delivered over HTTP with duplicates and shuffled order (seeded), confirm
// = getPayment; on a SQLite file, PostgreSQL and D1 in workerd. The cases only a script can
// make (any status, any version) stay with fulfilment.test.mjs. Every log line, onOutcome record
// and error of the run is searched for the API keys and webhook secrets at the end.

import assert from 'node:assert/strict';
import { after, describe } from 'node:test';
import { d1Engine, postgresEngine, sqliteEngine } from './lib/engines.mjs';
import { canaries } from './lib/sandbox.mjs';
import { sandboxWorld } from './lib/sandbox-world.mjs';
import { ONE_AT_A_TIME, fulfilmentScenarios } from './lib/suite.mjs';

const SEED = 20_261_205;
const watch = canaries();
const secrets = [];
const world = sandboxWorld({ duplicateRate: 0.5, shuffle: true, seed: SEED, watch });
// Each world's sandbox has its own key and secret: remember them all for the search.
const remembered = async () => {
  const made = await world();
  secrets.push(made.sandbox.apiKey, made.sandbox.webhook.secret);
  return made;
};

// The engines at once, each its scenarios one at a time (as in fulfilment.test.mjs).
describe('fulfilment through the sandbox, every engine at once', { concurrency: true }, () => {
  const through = { world: remembered, label: ' through the sandbox' };
  describe('fulfilment through the sandbox (duplicates, shuffled), on a SQLite file', ONE_AT_A_TIME, () => fulfilmentScenarios(sqliteEngine, through));
  describe('fulfilment through the sandbox (duplicates, shuffled), on PostgreSQL', ONE_AT_A_TIME, () => fulfilmentScenarios(postgresEngine(), through));
  describe('fulfilment through the sandbox (duplicates, shuffled), on D1 in workerd', ONE_AT_A_TIME, () => fulfilmentScenarios(d1Engine(), through));
});

after(() => {
  // The network did its worst: duplicates and late (stale) events reached the receivers.
  const decisions = watch.records.filter((r) => r.kind === 'delivery').map((r) => r.decision);
  assert.ok(decisions.includes('duplicate') && decisions.includes('stale'), 'duplicated and reordered deliveries arrived');
  watch.check(...secrets);
});
