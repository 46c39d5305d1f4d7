// The engines the loop's tests run on, each opening a receiver on fresh tables: a SQLite file
// (better-sqlite3), a throwaway PostgreSQL, Cloudflare D1 in workerd (through Miniflare, its
// binding used from Node), a libsql file and memoryStore. `reopen(options?)` is a restart: a
// new receiver (and, for the files, a new connection) on the same tables; `another(options)` a second
// instance beside the first (for the file, on a connection of its own).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { pathToFileURL } from 'node:url';
import { serveWithD1 } from '../../receiver/lib/d1.mjs';
import { Database, createLibsqlClient, receiverOptions, rx, tempDir } from '../../receiver/lib/helpers.mjs';
import { postgresForSuite } from '../../receiver/lib/postgres.mjs';

let opened = 0;
const fresh = (name) => `${name}${(opened += 1)}_`;

/** A receiver on a new SQLite file. */
export const sqliteEngine = {
  name: 'SQLite file',
  async open(extra = {}) {
    const file = join(tempDir(), `${fresh('loop')}.sqlite`);
    const opened = {};
    const connect = async (options) => {
      opened.db?.close();
      opened.db = new Database(file);
      opened.store = rx.sqliteStore(opened.db);
      opened.receiver = rx.createReceiver(receiverOptions(opened.store, { log: false, ...options }));
      await opened.receiver.ready();
      return opened;
    };
    const others = [];
    const another = async (options = extra) => {
      const db = new Database(file);
      others.push(db);
      const receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log: false, ...options }));
      await receiver.ready();
      return receiver;
    };
    await connect(extra);
    return Object.assign(opened, {
      file,
      reopen: (options = extra) => connect(options),
      another,
      close: async () => {
        for (const db of others) db.close();
        opened.db.close();
      },
    });
  },
};

/** A receiver on a new libsql file (@libsql/client); `another` is a second client on it. */
export const libsqlEngine = {
  name: 'libsql file',
  async open(extra = {}) {
    const url = pathToFileURL(join(tempDir(), `${fresh('loop')}.db`)).href;
    const clients = [];
    const connect = async (options) => {
      const client = createLibsqlClient({ url });
      clients.push(client);
      const store = rx.libsqlStore(client);
      const receiver = rx.createReceiver(receiverOptions(store, { log: false, ...options }));
      await receiver.ready();
      return { receiver, store };
    };
    const opened = await connect(extra);
    return Object.assign(opened, {
      reopen: async (options = extra) => Object.assign(opened, await connect(options)),
      another: async (options = extra) => (await connect(options)).receiver,
      close: async () => {
        for (const client of clients) client.close();
      },
    });
  },
};

/** A receiver on memoryStore. */
export const memoryEngine = {
  name: 'memoryStore',
  async open(extra = {}) {
    const store = rx.memoryStore();
    const receiver = rx.createReceiver(receiverOptions(store, { log: false, ...extra }));
    await receiver.ready();
    return { receiver, store, close: async () => {} };
  },
};

/** PostgreSQL for the describe block that calls this: a throwaway server, tables by prefix. */
export function postgresEngine() {
  const db = postgresForSuite({ max: 6 });
  return {
    name: 'PostgreSQL',
    db,
    async open(extra = {}) {
      const prefix = fresh('loop');
      const connect = async (options) => {
        const store = rx.postgresStore(db.pool, { prefix });
        const receiver = rx.createReceiver(receiverOptions(store, { log: false, ...options }));
        await receiver.ready();
        return { receiver, store, prefix, reopen: (more = extra) => connect(more), another: async (more = extra) => (await connect(more)).receiver, close: async () => {} };
      };
      return connect(extra);
    },
  };
}

/**
 * D1 for the describe block that calls this: workerd's D1 (a real SQLite file, through
 * Miniflare) for a Worker that does nothing; the binding, used from Node, is the store's.
 */
export function d1Engine() {
  const suite = { worker: null };
  before(async () => {
    const out = join(tempDir('cpv-loop-d1-'), 'out');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'worker.js'), 'export default { fetch: () => new Response("idle") };\n');
    suite.worker = await serveWithD1(out, { persistDir: tempDir() });
  });
  after(() => suite.worker?.dispose());
  return {
    name: 'D1 (workerd)',
    suite,
    async open(extra = {}) {
      const prefix = fresh('loop');
      const connect = async (options) => {
        const store = rx.d1Store(suite.worker.db, { prefix });
        const receiver = rx.createReceiver(receiverOptions(store, { log: process.env.LOOP_LOG ? console : false, ...options }));
        await receiver.ready();
        return { receiver, store, reopen: (more = extra) => connect(more), another: async (more = extra) => (await connect(more)).receiver, close: async () => {} };
      };
      return connect(extra);
    },
  };
}
