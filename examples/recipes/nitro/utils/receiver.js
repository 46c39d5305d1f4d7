// The receiver the webhook route uses: made at the first request from the environment (never
// at build time, so `nitro build` needs neither the secret nor the database); PostgreSQL when
// DATABASE_URL is set, else a SQLite file in DATA_DIR for one server process. Until it can be
// made, each request is answered 500 not_configured or 503 store_unavailable (the service
// retries), and the next one tries again. See ../../common/receiver.mjs. In a Nuxt app:
// server/utils/receiver.js.

import { lazyNodeReceiver } from '../../common/receiver.mjs';

export const receiver = lazyNodeReceiver();
