// `make types-test`: JSDoc coverage of the INSTALLED package's typings (index.d.ts, receiver/index.d.ts, sandbox/index.d.ts,
// client/index.d.ts, wasm-module.d.ts), 100 % required.
// Every export, class, constructor, method, property, option and ErrorCode member has a
// description and an @example; every callable documents its parameters and what it throws
// (see jsdoc.mjs). Prints the coverage; fails naming each gap.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { errorKinds, jsText, optionNames } from '../../scripts/error-codes-dts.mjs';
import { auditDeclarations, errorCodeDocs } from './jsdoc.mjs';
import { repoRoot } from './readme.mjs';
import { LOCAL_ERRORS } from '../../npm/src/sandbox/errors.mjs';

const consumer = join(repoRoot, process.env.CONSUMER_DIR ?? join('target', 'consumer'));
const dist = join(consumer, 'node_modules', 'cryptopay-verify', 'dist');
if (!existsSync(join(dist, 'index.d.ts'))) throw new Error(`no installed typings in ${dist}: run make consumer first`);
const installed = (name) => readFileSync(join(dist, name), 'utf8');

function coverage(name, audit) {
  const gaps = audit.items.filter((i) => i.problems.length > 0);
  const total = audit.items.length;
  console.log(`JSDoc coverage of ${name}: ${total - gaps.length}/${total} declarations and members fully documented `
    + `(${(100 * (total - gaps.length) / total).toFixed(1)} %)`);
  return gaps.map((g) => `${g.name}: ${g.problems.join('; ')}`);
}

test('index.d.ts: every export, method, option and ErrorCode member is documented (100 %)', () => {
  const audit = auditDeclarations(installed('index.d.ts'));
  const gaps = coverage('index.d.ts', audit);
  assert.deepEqual(gaps, [], `undocumented:\n${gaps.join('\n')}`);
  // The audit saw the whole surface: every code, and the callables of the contract.
  assert.ok(audit.codes !== null && audit.codes.length >= 44, `ErrorCode members: ${audit.codes?.length}`);
  const names = new Set(audit.items.map((i) => i.name));
  for (const name of ['verifyWebhook', 'Verifier.constructor', 'Verifier.verifyWebhook', 'Verifier.free',
    'init', 'VerifyOptions.secrets', 'DeliveryInput.timestamp', 'ErrorCode \'signature_mismatch\'']) {
    assert.ok(names.has(name), `the audit did not see ${name}`);
  }
});

test('each ErrorCode member carries the doc of its ErrorKind in src/error/kind.rs (one source), in the core order', () => {
  const kinds = errorKinds(readFileSync(join(repoRoot, 'src', 'error', 'kind.rs'), 'utf8'));
  const options = optionNames(readFileSync(join(repoRoot, 'npm', 'types', 'index.d.ts'), 'utf8'));
  const shipped = errorCodeDocs(installed('index.d.ts'));
  const flat = (t) => t.replace(/\s+/g, ' ').trim();
  assert.deepEqual(shipped.map((m) => m.code), kinds.map((k) => k.code));
  for (const [i, { code, doc }] of kinds.entries()) {
    assert.equal(flat(shipped[i].doc), flat(jsText(doc, options)), `${code}: the installed typings are stale (run make pkg)`);
  }
  // Rust option names are written in their JavaScript form.
  assert.match(shipped.find((m) => m.code === 'body_too_large').doc, /`maxBodyBytes`/);
});

test('index.d.cts (the require condition\'s types) is the same file as index.d.ts', () => {
  assert.equal(installed('index.d.cts'), installed('index.d.ts'));
});

test('receiver/index.d.ts (cryptopay-verify/receiver): every export, member and option is documented (100 %)', () => {
  const codes = errorCodeDocs(installed('index.d.ts')).map((m) => m.code);
  const audit = auditDeclarations(installed(join('receiver', 'index.d.ts')), 'receiver/index.d.ts', codes);
  const gaps = coverage('receiver/index.d.ts', audit);
  assert.deepEqual(gaps, [], `undocumented:\n${gaps.join('\n')}`);
  const names = new Set(audit.items.map((i) => i.name));
  for (const name of ['createReceiver', 'ReceiverOptions.maxSkewSecs', 'Receiver.fetch', 'Receiver.node', 'Receiver.handle',
    'ReceiverStore.record', 'postgresStore', 'sqliteStore', 'd1Store', 'libsqlStore', 'LibsqlClientLike.batch', 'memoryStore',
    'SqliteStoreOptions.synchronous', 'receiverOptionsFromEnv', 'FromEnvOptions.required', 'lazyReceiver', 'LazyReceiverOptions.log']) {
    assert.ok(names.has(name), `the audit did not see ${name}`);
  }
});

