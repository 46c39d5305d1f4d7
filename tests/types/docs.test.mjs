// `make types-test`: the JavaScript and TypeScript blocks of the repository's own documents
// (README.md, docs/, the examples' READMEs), which users copy as they stand. The package README
// (npm/README.md) is type-checked whole by typings.test.mjs, and the recipes README's blocks are
// held to the recipes' sources by examples/recipes/tests/readme.test.mjs; the blocks here are
// fragments (names defined in the text around them), so they are held to what a fragment can
// be held to:
// 1. each parses as an ES module (TypeScript blocks as TypeScript), unless the line above it
//    is `<!-- not a module: WHY -->` (a list of alternatives, a method out of its class), and
//    then it must still fail to, so that the note goes when it is no longer true;
// 2. each name it imports from the package is one that the installed package (target/consumer)
//    exports from that entry (or, for `import type`, that its typings declare).

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { transformSync } from 'esbuild';
import { codeBlocks, repoRoot } from './readme.mjs';

const consumer = join(repoRoot, process.env.CONSUMER_DIR ?? join('target', 'consumer'));
// A module inside the consumer project imports the package for us, so that each entry is
// resolved as a user's `import` resolves it (the ESM entry, not the CommonJS one).
const importer = join(consumer, 'docs-check', 'import.mjs');
mkdirSync(join(consumer, 'docs-check'), { recursive: true });
writeFileSync(importer, 'export default (specifier) => import(specifier);\n');

const mdIn = (dir) => readdirSync(join(repoRoot, dir)).filter((f) => f.endsWith('.md')).map((f) => join(dir, f));
const examples = readdirSync(join(repoRoot, 'examples'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => mdIn(join('examples', d.name)).filter((f) => f.endsWith('README.md')));
const DOCUMENTS = ['README.md', ...mdIn('docs'), ...examples];

const LANGS = { js: 'js', javascript: 'js', mjs: 'js', jsx: 'jsx', ts: 'ts', typescript: 'ts', tsx: 'tsx' };

const blocks = DOCUMENTS.flatMap((file) => codeBlocks(readFileSync(join(repoRoot, file), 'utf8'))
  .filter((b) => LANGS[b.lang] !== undefined)
  .map((b) => ({ ...b, file, where: `${file}:${b.line}`, loader: LANGS[b.lang] })));

function parseError(block) {
  try {
    transformSync(block.code, { loader: block.loader, format: 'esm', target: 'esnext', logLevel: 'silent' });
    return null;
  } catch (error) {
    return error.errors?.[0]?.text ?? String(error);
  }
}

test('the documents have blocks to check, in each kind of document', () => {
  assert.ok(blocks.length >= 30, `only ${blocks.length} blocks found`);
  for (const file of ['README.md', 'docs/receiver.md', 'docs/merchant-loop.md', 'examples/recipes/README.md']) {
    assert.ok(blocks.some((b) => b.file === file), `no JavaScript or TypeScript block found in ${file}`);
  }
});

test('every block parses as an ES module, or says why it is not one', () => {
  const problems = [];
  for (const block of blocks) {
    const error = parseError(block);
    const why = /^not a module:\s*(\S.*)$/.exec(block.marker ?? '')?.[1];
    if (why === undefined && error !== null) problems.push(`${block.where}: ${error}`);
    if (why !== undefined && error === null) problems.push(`${block.where}: marked "not a module" but parses: remove the note`);
  }
  assert.deepEqual(problems, []);
});

const IMPORT = /\bimport\s+(type\s+)?\{([^}]*)\}\s*from\s*['"](cryptopay-verify(?:\/[\w-]+)?)['"]/g;

// The names the installed package exports from an entry, imported once each.
const entries = new Map();
async function exportsOf(specifier) {
  if (!entries.has(specifier)) {
    const { default: importFromConsumer } = await import(pathToFileURL(importer).href);
    entries.set(specifier, new Set(Object.keys(await importFromConsumer(specifier))));
  }
  return entries.get(specifier);
}

// The typings the package names for an entry (its `types` condition), as text.
function typingsOf(specifier) {
  const pkgDir = join(consumer, 'node_modules', 'cryptopay-verify');
  const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const sub = specifier === 'cryptopay-verify' ? '.' : `./${specifier.slice('cryptopay-verify/'.length)}`;
  const found = [];
  (function walk(node) {
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'types' && typeof value === 'string') found.push(value);
      else walk(value);
    }
  })(manifest.exports[sub]);
  assert.ok(found.length > 0, `the package names no typings for ${specifier}`);
  return found.map((p) => readFileSync(join(pkgDir, p), 'utf8')).join('\n');
}

test('every name a block imports from the package is one the package exports there', async () => {
  const problems = [];
  let checked = 0;
  for (const block of blocks) {
    for (const [, typeOnly, names, specifier] of block.code.matchAll(IMPORT)) {
      for (const raw of names.split(',')) {
        const item = raw.trim();
        if (item === '') continue;
        const inlineType = item.startsWith('type ');
        const name = item.replace(/^type\s+/, '').split(/\s+as\s+/)[0];
        checked += 1;
        if (typeOnly !== undefined || inlineType) {
          if (!new RegExp(`\\b(?:interface|type|class|function|const)\\s+${name}\\b`).test(typingsOf(specifier))) {
            problems.push(`${block.where}: the typings of ${specifier} declare no ${name}`);
          }
        } else if (!(await exportsOf(specifier)).has(name)) {
          problems.push(`${block.where}: ${specifier} exports no ${name}`);
        }
      }
    }
  }
  assert.ok(checked >= 10, `only ${checked} imported names found`);
  assert.deepEqual(problems, []);
});
