// Run by Bun (bunsql.test.mjs copies it next to the installed package): postgresStore on Bun's
// own PostgreSQL client (Bun.SQL), through the adapter docs/receiver.md gives:
//   postgresStore({ query: async (text, values) => ({ rows: await sql.unsafe(text, values) }) })
// One scenario per run (argv[2]); its settings in the environment variable BUNSQL (JSON). It
// prints `ASK <step>` and waits for a line on stdin when the test has to act (hold a lock,
// stop the server), and ends with one line `BUNSQL_RESULT <json>`. Every Bun.SQL instance it
// opens is closed (awaited) before it prints the result, so none outlives the run.

import { signWebhook } from 'cryptopay-verify';
import { createReceiver, postgresStore } from 'cryptopay-verify/receiver';
// Copied beside this file from tests/receiver/lib, as the Node tests' helpers use it.
import { eventBody, oneByOne, random } from './events.mjs';

const config = JSON.parse(process.env.BUNSQL);
const scenario = process.argv[2];

const adapter = (sql) => ({ query: async (text, values) => ({ rows: await sql.unsafe(text, values) }) });

const instances = [];
const connect = (options = {}) => {
  const sql = config.url
    ? new Bun.SQL(config.url, { ...config.options, ...options })
    : new Bun.SQL({ host: config.socketDir, user: 'postgres', database: 'postgres', ...config.options, ...options });
  instances.push(sql);
  return sql;
};

// The test answers each ASK with one line on stdin.
const lines = (async function* read() {
  for await (const line of console) yield line;
})();
async function ask(step) {
  process.stdout.write(`ASK ${step}\n`);
  const { value, done } = await lines.next();
  if (done || value !== 'ok') throw new Error(`the test did not answer ${step}: ${value}`);
}

const receiverOf = (client, prefix, log = false, options = {}) => createReceiver({ secrets: config.secret, maxSkewSecs: 300,
  timestampHeader: config.tsHeader, signatureHeader: config.sigHeader, store: postgresStore(client, { prefix, ...options }), log });
const headersOf = (body) => {
  const ts = String(Math.floor(Date.now() / 1000));
  return { [config.tsHeader]: ts, [config.sigHeader]: signWebhook({ secret: config.secret, timestamp: ts, body }) };
};
const send = (receiver, body, bytes = body) => receiver.handle({ body, headers: headersOf(bytes) });
const decisionOf = (answer) => (answer.status === 200 ? JSON.parse(answer.body).decision ?? JSON.parse(answer.body).quarantined : answer.body);
const collecting = () => {
  const logged = [];
  return { logged, log: { warn: (line) => logged.push(line), error: (line) => logged.push(line) } };
};
// A store client counting the errors it passes on, by SQLSTATE (Bun's PostgresError: errno).
const counting = (client, states) => {
  const seen = [];
  return {
    seen,
    query: (text, values) => client.query(text, values).catch((error) => {
      if (states.includes(error.errno)) seen.push(error.errno);
      throw error;
    }),
  };
};
const failure = (promise) => promise.then(() => null, (error) => `${error.name}: ${error.message}`);

