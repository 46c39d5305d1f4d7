// A complete payment.updated receiver on node:http, following every receiver rule of the
// payment service's specification:
//
//   1. verify the signature first, over the raw body bytes (bounded), before any parsing;
//   2. durably record the event (append-only JSON lines, fsync) before answering;
//   3. de-duplicate by event_id;
//   4. apply data.status_version only when newer than the stored version of that payment;
//   5. answer 2xx once recorded (duplicates and stale events too), 4xx with the error code
//      for a rejected delivery, 5xx when it could not record (the service then retries);
//   6. a 2xx acknowledges delivery only: nothing here marks an order paid.
//
// It also survives a restart (the state is rebuilt from the log) and shows what it has
// recorded: GET /events, GET /payments, GET /payments/:id.
//
// Configuration (flags win over environment variables):
//   --timestamp-header NAME  TIMESTAMP_HEADER   header carrying the delivery timestamp (required)
//   --signature-header NAME  SIGNATURE_HEADER   header carrying the signature (required)
//   --port N                 PORT               default 8787; 0 picks a free port
//   --host H                 HOST               default 127.0.0.1
//   --data-dir D             DATA_DIR           where events.jsonl lives; default ./data
//   --path P                 WEBHOOK_PATH       default /webhook
//   --max-skew S             MAX_SKEW_SECS      default 300
//   CRYPTOPAY_WEBHOOK_SECRET                    the signing Secret, exactly as saved (required)
//   CRYPTOPAY_WEBHOOK_SECRET_PENDING            during a rotation: the new, not yet active Secret
//   CRYPTOPAY_WEBHOOK_SECRET_RETIRING and CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL (Unix seconds)
//                                               after activation: the old Secret, for the overlap

import { parseArgs } from 'node:util';

function configure(argv, env) {
  const { values } = parseArgs({
    args: argv,
    options: {
      'timestamp-header': { type: 'string' },
      'signature-header': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      path: { type: 'string' },
      'max-skew': { type: 'string' },
    },
  });
  const config = {
    timestampHeader: values['timestamp-header'] ?? env.TIMESTAMP_HEADER,
    signatureHeader: values['signature-header'] ?? env.SIGNATURE_HEADER,
    port: Number(values.port ?? env.PORT ?? 8787),
    host: values.host ?? env.HOST ?? '127.0.0.1',
    dataDir: values['data-dir'] ?? env.DATA_DIR ?? 'data',
    path: values.path ?? env.WEBHOOK_PATH ?? '/webhook',
    maxSkewSecs: Number(values['max-skew'] ?? env.MAX_SKEW_SECS ?? 300),
  };
  if (!config.timestampHeader || !config.signatureHeader) {
    throw new Error('set the delivery header names: --timestamp-header and --signature-header (or TIMESTAMP_HEADER, SIGNATURE_HEADER)');
  }
  if (!Number.isInteger(config.port) || config.port < 0 || config.port > 65535) throw new Error('the port is 0 to 65535');
  if (!Number.isSafeInteger(config.maxSkewSecs) || config.maxSkewSecs < 0) throw new Error('the max skew is whole seconds');
  // Secrets come from the environment only, used exactly as saved.
  const active = env.CRYPTOPAY_WEBHOOK_SECRET;
  if (active === undefined) throw new Error('CRYPTOPAY_WEBHOOK_SECRET is not set');
  config.secrets = [{ secret: active, kind: 'active' }];
  if (env.CRYPTOPAY_WEBHOOK_SECRET_PENDING) {
    config.secrets.push({ secret: env.CRYPTOPAY_WEBHOOK_SECRET_PENDING, kind: 'pending' });
  }
  if (env.CRYPTOPAY_WEBHOOK_SECRET_RETIRING) {
    const until = Number(env.CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL);
    if (!Number.isSafeInteger(until)) throw new Error('CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL (Unix seconds) is required with a retiring secret');
    config.secrets.push({ secret: env.CRYPTOPAY_WEBHOOK_SECRET_RETIRING, kind: 'retiring', acceptUntilSecs: until });
  }
  return config;
}

async function main() {
  let config;
  try {
    config = configure(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`node-receiver: ${error.message}`);
    process.exit(2);
  }
  const log = {
    info: (line) => console.log(`node-receiver: ${line}`),
    warn: (line) => console.log(`node-receiver: ${line}`),
    error: (line) => console.error(`node-receiver: ${line}`),
  };
  let startReceiver;
  try {
    ({ startReceiver } = await import('./receiver.mjs'));
  } catch (error) {
    if (error.code !== 'ERR_MODULE_NOT_FOUND' || !/'cryptopay-verify'/.test(error.message)) throw error;
    console.error('node-receiver: the package cryptopay-verify is not installed where this folder can import it:\n' +
      '  run npm install in this folder, or copy the folder next to a node_modules that has it\n' +
      '  (NODE_PATH does not apply to ES modules); see README.md');
    process.exit(2);
  }
  const receiver = await startReceiver(config, log);
  console.log(`node-receiver: ${receiver.events.records.length} events in ${config.dataDir}/events.jsonl, ` +
    `${receiver.events.payments().length} payments`);
  console.log(`node-receiver: listening on ${receiver.url}${config.path}`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await receiver.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  console.error(`node-receiver: ${error.message}`);
  process.exit(1);
});
