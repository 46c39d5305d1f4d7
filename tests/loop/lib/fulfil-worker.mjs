// One fulfilment process of the crash test (crash.test.mjs): a receiver on PostgreSQL
// (DATABASE_URL, tables PREFIX) running startFulfilment with short leases; confirm answers each
// payment's view (views.mjs); handle appends `NAME KEY ACTION` to HANDLED (the effect a crash
// may repeat), then takes a moment, as a shipping API would. SIGTERM stops the loop and exits.

import { appendFileSync } from 'node:fs';
import { pg, receiverOptions, rx } from '../../receiver/lib/helpers.mjs';
import { viewOf } from './views.mjs';

const { DATABASE_URL, PREFIX, HANDLED, NAME } = process.env;
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 3 });
const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(pool, { prefix: PREFIX }), { log: false }));
await receiver.ready();
const loop = receiver.startFulfilment({
  intervalMs: 50,
  batch: 5,
  leaseSecs: 2,
  confirm: async (paymentId) => viewOf(paymentId),
  handle: async ({ action, idempotencyKey }) => {
    appendFileSync(HANDLED, `${NAME} ${idempotencyKey} ${action}\n`);
    await new Promise((resolve) => { setTimeout(resolve, 40); });
  },
});
process.on('SIGTERM', async () => {
  await loop.stop();
  await pool.end();
  process.exit(0);
});
console.log('fulfilling');