const SCENARIOS = {
  // Where each way of naming the socket connects; and the shape of sql.unsafe's answer.
  async socket() {
    const where = `SELECT current_setting('unix_socket_directories') AS dir, inet_server_addr() AS addr`;
    const out = {};
    const ways = {
      host: { host: config.socketDir, user: 'postgres', database: 'postgres', max: 1 },
      path: { path: config.socketDir, user: 'postgres', database: 'postgres', max: 1 },
      url: [config.serverUrl, { max: 1 }],
    };
    for (const [name, options] of Object.entries(ways)) {
      const sql = Array.isArray(options) ? new Bun.SQL(...options) : new Bun.SQL(options);
      instances.push(sql);
      const [row] = await sql.unsafe(where);
      out[name] = [row.dir, row.addr];
    }
    const sql = connect({ max: 1 });
    const rows = await sql.unsafe('SELECT $1::text AS a, $2::numeric AS n UNION ALL SELECT $3, 1', ['x', String(2n ** 64n), 'y']);
    out.rows = { isArray: Array.isArray(rows), rows: [...rows].map((r) => ({ ...r })) };
    out.multi = await failure(sql.unsafe('SELECT 1; SELECT 2'));
    return out;
  },

  async ready() {
    const sql = connect({ max: 2 });
    const ready = (options) => receiverOf(adapter(sql), 'later_', false, options).ready();
    const out = {};
    out.missing = await failure(ready({ createTables: false }));
    out.first = await failure(ready({}));
    await ask('stored');
    out.again = await failure(ready({}));
    out.checked = await failure(ready({ createTables: false }));
    await ask('jsonb');
    out.jsonb = await failure(ready({ createTables: false }));
    return out;
  },

  async one() {
    const sql = connect({ max: 2 });
    const receiver = receiverOf(adapter(sql), config.prefix);
    await receiver.ready();
    const answers = [];
    for (const [body, bytes] of oneByOne().deliveries) answers.push(decisionOf(await send(receiver, body, bytes)));
    return { answers };
  },

  async concurrent() {
    const sql = connect({ max: 8 });
    const receiver = receiverOf(adapter(sql), config.prefix);
    await receiver.ready();
    const rounds = [];
    for (let round = 0; round < 20; round += 1) {
      const deliveries = [];
      for (let v = 1; v <= 8; v += 1) {
        const body = eventBody({ eventId: `evt_c${round}_${v}`, paymentId: `pay_c${round}`, statusVersion: v, status: `v${v}` });
        for (let copy = 0; copy < 3; copy += 1) deliveries.push({ eventId: `evt_c${round}_${v}`, body });
      }
      random(config.seed + round).shuffle(deliveries);
      const answers = await Promise.all(deliveries.map(({ body }) => send(receiver, body)));
      rounds.push(deliveries.map(({ eventId }, i) => [eventId, answers[i].status, decisionOf(answers[i])]));
    }
    return { rounds };
  },

  // B takes its snapshot, then waits on pay_b (the test holds its row); A records the same
  // event_id for pay_a and commits; B, released, meets A's events row: 23505.
  async race() {
    const sql = connect({ max: 4 });
    const client = counting(adapter(sql), ['23505']);
    const { logged, log } = collecting();
    const receiver = receiverOf(client, config.prefix, log);
    await receiver.ready();
    const seed = decisionOf(await send(receiver, eventBody({ eventId: 'evt_seed', paymentId: 'pay_b', statusVersion: 1 })));
    await ask('lock');
    const answerB = send(receiver, eventBody({ eventId: 'evt_race', paymentId: 'pay_b', statusVersion: 2 }));
    await ask('waiting');
    const a = await send(receiver, eventBody({ eventId: 'evt_race', paymentId: 'pay_a', statusVersion: 2 }));
    await ask('commit');
    const b = await answerB;
    return { seed, a: [a.status, a.body], b: [b.status, b.body], violations: client.seen.length, logged };
  },

  async serializable() {
    const sql = connect({ max: 8, connection: { default_transaction_isolation: 'serializable' } });
    const [{ isolation }] = await sql.unsafe("SELECT current_setting('default_transaction_isolation') AS isolation");
    const client = counting(adapter(sql), ['40001', '40P01']);
    const { logged, log } = collecting();
    const receiver = receiverOf(client, config.prefix, log);
    await receiver.ready();
    const rounds = [];
    for (let round = 0; round < 10; round += 1) {
      const deliveries = [];
      for (let v = 1; v <= 8; v += 1) {
        const body = eventBody({ eventId: `evt_i${round}_${v}`, paymentId: `pay_i${round}`, statusVersion: v });
        for (let copy = 0; copy < 3; copy += 1) deliveries.push(body);
      }
      random(config.seed + 100 + round).shuffle(deliveries);
      const answers = await Promise.all(deliveries.map((body) => send(receiver, body)));
      rounds.push(answers.map((answer) => [answer.status, decisionOf(answer)]));
    }
    return { isolation, rounds, failures: client.seen.length, logged: logged.slice(0, 3) };
  },

  // 240 deliveries (120 events, two copies each), 8 at a time.
  async pooler() {
    const sql = connect({ max: 8 });
    const { logged, log } = collecting();
    const receiver = receiverOf(adapter(sql), config.prefix, log);
    const ready = await failure(receiver.ready());
    const deliveries = [];
    for (let i = 1; i <= 120; i += 1) {
      const body = eventBody({ eventId: `evt_pgb${i}`, paymentId: `pay_pgb${i % 12}`, statusVersion: i, status: `v${i}` });
      deliveries.push({ eventId: `evt_pgb${i}`, body }, { eventId: `evt_pgb${i}`, body });
    }
    random(config.seed + 2).shuffle(deliveries);
    const answers = [];
    for (let i = 0; i < deliveries.length; i += 8) {
      const group = deliveries.slice(i, i + 8);
      answers.push(...await Promise.all(group.map(({ body }) => send(receiver, body))));
    }
    return { ready, answers: deliveries.map(({ eventId }, i) => [eventId, answers[i].status, decisionOf(answers[i])]), logged };
  },

  async restart() {
    const sql = connect({ max: 4, connectionTimeout: 5 });
    const { logged, log } = collecting();
    const receiver = receiverOf(adapter(sql), config.prefix, log);
    await receiver.ready();
    const out = {};
    out.first = decisionOf(await send(receiver, eventBody({ eventId: 'evt_r1', paymentId: 'pay_r', statusVersion: 1 })));
    await ask('stop');
    const second = eventBody({ eventId: 'evt_r2', paymentId: 'pay_r', statusVersion: 2 });
    const down = await send(receiver, second);
    out.down = [down.status, down.body];
    out.loggedDown = [...logged];
    await ask('start');
    out.after = [decisionOf(await send(receiver, second)), decisionOf(await send(receiver, second))];
    out.logged = logged.length;
    return out;
  },
};

let result;
try {
  result = { ok: await SCENARIOS[scenario]() };
} catch (error) {
  result = { error: `${error?.name}: ${error?.message}\n${error?.stack}` };
} finally {
  await Promise.all(instances.map((sql) => sql.close()));
}
// Exits once the line is written (a pending write would be cut short by process.exit, and a
// reader of stdin keeps the process alive).
process.stdout.write(`BUNSQL_RESULT ${JSON.stringify(result)}\n`, () => process.exit(0));
