// cryptopay-verify/receiver: verify, then record each delivery atomically in PostgreSQL,
// SQLite, libsql (Turso) or Cloudflare D1, and answer. A subpath of the package: the main
// entry never imports it, and it imports no driver (the user passes an open client).
export { createReceiver } from './receiver.mjs';
export { postgresStore } from './stores/postgres.mjs';
export { sqliteStore } from './stores/sqlite.mjs';
export { d1Store } from './stores/d1.mjs';
export { libsqlStore } from './stores/libsql.mjs';
export { memoryStore } from './stores/memory.mjs';
// Framework-independent parts every deployment writes: its options from an environment object
// the caller passes, and a receiver created at the first request.
export { receiverOptionsFromEnv } from './env.mjs';
export { lazyReceiver } from './lazy.mjs';
