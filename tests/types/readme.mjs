// Code blocks of the package README (npm/README.md), for the tests that compile
// (tests/types) and build (tests/bundlers) them. Not a test file itself.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const readmePath = join(repoRoot, 'npm', 'README.md');

/**
 * Every fenced block: { lang, code, line (1-based, of the opening fence), marker } where
 * `marker` is the text of an `<!-- ... -->` comment on the line just above the fence.
 */
export function codeBlocks(markdown = readFileSync(readmePath, 'utf8')) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    const start = i;
    const body = [];
    for (i += 1; i < lines.length && !lines[i].startsWith(fence); i += 1) body.push(lines[i]);
    const above = start > 0 ? /^<!--\s*(.*?)\s*-->\s*$/.exec(lines[start - 1]) : null;
    blocks.push({ lang: open[2].toLowerCase(), code: `${body.join('\n')}\n`, line: start + 1, marker: above?.[1] ?? null });
  }
  return blocks;
}

const IMPORTS_PACKAGE = /\bfrom\s+['"]cryptopay-verify(?:\/[^'"]*)?['"]|\brequire\(\s*['"]cryptopay-verify(?:\/[^'"]*)?['"]\s*\)|\bimport\(\s*['"]cryptopay-verify['"]\s*\)/;

/** Blocks that import the package: { ...block, typescript, commonjs }. */
export function packageBlocks(markdown) {
  return codeBlocks(markdown)
    .filter((b) => IMPORTS_PACKAGE.test(b.code))
    .map((b) => ({
      ...b,
      typescript: b.lang === 'ts' || b.lang === 'typescript' || b.lang === 'tsx',
      // CommonJS: require()s the package and has no import/export statement.
      commonjs: /\brequire\(\s*['"]cryptopay-verify/.test(b.code) && !/^\s*(?:import|export)\s/m.test(b.code),
    }));
}

/** The `<!-- recipe-file: BUNDLER FILE -->` blocks: { bundler, file, code }. */
export function recipeFiles(markdown) {
  return codeBlocks(markdown)
    .map((b) => ({ b, m: /^recipe-file:\s*(\S+)\s+(\S+)$/.exec(b.marker ?? '') }))
    .filter(({ m }) => m)
    .map(({ b, m }) => ({ bundler: m[1], file: m[2], code: b.code, line: b.line }));
}