test('receiver/index.d.cts (the require condition\'s types) is the same file as receiver/index.d.ts', () => {
  assert.equal(installed(join('receiver', 'index.d.cts')), installed(join('receiver', 'index.d.ts')));
});

// A `SandboxError` carries the service's codes (the core's ApiError table), the sandbox's own
// endpoints' (LOCAL_ERRORS) and those its methods throw by name: each is in SandboxErrorCode
// (so `err.code === '...'` compiles), and each status in the doc of SandboxError.status.
test('sandbox/index.d.ts: SandboxErrorCode is every code a SandboxError carries, its status doc every status', () => {
  const text = installed(join('sandbox', 'index.d.ts'));
  const union = /export type SandboxErrorCode =([^;]+);/.exec(text)?.[1] ?? '';
  const declared = [...union.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]).sort();
  const table = readFileSync(join(repoRoot, 'src', 'service', 'api_error.rs'), 'utf8');
  const core = [...table.matchAll(/=> "([a-z_]+)", (\d{3}),/g)].map((m) => [m[1], Number(m[2])]);
  assert.ok(core.length >= 15, `ApiError rows read: ${core.length}`);
  const sources = join(repoRoot, 'npm', 'src', 'sandbox');
  const named = readdirSync(sources).filter((f) => f.endsWith('.mjs'))
    .flatMap((f) => [...readFileSync(join(sources, f), 'utf8').matchAll(/new SandboxError\('([a-z_]+)',.*?, (\d{3})\);/g)])
    .map((m) => [m[1], Number(m[2])]);
  assert.ok(named.some(([code]) => code === 'sandbox_closed'), 'the closed sandbox\'s refusal is found');
  const thrown = [...core, ...Object.entries(LOCAL_ERRORS).map(([code, [status]]) => [code, status]), ...named];
  assert.deepEqual(declared, [...new Set(thrown.map(([code]) => code))].sort());
  const statusDoc = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*readonly status: number;/.exec(text)?.[1] ?? '';
  for (const status of new Set(thrown.map(([, s]) => s))) {
    assert.ok(statusDoc.includes(String(status)), `SandboxError.status's doc names ${status}`);
  }
});

