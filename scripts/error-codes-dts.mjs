// The `ErrorCode` block of the package's typings, generated from the core's own docs.
//
// src/error/kind.rs documents every `ErrorKind` variant with a doc comment that starts with its
// code ("/// `body_too_large`: the body is longer than `max_body_bytes`."). This script reads
// those comments (the one source), and writes them as the JSDoc of each member of the
// `ErrorCode` union, in the core's order. `make pkg` (scripts/build-pkg.mjs) calls it at build
// time, so a reworded doc in Rust reaches the typings with no copy to keep in step.
//
// The core names Rust items; the typings speak JavaScript. A backquoted Rust option name whose
// camelCase form is an option of the typings (`max_skew_secs` -> `maxSkewSecs`, read from the
// typings template's option interfaces, not from a list kept here) is written in its
// JavaScript form; wire names (`status_version`, `amount_raw`) are not options and stay as
// they are. Rustdoc link syntax ([`X`](path), [`X`]) becomes plain `X`.
//
// Usage: node scripts/error-codes-dts.mjs   (prints the block for src/error/kind.rs)

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The line of the typings template that the block replaces. */
export const PLACEHOLDER = '// @generated ErrorCode: written here by scripts/error-codes-dts.mjs from src/error/kind.rs';

/** The option interfaces of the typings whose member names are the binding's option names. */
const OPTION_INTERFACES = ['VerifyOptions', 'DeliveryInput', 'RetiringSecretEntry', 'HeaderNames', 'SignInput'];

class GenerateError extends Error {}

/**
 * The variants of `ErrorKind` as [{ code, doc }] in declaration order: each variant's `///`
 * lines, the code they start with, and the code literal of the variant's line when it has one
 * (they must agree).
 */
export function errorKinds(errorRs) {
  // The macro invocation when the enum is written through `error_kinds!`, else the enum itself.
  let start = errorRs.search(/^[ \t]*error_kinds![ \t]*\{/m);
  if (start < 0) start = errorRs.search(/^[ \t]*pub[ \t]+enum[ \t]+ErrorKind[ \t]*\{/m);
  if (start < 0) throw new GenerateError('src/error/kind.rs declares no `error_kinds! { ... }` and no `pub enum ErrorKind { ... }`');
  const lines = errorRs.slice(start).split('\n').slice(1);
  const kinds = [];
  let doc = [];
  let depth = 1;
  for (const raw of lines) {
    const line = raw.trim();
    for (const ch of line.replace(/"(?:[^"\\]|\\.)*"/g, '')) {
      if (ch === '{') depth += 1;
      if (ch === '}') depth -= 1;
    }
    if (depth <= 0) break;
    if (line.startsWith('///')) {
      doc.push(line.slice(3).replace(/^ /, ''));
      continue;
    }
    if (line === '' || line.startsWith('//') || line.startsWith('#[')) continue;
    // The first line after a doc comment is the variant (or a continuation of the previous one).
    if (doc.length === 0) continue;
    const text = doc.join('\n').trim();
    const lead = /^`([a-z][a-z0-9_]*)`\s*:\s*/.exec(text);
    if (!lead) throw new GenerateError(`the doc of ${line.split(/\s/)[0]} does not start with its code (\`code\`: ...)`);
    const literal = /=>\s*"([a-z][a-z0-9_]*)"/.exec(line)?.[1];
    if (literal !== undefined && literal !== lead[1]) {
      throw new GenerateError(`the doc of ${line.split(/\s/)[0]} names \`${lead[1]}\` but its code is "${literal}"`);
    }
    kinds.push({ code: lead[1], doc: text.slice(lead[0].length) });
    doc = [];
  }
  if (kinds.length === 0) throw new GenerateError('no documented ErrorKind variant found in src/error/kind.rs');
  const seen = new Set();
  for (const { code } of kinds) {
    if (seen.has(code)) throw new GenerateError(`the code ${code} is documented twice`);
    seen.add(code);
  }
  return kinds;
}

/** The option names of the typings template (members of its option interfaces). */
export function optionNames(template) {
  const names = new Set();
  for (const name of OPTION_INTERFACES) {
    const body = new RegExp(`export interface ${name}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(template)?.[1];
    if (body === undefined) throw new GenerateError(`the typings template has no interface ${name}`);
    const withoutComments = body.replace(/\/\*[\s\S]*?\*\//g, '');
    for (const m of withoutComments.matchAll(/^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*)\??\s*:/gm)) names.add(m[1]);
  }
  return names;
}

const camel = (snake) => snake.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

/** Rustdoc text as JSDoc text: links unwrapped, Rust option names in their JavaScript form. */
export function jsText(doc, options) {
  const text = doc
    .replace(/\[`([^`]+)`\]\([^)]*\)/g, '`$1`')
    .replace(/\[`([^`]+)`\]/g, '`$1`')
    .replace(/`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`/g, (whole, name) => (options.has(camel(name)) ? `\`${camel(name)}\`` : whole))
    .replace(/\*\//g, '*\\/');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The block that replaces PLACEHOLDER: the documented `ErrorCode` union. */
export function errorCodeBlock(errorRs, template) {
  const options = optionNames(template);
  const members = errorKinds(errorRs).map(({ code, doc }) => {
    const lines = jsText(doc, options).split('\n');
    const comment = lines.length === 1
      ? `  /** ${lines[0]} */`
      : ['  /**', ...lines.map((l) => (l ? `   * ${l}` : '   *')), '   */'].join('\n');
    return `${comment}\n  | '${code}'`;
  });
  return [
    '/**',
    ' * Every stable error code, as `err.code` of a {@link CryptoPayError}. New codes may be added;',
    ' * none is ever renamed. Each member\'s documentation is the Rust core\'s own (`ErrorKind`),',
    ' * generated at build time. `errorCodes()` lists the same codes at run time.',
    ' *',
    ' * @example',
    ' * ```ts',
    ' * function status(code: ErrorCode): number {',
    ' *   return code === \'body_too_large\' ? 413 : 400;',
    ' * }',
    ' * ```',
    ' */',
    'export type ErrorCode =',
    `${members.join('\n')};`,
  ].join('\n');
}

/** The typings template with the block written in place of PLACEHOLDER. */
export function renderTypings(template, errorRs) {
  const at = template.indexOf(PLACEHOLDER);
  if (at < 0 || template.indexOf(PLACEHOLDER, at + 1) >= 0) {
    throw new GenerateError('the typings template must hold the ErrorCode placeholder line exactly once');
  }
  return template.replace(PLACEHOLDER, () => errorCodeBlock(errorRs, template));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const template = readFileSync(join(root, 'npm', 'types', 'index.d.ts'), 'utf8');
    console.log(errorCodeBlock(readFileSync(join(root, 'src', 'error', 'kind.rs'), 'utf8'), template));
  } catch (error) {
    if (!(error instanceof GenerateError)) throw error;
    console.error(`error-codes-dts: ${error.message}`);
    process.exit(1);
  }
}
