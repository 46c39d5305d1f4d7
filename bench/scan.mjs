// The JSON scanner alone, two builds side by side in one process: the glue's `checkEvent`
// (the scan `parseEvent` runs on a verified body) of each build's .wasm on the same bodies,
// alternating batch by batch (lib/runner.mjs), ratios taken per round; then the public
// `verifyWebhook` of each build on the same bodies, signed.
//
//   node --expose-gc bench/scan.mjs OLD_CONSUMER_DIR NEW_CONSUMER_DIR
//
// A consumer dir is what `scripts/consumer.sh DIR` leaves. The bodies: the benchmark's event
// (lib/inputs.mjs) at 256 B, 1 KiB, 16 KiB and 1 MiB; the 16 KiB one pretty-printed (two and
// four spaces of indent); one whose history items and pad hold text outside ASCII; and one
// whose data is a single long note outside ASCII; and the envelope alone (every field read is
// one the checks capture).
// BENCH_QUICK=1 for a short run. Prints a Markdown table: median ns per call of each build
// and the new/old ratio with its interquartile range.

import { readFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MAX_SKEW_SECS, SECRET, eventBody } from './lib/inputs.mjs';
import { runGroup } from './lib/runner.mjs';
import { median, quantile } from './lib/stats.mjs';

const [oldArg, newArg] = process.argv.slice(2);
if (!oldArg || !newArg) throw new Error('usage: node --expose-gc bench/scan.mjs OLD_CONSUMER_DIR NEW_CONSUMER_DIR');
const quick = process.env.BENCH_QUICK === '1';
const cfg = quick ? { rounds: 9, batchMs: 3, warmupMs: 40 } : { rounds: 25, batchMs: 10, warmupMs: 150 };

/** A build's glue on an instance of its own .wasm, and its public API. */
async function load(dir) {
  const req = createRequire(join(resolve(dir), 'package.json'));
  const pkg = dirname(req.resolve('cryptopay-verify/package.json'));
  const glue = await import(pathToFileURL(join(pkg, 'dist', 'cryptopay_verify_bg.js')).href);
  const module = new WebAssembly.Module(readFileSync(join(pkg, 'dist', 'cryptopay_verify_bg.wasm')));
  const instance = new WebAssembly.Instance(module, { './cryptopay_verify_bg.js': glue });
  glue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  const entry = req.resolve('cryptopay-verify').replace(/node\.cjs$/, 'node.mjs');
  return { glue, api: await import(pathToFileURL(entry).href) };
}

const builds = { old: await load(oldArg), new: await load(newArg) };

/** The event's text outside ASCII: accented Latin, Greek, CJK and an emoji. */
function nonAscii(size) {
  const words = ['café', 'Ωμέγα', '支払い済み', 'Zürich', '🚀', 'naïve'];
  const text = eventBody(size).toString('utf8')
    .replaceAll('"pending"', '"en attente — réglé"')
    .replace(/"pad":"x+"/, (pad) => {
      let fill = '';
      for (let i = 0; Buffer.byteLength(fill) < pad.length - 8; i += 1) fill += `${words[i % words.length]} `;
      return `"pad":"${fill}"`;
    });
  JSON.parse(text);
  return Buffer.from(text);
}

/** The event's data with one long note outside ASCII, about `size` bytes. */
function longNote(size) {
  const words = 'Zürich café naïve — 支払い済み 🚀 ';
  const event = JSON.parse(eventBody(256).toString());
  event.data = { payment_id: event.data.payment_id, status_version: 7, note: '' };
  while (Buffer.byteLength(JSON.stringify(event)) < size) event.data.note += words;
  return Buffer.from(JSON.stringify(event));
}

/** The envelope alone: `data` holds only the two fields the checks capture. */
function envelopeOnly() {
  const event = JSON.parse(eventBody(256).toString());
  event.data = { payment_id: event.data.payment_id, status_version: event.data.status_version };
  return Buffer.from(JSON.stringify(event));
}

const pretty = (indent) => Buffer.from(JSON.stringify(JSON.parse(eventBody(16 * 1024).toString()), null, indent));

const bodies = [
  ['256 B', eventBody(256)],
  ['envelope only', envelopeOnly()],
  ['1 KiB', eventBody(1024)],
  ['16 KiB', eventBody(16 * 1024)],
  ['1 MiB', eventBody(1024 * 1024)],
  ['16 KiB, indent 2', pretty(2)],
  ['16 KiB, indent 4', pretty(4)],
  ['16 KiB, non-ASCII', nonAscii(16 * 1024)],
  ['16 KiB, long note outside ASCII', longNote(16 * 1024)],
];

function row(label, what, res) {
  const o = res[`old ${what}`].samples;
  const n = res[`new ${what}`].samples;
  const ratios = n.map((x, i) => x / o[i]);
  return `| ${label} | ${what} | ${median(o).toFixed(0)} | ${median(n).toFixed(0)} | ` +
    `${median(ratios).toFixed(3)} (${quantile(ratios, 0.25).toFixed(3)}-${quantile(ratios, 0.75).toFixed(3)}) |`;
}

const rows = [];
for (const [label, body] of bodies) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = `v1=${createHmac('sha256', SECRET).update(`${timestamp}.`).update(body).digest('hex')}`;
  const cases = [];
  for (const [name, { glue, api }] of Object.entries(builds)) {
    cases.push(
      { id: `${name} checkEvent`, fn: () => glue.checkEvent(body) >= 0 },
      {
        id: `${name} verifyWebhook`,
        fn: () => api.verifyWebhook({ body, timestamp, signature, nowSecs: Math.floor(Date.now() / 1000), secrets: SECRET, maxSkewSecs: MAX_SKEW_SECS }),
      },
    );
  }
  const res = await runGroup(cases, { ...cfg, expectAccept: true });
  rows.push(row(`${label} (${body.length} B)`, 'checkEvent', res), row(`${label} (${body.length} B)`, 'verifyWebhook', res));
  process.stderr.write(`  scan ${label} done\n`);
}
process.stdout.write(['| body | call | old ns | new ns | new/old (IQR) |', '|---|---|---|---|---|', ...rows].join('\n') + '\n');