// The closed unions of codes are every code the sources give: FulfilmentRetryCode every
// retry the loop records, ClientErrorCode every code the client gives a CryptoPayApiError.
test('receiver and client typings: FulfilmentRetryCode and ClientErrorCode are the codes the sources give', () => {
  const members = (text, name) => [...(new RegExp(`export type ${name} =([^;]+);`).exec(text)?.[1] ?? '').matchAll(/'([a-z_]+)'/g)]
    .map((m) => m[1]).sort();
  const source = (folder, file) => readFileSync(join(repoRoot, 'npm', 'src', folder, file), 'utf8');
  const fulfil = source('receiver', 'fulfil.mjs');
  const retried = [...fulfil.matchAll(/retry\('([a-z_]+)'/g), ...fulfil.matchAll(/code: '([a-z_]+)', retryInSecs/g)].map((m) => m[1]);
  assert.ok(retried.includes('pass_failed') && retried.includes('handle_failed'), retried.join());
  assert.deepEqual(members(installed(join('receiver', 'index.d.ts')), 'FulfilmentRetryCode'), [...new Set(retried)].sort());
  const client = ['client.mjs', 'record.mjs', 'transport.mjs'].map((file) => source('client', file)).join('\n');
  const given = [...client.matchAll(/code: (?:thrown\?\.timedOut \? )?'([a-z_]+)'(?: : '([a-z_]+)')?/g)].flatMap((m) => m.slice(1).filter(Boolean));
  assert.ok(given.includes('record_failed') && given.includes('network_error'), given.join());
  const declared = installed(join('client', 'index.d.ts'));
  assert.deepEqual(members(declared, 'ClientErrorCode'), [...new Set(given)].sort());
  assert.ok(/export type ClientErrorCode =[^;]+`http_\$\{number\}`;/.test(declared), 'http_<status> is a ClientErrorCode');
});

test('sandbox/index.d.ts (cryptopay-verify/sandbox): every export, member and option is documented (100 %)', () => {
  const text = installed(join('sandbox', 'index.d.ts'));
  // Codes a @throws may name: the package's ErrorCode and the sandbox's own SandboxErrorCode.
  const union = /export type SandboxErrorCode =([^;]+);/.exec(text)?.[1] ?? '';
  const sandboxCodes = [...union.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
  assert.ok(sandboxCodes.length >= 16, `SandboxErrorCode members: ${sandboxCodes.length}`);
  const codes = [...errorCodeDocs(installed('index.d.ts')).map((m) => m.code), ...sandboxCodes];
  const audit = auditDeclarations(text, 'sandbox/index.d.ts', codes);
  const gaps = coverage('sandbox/index.d.ts', audit);
  assert.deepEqual(gaps, [], `undocumented:\n${gaps.join('\n')}`);
  const names = new Set(audit.items.map((i) => i.name));
  for (const name of ['startSandbox', 'SandboxOptions.retryDelaysMs', 'SandboxOptions.duplicateRate', 'Sandbox.pay', 'Sandbox.rotate',
    'Sandbox.deliveries', 'SandboxError.status', 'DeliveryAttempt.outcome', 'SandboxPaymentView.status_version']) {
    assert.ok(names.has(name), `the audit did not see ${name}`);
  }
});

test('sandbox/index.d.cts (the require condition\'s types) is the same file as sandbox/index.d.ts', () => {
  assert.equal(installed(join('sandbox', 'index.d.cts')), installed(join('sandbox', 'index.d.ts')));
});

test('client/index.d.ts (cryptopay-verify/client): every export, member and option is documented (100 %)', () => {
  const codes = errorCodeDocs(installed('index.d.ts')).map((m) => m.code);
  const audit = auditDeclarations(installed(join('client', 'index.d.ts')), 'client/index.d.ts', codes);
  const gaps = coverage('client/index.d.ts', audit);
  assert.deepEqual(gaps, [], `undocumented:\n${gaps.join('\n')}`);
  const names = new Set(audit.items.map((i) => i.name));
  for (const name of ['createClient', 'ClientOptions.apiKey', 'Client.createPayment', 'Client.getPayment', 'Client.bootstrapWebhook',
    'CryptoPayApiError.constructor', 'CryptoPayApiError.retryable', 'CreatePaymentRequestOptions.idempotencyKey']) {
    assert.ok(names.has(name), `the audit did not see ${name}`);
  }
  assert.equal(installed(join('client', 'index.d.cts')), installed(join('client', 'index.d.ts')));
});

test('wasm-module.d.ts (the .wasm subpath) is documented (100 %)', () => {
  const gaps = coverage('wasm-module.d.ts', auditDeclarations(installed('wasm-module.d.ts'), 'wasm-module.d.ts'));
  assert.deepEqual(gaps, [], `undocumented:\n${gaps.join('\n')}`);
});

test('the audit fails on each kind of gap (negative control)', () => {
  const sample = `
/** Codes. @example x */
export type ErrorCode =
  /** Documented. */
  | 'known_code'
  | 'bare_code';
/** No example here. */
export declare function noExample(a: string): void;
/**
 * Throws undocumented.
 * @param a A.
 * @example f('x')
 */
export declare function noThrows(a: string): void;
/**
 * A code that does not exist, a missing @param and an inline options object.
 * @throws {CryptoPayError} \`no_such_code\`.
 * @example f('x', {})
 */
export declare function badThrows(a: string, options: { x: number }): void;
/** Options. @example {} */
export interface Options {
  undocumented: number;
  /** Documented without an example. */
  noExample: number;
}
/** A class. @example new C() */
export declare class C {
  method(): void;
}
`;
  const { items } = auditDeclarations(sample, 'sample.d.ts');
  const problems = Object.fromEntries(items.map((i) => [i.name, i.problems.join('; ')]));
  assert.equal(problems['ErrorCode \'known_code\''], '');
  assert.match(problems['ErrorCode \'bare_code\''], /no JSDoc/);
  assert.match(problems.noExample, /no @example/);
  assert.match(problems.noExample, /no @throws/);
  assert.match(problems.noExample, /no @param a/);
  assert.match(problems.noThrows, /no @throws/);
  assert.doesNotMatch(problems.noThrows, /@param/);
  assert.match(problems.badThrows, /`no_such_code`, which is not an ErrorCode/);
  assert.match(problems.badThrows, /no @param options/);
  assert.match(problems.badThrows, /inline object type/);
  assert.match(problems['Options.undocumented'], /no JSDoc/);
  assert.match(problems['Options.noExample'], /no @example/);
  assert.match(problems['C.method'], /no JSDoc/);
});
