// `make types-test`: the installed package's typings, compiled as users compile them.
//
// 1. Every code block of npm/README.md that imports the package is written to a
//    file and type-checked against the INSTALLED package (target/consumer) under `strict`
//    (plus noUncheckedIndexedAccess, exactOptionalPropertyTypes, verbatimModuleSyntax),
//    without skipLibCheck: with module/moduleResolution nodenext as ESM (package type
//    "module") and as CommonJS (type "commonjs", the blocks that require() the package), and
//    with moduleResolution bundler. The README's blocks run on servers and in browsers, so
//    those projects have the DOM lib and @types/node, as a Next.js project has.
// 2. The typings alone, with lib ["es2022"] and types [] (no DOM, no Node): fixtures/
//    contract.mts and contract.cts use every export through index.d.ts and index.d.cts, and
//    hold `@ts-expect-error` lines that fail the compile if a wrong call type-checks;
//    fixtures/receiver.mts and receiver.cts do the same for cryptopay-verify/receiver, and
//    fixtures/sandbox.mts and sandbox.cts for cryptopay-verify/sandbox.
//    fixtures/loop.mts and loop.cts for the merchant loop (the client, fulfilment, linkEvent).
// Each project is compiled by TypeScript 7 (`typescript`, the native compiler) and by
// TypeScript 5.9 (`typescript-5`, the JavaScript compiler most projects still use).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { packageBlocks, repoRoot } from './readme.mjs';

const consumer = join(repoRoot, process.env.CONSUMER_DIR ?? join('target', 'consumer'));
if (!existsSync(join(consumer, 'node_modules', 'cryptopay-verify', 'package.json'))) {
  throw new Error(`cryptopay-verify is not installed in ${consumer}: run make consumer first`);
}
const work = join(consumer, 'types-check');
const COMPILERS = [
  ['TypeScript 7', join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc')],
  ['TypeScript 5.9', join(repoRoot, 'node_modules', 'typescript-5', 'bin', 'tsc')],
];

const STRICT = {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  target: 'es2022',
  moduleDetection: 'force',
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  forceConsistentCasingInFileNames: true,
};
const README_ENV = {
  ...STRICT,
  verbatimModuleSyntax: true,
  allowJs: true,
  checkJs: true,
  lib: ['es2022', 'dom', 'dom.iterable'],
  types: ['node'],
  typeRoots: [join(repoRoot, 'node_modules', '@types')],
};
const BARE_ENV = { ...STRICT, lib: ['es2022'], types: [] };
const NODENEXT = { module: 'nodenext', moduleResolution: 'nodenext' };
const BUNDLER = { module: 'preserve', moduleResolution: 'bundler' };

const blocks = packageBlocks();
const esmBlocks = blocks.filter((b) => !b.commonjs);
const cjsBlocks = blocks.filter((b) => b.commonjs);

// A block's file name: its README line, and an extension that says its language and format.
function blockFile(block, { cjsProject }) {
  const ext = block.commonjs
    ? (block.typescript ? 'cts' : 'cjs')
    : cjsProject ? (block.typescript ? 'mts' : 'mjs') : (block.typescript ? 'ts' : 'js');
  return { name: `readme-line-${block.line}.${ext}`, code: block.code };
}

function writeProject(name, { type, compilerOptions, files }) {
  const dir = join(work, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `types-${name}`, private: true, type }, null, 2)}\n`);
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify({ compilerOptions, files: files.map((f) => f.name) }, null, 2)}\n`);
  for (const file of files) {
    if (file.from) copyFileSync(file.from, join(dir, file.name));
    else writeFileSync(join(dir, file.name), file.code);
  }
  return dir;
}

function compile(tsc, dir) {
  const run = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], {
    cwd: dir, encoding: 'utf8', timeout: 120_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim(), error: run.error };
}

