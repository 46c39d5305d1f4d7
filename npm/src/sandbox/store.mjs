// The sandbox's state: API keys, payments, idempotency records, events, the webhook, the
// deliveries still to make and the log of every attempt. Held in memory and, with a data
// file (--data FILE), written through to SQLite (better-sqlite3) in one transaction per
// operation, so that a restart on the same file resumes where it stopped: pending retries
// included. The file holds the sandbox's own test keys and secrets (it is a sandbox): keep
// it out of version control like any local database.

import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';

const SCHEMA_VERSION = '1';
const KINDS = ['key', 'payment', 'idempotency', 'event', 'job'];

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS sandbox_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)',
  // One row per record: kind 'key' | 'payment' | 'idempotency' | 'event' | 'job' | 'webhook',
  // the record as JSON. seq keeps the order records were first written in.
  'CREATE TABLE IF NOT EXISTS sandbox_records (kind TEXT NOT NULL, id TEXT NOT NULL, seq INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (kind, id))',
  'CREATE TABLE IF NOT EXISTS sandbox_attempts (seq INTEGER PRIMARY KEY, value TEXT NOT NULL)',
];

/**
 * better-sqlite3, loaded only when a data file is asked for (an optional peer dependency).
 * The CommonJS build requires it: a dynamic import() there fails where a test runner runs
 * CommonJS in a vm without import() (Jest's default).
 */
async function sqliteDriver() {
  const notFound = (error) => error?.code === 'ERR_MODULE_NOT_FOUND' || error?.code === 'MODULE_NOT_FOUND';
  try {
    // `require` exists in the CommonJS build only.
    return typeof require === 'function' ? require('better-sqlite3') : (await import('better-sqlite3')).default;
  } catch (error) {
    if (!notFound(error)) throw error;
    // A package installed as a link (`npm install <folder>`, `npm link`, a workspace) resolves
    // from its own folder, outside the project that installed the driver: then the project's,
    // from the folder the sandbox is started in.
    try {
      return createRequire(join(process.cwd(), 'package.json'))('better-sqlite3');
    } catch (fromProject) {
      if (!notFound(fromProject)) throw fromProject;
    }
    throw Object.assign(new Error('the sandbox keeps its state in a SQLite file (--data FILE, startSandbox({ data })) with ' +
      'better-sqlite3, an optional peer dependency of cryptopay-verify that is not installed: run npm install better-sqlite3 ' +
      '(or start without a data file to keep the state in memory)', { cause: error }), { code: 'driver_missing' });
  }
}

/**
 * The file opened by better-sqlite3. Its native addon is built by its install script, which
 * npm 12 and later run only when the project's package.json approves it (`allowScripts`):
 * installed without it, or built for another Node, the driver is refused as missing is, with
 * what to run, instead of the addon's list of paths tried.
 */
function openDatabase(Database, file) {
  try {
    return new Database(file);
  } catch (error) {
    const unbuilt = String(error?.message).startsWith('Could not locate the bindings file');
    if (!unbuilt && error?.code !== 'ERR_DLOPEN_FAILED') throw error;
    const fix = unbuilt
      ? 'is not built (npm 12 and later skip its install script unless package.json\'s allowScripts approves it): '
        + 'run npm install-scripts approve better-sqlite3, then npm rebuild better-sqlite3'
      : 'does not load in this Node (built for another version or platform): run npm rebuild better-sqlite3';
    throw Object.assign(new Error(`the sandbox keeps its state in a SQLite file (--data FILE, startSandbox({ data })) with `
      + `better-sqlite3, whose native addon ${fix} (or start without a data file to keep the state in memory)`, { cause: error }),
    { code: 'driver_missing' });
  }
}

