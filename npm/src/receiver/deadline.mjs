// A store whose calls settle within STORE_CALL_MS. A driver or a connection that never
// answers (postgres.js 4 through PgBouncer in transaction mode wedged so; a pool with no
// timeout waits behind a lock for as long as it is held) would hold every delivery open with
// no log line, and the fulfilment loop with them: past the deadline the call fails, and the
// receiver answers 503 (retried) and says so. A write that commits after it gave up is found
// by the retry (`duplicate`), as with a client-side query timeout.

import { STORE_CALL_MS } from './limits.mjs';

/** The error of a store call that did not settle in time (its method named, nothing else). */
const late = (name, ms) => new Error(`the store's ${name}() did not answer within ${ms / 1000} s: a connection or driver that hangs `
  + '(postgres.js 4 through a pooler in transaction mode does, where 3.4 does not; a pool with no query timeout waits on a lock as long '
  + 'as it is held, pg_stat_activity names the holder); the call may still finish, and a retry finds what it wrote');

/**
 * `store` with each method but ready() (a migration may take minutes: its own limits hold)
 * raced against `ms`: a promise it returns rejects with a line naming the method once `ms` pass.
 * Values that are not promises, and properties, are the store's own.
 */
export function deadlined(store, ms = STORE_CALL_MS) {
  if (store === null || typeof store !== 'object') return store;
  return new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (typeof value !== 'function' || typeof name !== 'string' || name === 'ready') return value;
      return function withinDeadline(...args) {
        const result = value.apply(target, args);
        if (typeof result?.then !== 'function') return result;
        let timer;
        const expired = new Promise((resolve, reject) => {
          timer = setTimeout(() => reject(late(name, ms)), ms);
          timer?.unref?.();
        });
        return Promise.race([result, expired]).finally(() => clearTimeout(timer));
      };
    },
  });
}
