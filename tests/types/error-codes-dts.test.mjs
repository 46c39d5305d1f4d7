// The generator of the typings' ErrorCode block (scripts/error-codes-dts.mjs), on synthetic
// error.rs sources: the shapes the core may take (the error_kinds! macro, a plain enum), how
// Rust names become JavaScript ones, and the build failing loudly when a doc breaks the rule.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PLACEHOLDER, errorCodeBlock, errorKinds, renderTypings } from '../../scripts/error-codes-dts.mjs';

const iface = (name, ...members) => `export interface ${name} {\n${members.map((m) => `  /** Doc. */\n  ${m};`).join('\n')}\n}`;
const TEMPLATE = [
  PLACEHOLDER,
  iface('VerifyOptions', 'secrets: string', 'maxSkewSecs: number', 'maxBodyBytes?: number'),
  iface('DeliveryInput', 'nowSecs: number'),
  iface('RetiringSecretEntry', 'acceptUntilSecs: number'),
  iface('HeaderNames', 'timestampHeader: string'),
  iface('SignInput', 'encoding?: string'),
].join('\n');

const MACRO = `
macro_rules! error_kinds { ($($(#[$doc:meta])* $variant:ident => $code:literal, $message:literal;)*) => {
    /// What went wrong.
    pub enum ErrorKind { $( $(#[$doc])* $variant, )* }
} }
error_kinds! {
    /// \`body_too_large\`: the body is longer than \`max_body_bytes\`; see [\`Error\`].
    BodyTooLarge => "body_too_large",
        "the body is larger than maxBodyBytes: { braces } in a message";
    /// \`status_version_invalid\`: \`status_version\` is not an integer */ here.
    StatusVersionInvalid => "status_version_invalid", "x";
}
/// Not a kind.
pub struct Error;
`;

const ENUM = `
/// What went wrong.
#[non_exhaustive]
pub enum ErrorKind {
    /// \`timestamp_too_old\`: older than [\`max_skew_secs\`](crate::VerifyOptions::max_skew_secs),
    /// checked against \`now_secs\`.
    TimestampTooOld,
}
`;

test('reads the error_kinds! invocation (not the macro definition), in order, with its docs', () => {
  assert.deepEqual(errorKinds(MACRO), [
    { code: 'body_too_large', doc: 'the body is longer than `max_body_bytes`; see [`Error`].' },
    { code: 'status_version_invalid', doc: '`status_version` is not an integer */ here.' },
  ]);
});

test('reads a plain enum, multi-line docs kept', () => {
  assert.deepEqual(errorKinds(ENUM), [{
    code: 'timestamp_too_old',
    doc: 'older than [`max_skew_secs`](crate::VerifyOptions::max_skew_secs),\nchecked against `now_secs`.',
  }]);
});

test('writes option names in their JavaScript form, wire names as they are, links unwrapped, */ escaped', () => {
  const block = errorCodeBlock(MACRO, TEMPLATE);
  assert.match(block, /\/\*\* The body is longer than `maxBodyBytes`; see `Error`\. \*\/\n {2}\| 'body_too_large'/);
  assert.match(block, /`status_version` is not an integer \*\\\/ here\./);
  const multi = errorCodeBlock(ENUM, TEMPLATE);
  assert.match(multi, /Older than `maxSkewSecs`,\n {3}\* checked against `nowSecs`\./);
  const typings = renderTypings(TEMPLATE, MACRO);
  assert.ok(!typings.includes(PLACEHOLDER));
  assert.match(typings, /^\/\*\*[\s\S]*export type ErrorCode =\n/);
});

test('fails loudly: a doc without its code, a code that disagrees, a code twice, no placeholder', () => {
  assert.throws(() => errorKinds(MACRO.replace('`body_too_large`: ', '')), /does not start with its code/);
  assert.throws(() => errorKinds(MACRO.replace('=> "body_too_large"', '=> "body_big"')), /names `body_too_large` but its code is "body_big"/);
  assert.throws(() => errorKinds(MACRO.replace('`status_version_invalid`:', '`body_too_large`:').replace('=> "status_version_invalid"', '=> "body_too_large"')), /documented twice/);
  assert.throws(() => errorKinds('pub struct Nothing;'), /declares no/);
  assert.throws(() => renderTypings('export type X = 1;', MACRO), /placeholder/);
});