class Store {
  constructor(db) {
    this.db = db;
    this.maps = Object.fromEntries(KINDS.map((kind) => [kind, new Map()]));
    this.webhook = null;
    this.attempts = [];
    this.meta = {};
    this.undo = null;
    this.seq = 0;
    this.resumed = false;
    this.folderCreated = false;
    if (db !== null) {
      this.sql = {
        put: db.prepare('INSERT INTO sandbox_records (kind, id, seq, value) VALUES (?, ?, ?, ?) ' +
          'ON CONFLICT (kind, id) DO UPDATE SET value = excluded.value'),
        remove: db.prepare('DELETE FROM sandbox_records WHERE kind = ? AND id = ?'),
        attempt: db.prepare('INSERT INTO sandbox_attempts (seq, value) VALUES (?, ?)'),
        meta: db.prepare('INSERT INTO sandbox_meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'),
      };
      this.transaction = db.transaction((fn) => fn());
    }
  }

  get keys() { return this.maps.key; }
  get payments() { return this.maps.payment; }
  get idempotency() { return this.maps.idempotency; }
  get events() { return this.maps.event; }
  get jobs() { return this.maps.job; }

  /** Whether the state is kept in a file. */
  get durable() {
    return this.db !== null;
  }

  load() {
    const check = this.db.prepare('SELECT value FROM sandbox_meta WHERE name = ?').get('schema');
    if (check !== undefined && check.value !== SCHEMA_VERSION) {
      throw Object.assign(new Error(`the data file was written by another version of the sandbox (schema ${check.value}, this one ${SCHEMA_VERSION}): `
        + 'start with a new file'), { code: 'data_schema_mismatch' });
    }
    // A file with no schema row is new (or was empty): said at the start, so that a mistyped
    // path is seen as a sandbox starting empty, not taken for the state it was meant to resume.
    this.resumed = check !== undefined;
    this.db.prepare('INSERT OR IGNORE INTO sandbox_meta (name, value) VALUES (?, ?)').run('schema', SCHEMA_VERSION);
    for (const { name, value } of this.db.prepare('SELECT name, value FROM sandbox_meta').all()) this.meta[name] = JSON.parse(value);
    for (const { kind, id, seq, value } of this.db.prepare('SELECT kind, id, seq, value FROM sandbox_records ORDER BY seq').all()) {
      if (kind === 'webhook') this.webhook = JSON.parse(value);
      else this.maps[kind]?.set(id, JSON.parse(value));
      this.seq = Math.max(this.seq, seq);
    }
    for (const { value } of this.db.prepare('SELECT value FROM sandbox_attempts ORDER BY seq').all()) this.attempts.push(JSON.parse(value));
  }

  /**
   * Runs `fn` as one operation: its writes reach the file in one transaction, and if it
   * throws, none of them stays, in the file or in memory.
   */
  atomic(fn) {
    if (this.undo !== null) return fn(); // already inside one
    this.undo = [];
    try {
      return this.db === null ? fn() : this.transaction(fn);
    } catch (error) {
      for (const step of this.undo.reverse()) step();
      throw error;
    } finally {
      this.undo = null;
    }
  }