const fixture = (name) => join(repoRoot, 'tests', 'types', 'fixtures', name);
const PROJECTS = [
  {
    name: 'readme-nodenext-esm',
    what: 'README blocks (ESM), nodenext',
    type: 'module',
    compilerOptions: { ...README_ENV, ...NODENEXT },
    files: () => esmBlocks.map((b) => blockFile(b, { cjsProject: false })),
  },
  {
    name: 'readme-nodenext-cjs',
    what: 'README blocks (CommonJS), nodenext, package type commonjs',
    type: 'commonjs',
    compilerOptions: { ...README_ENV, ...NODENEXT },
    files: () => cjsBlocks.map((b) => blockFile(b, { cjsProject: true })),
  },
  {
    name: 'readme-bundler',
    what: 'README blocks (ESM), bundler',
    type: 'module',
    compilerOptions: { ...README_ENV, ...BUNDLER },
    files: () => esmBlocks.map((b) => blockFile(b, { cjsProject: false })),
  },
  {
    // verbatimModuleSyntax with module preserve refuses require() in .cjs files (TS1293):
    // CommonJS under a bundler is checked without it.
    name: 'readme-bundler-cjs',
    what: 'README blocks (CommonJS), bundler',
    type: 'module',
    compilerOptions: { ...README_ENV, verbatimModuleSyntax: false, ...BUNDLER },
    files: () => cjsBlocks.map((b) => blockFile(b, { cjsProject: false })),
  },
  {
    name: 'typings-nodenext',
    what: 'the typings alone, lib es2022 and types [], nodenext (index.d.ts and index.d.cts)',
    type: 'module',
    compilerOptions: { ...BARE_ENV, ...NODENEXT },
    files: () => [
      { name: 'contract.mts', from: fixture('contract.mts') }, { name: 'contract.cts', from: fixture('contract.cts') },
      { name: 'receiver.mts', from: fixture('receiver.mts') }, { name: 'receiver.cts', from: fixture('receiver.cts') },
      { name: 'sandbox.mts', from: fixture('sandbox.mts') }, { name: 'sandbox.cts', from: fixture('sandbox.cts') },
      { name: 'loop.mts', from: fixture('loop.mts') }, { name: 'loop.cts', from: fixture('loop.cts') },
    ],
  },
  {
    name: 'typings-bundler',
    what: 'the typings alone, lib es2022 and types [], bundler',
    type: 'module',
    compilerOptions: { ...BARE_ENV, ...BUNDLER },
    files: () => [
      { name: 'contract.ts', from: fixture('contract.mts') }, { name: 'contract.cts', from: fixture('contract.cts') },
      { name: 'receiver.ts', from: fixture('receiver.mts') }, { name: 'receiver.cts', from: fixture('receiver.cts') },
      { name: 'sandbox.ts', from: fixture('sandbox.mts') }, { name: 'sandbox.cts', from: fixture('sandbox.cts') },
      { name: 'loop.ts', from: fixture('loop.mts') }, { name: 'loop.cts', from: fixture('loop.cts') },
    ],
  },
  {
    name: 'typings-disposable',
    what: 'the typings with lib es2022 and esnext.disposable (`using` a Verifier), nodenext',
    type: 'module',
    compilerOptions: { ...BARE_ENV, lib: ['es2022', 'esnext.disposable'], ...NODENEXT },
    files: () => [{ name: 'disposable.mts', from: fixture('disposable.mts') }],
  },
];

test('the README has the code blocks these tests compile (ESM and CommonJS, TypeScript and JavaScript)', () => {
  assert.ok(esmBlocks.length >= 6, `only ${esmBlocks.length} ESM blocks import the package`);
  assert.ok(cjsBlocks.length >= 1, 'no CommonJS block requires the package');
  assert.ok(blocks.some((b) => b.typescript), 'no TypeScript block');
  assert.ok(blocks.some((b) => !b.typescript), 'no JavaScript block');
  for (const b of blocks) {
    assert.ok(['ts', 'typescript', 'js', 'javascript', 'mjs', 'cjs'].includes(b.lang),
      `README line ${b.line}: a block that imports the package is fenced as "${b.lang}"`);
  }
  // The CommonJS example must not rely on top-level await.
  for (const b of cjsBlocks) assert.doesNotMatch(b.code, /^await\s/m, `README line ${b.line}: top-level await in CommonJS`);
});

for (const project of PROJECTS) {
  describe(project.what, () => {
    const dir = writeProject(project.name, { type: project.type, compilerOptions: project.compilerOptions, files: project.files() });
    for (const [label, tsc] of COMPILERS) {
      test(`${label}: tsc --noEmit passes under strict, without skipLibCheck`, () => {
        const { status, output, error } = compile(tsc, dir);
        assert.equal(error, undefined, `could not run ${tsc}: ${error?.message}`);
        assert.equal(status, 0, `tsc failed in ${dir}:\n${output}`);
      });
    }
  });
}

// The harness itself: a wrong call in a README-like block must fail the compile, so a green
// run means the blocks were checked against the package's types (not, say, against `any`).
describe('the harness catches a wrong call', () => {
  const dir = writeProject('negative-control', {
    type: 'module',
    compilerOptions: { ...README_ENV, ...NODENEXT },
    files: [{
      name: 'wrong.ts',
      code: "import { Verifier } from 'cryptopay-verify';\nnew Verifier({ secrets: process.env.WEBHOOK_SECRET, maxSkewSecs: '300' });\n",
    }],
  });
  for (const [label, tsc] of COMPILERS) {
    test(`${label}: maxSkewSecs as a string is a type error`, () => {
      const { status, output } = compile(tsc, dir);
      assert.notEqual(status, 0, 'tsc accepted a string maxSkewSecs');
      assert.match(output, /wrong\.ts.*maxSkewSecs|wrong\.ts[\s\S]*TS2322/, output);
    });
  }
});