  #remember(step) {
    this.undo?.push(step);
  }

  /** Writes a record of `kind` ('key', 'payment', 'idempotency', 'event', 'job'). */
  put(kind, id, value) {
    const map = this.maps[kind];
    const had = map.has(id);
    const previous = map.get(id);
    this.#remember(() => (had ? map.set(id, previous) : map.delete(id)));
    map.set(id, value);
    if (this.db !== null) {
      this.seq += 1;
      this.sql.put.run(kind, id, this.seq, JSON.stringify(value));
    }
  }

  remove(kind, id) {
    const map = this.maps[kind];
    if (!map.has(id)) return;
    const previous = map.get(id);
    this.#remember(() => map.set(id, previous));
    map.delete(id);
    if (this.db !== null) this.sql.remove.run(kind, id);
  }

  setWebhook(value) {
    const previous = this.webhook;
    this.#remember(() => { this.webhook = previous; });
    this.webhook = value;
    if (this.db !== null) {
      this.seq += 1;
      this.sql.put.run('webhook', 'webhook', this.seq, JSON.stringify(value));
    }
  }

  appendAttempt(entry) {
    this.#remember(() => this.attempts.pop());
    this.attempts.push(entry);
    if (this.db !== null) this.sql.attempt.run(entry.seq, JSON.stringify(entry));
  }

  setMeta(name, value) {
    const had = Object.hasOwn(this.meta, name);
    const previous = this.meta[name];
    this.#remember(() => { if (had) this.meta[name] = previous; else delete this.meta[name]; });
    this.meta[name] = value;
    if (this.db !== null) this.sql.meta.run(name, JSON.stringify(value));
  }

  /** The next number of a counter kept in the state (events, deliveries, attempts). */
  next(counter) {
    const value = (this.meta[counter] ?? 0) + 1;
    this.setMeta(counter, value);
    return value;
  }

  close() {
    if (this.db !== null && this.owner !== undefined) release(this.db, this.owner);
    this.db?.close();
  }
}

let opened = 0;
// The marks this process holds (its sandboxes open now): a mark of this process's id that is
// not one of them was left by an earlier process that had the same id (a container restarted
// after a crash: the same hostname, pid 1 again), and is taken over.
const held = new Set();

/** Removes this sandbox's mark from its file (at close, or when its start failed). */
function release(db, owner) {
  held.delete(owner);
  db.prepare("DELETE FROM sandbox_meta WHERE name = 'owner' AND value = ?").run(JSON.stringify(owner));
}

/** Whether process `pid` of this machine is running (EPERM: it is, another user's). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error?.code === 'EPERM';
  }
}

/**
 * Marks the file as this sandbox's (its host, process and a number), refused when another
 * sandbox of a process still running on this machine marked it: a second sandbox on the file
 * would number its events and deliveries from the same counters, each overwriting the other's.
 * A sandbox that died leaves a mark no running process holds, which the next one takes over.
 * (A mark, not a lock on the file: the file stays readable while the sandbox runs. A file
 * shared by two machines or containers, of other host names, is not guarded.)
 */
function claimFile(db, file) {
  const me = `${hostname()} ${process.pid} ${(opened += 1)}`;
  db.transaction(() => {
    const row = db.prepare("SELECT value FROM sandbox_meta WHERE name = 'owner'").get();
    if (row !== undefined) {
      const mark = String(JSON.parse(row.value));
      const [host, pid] = mark.split(' ');
      const running = Number(pid) === process.pid ? held.has(mark) : alive(Number(pid));
      if (host === hostname() && running) {
        throw Object.assign(new Error(`another sandbox (process ${pid} of this machine) is using the data file ${file}: give each `
          + 'sandbox its own file (one per test file: a temporary folder), or stop the other first'), { code: 'data_in_use' });
      }
    }
    db.prepare("INSERT INTO sandbox_meta (name, value) VALUES ('owner', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value")
      .run(JSON.stringify(me));
  }).immediate();
  held.add(me);
  return me;
}

/** The state in memory, or in the SQLite file `file` (created when missing, else resumed). */
export async function openStore(file) {
  if (file === undefined) return new Store(null);
  const Database = await sqliteDriver();
  // The first folder made, if any (mkdirSync's answer): said in the start's log line.
  const folderCreated = mkdirSync(dirname(file), { recursive: true }) !== undefined;
  const db = openDatabase(Database, file);
  let owner;
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    for (const statement of SCHEMA) db.exec(statement);
    owner = claimFile(db, file);
    const store = new Store(db);
    store.owner = owner;
    store.folderCreated = folderCreated;
    store.load();
    return store;
  } catch (error) {
    // A start that failed after marking the file (another version's file, say) leaves no mark:
    // the next start says what is wrong, not data_in_use.
    if (owner !== undefined) release(db, owner);
    db.close();
    throw error;
  }
}
