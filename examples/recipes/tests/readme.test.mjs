// The code blocks of the recipes' README are what a user copies: each is held to the sources
// the tests run. A block is read in parts split at its blank lines; every line of a part (its
// spacing collapsed, a trailing `// ...` comment dropped) must be a line of one of the
// section's sources, in the order that file has them, lines left out allowed. The sources of a
// section: the files it links, the other sources in their folders, and common/. Comment lines
// of a block are the README's own, as are the few lines named in SHOWN_FOR below.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { RECIPES } from './helpers.mjs';

const README = readFileSync(join(RECIPES, 'README.md'), 'utf8');

/** A line as compared: spacing collapsed, a trailing comment dropped. */
const normal = (line) => line.replace(/\s+\/\/ .*$/, '').replace(/\s+/g, ' ').trim();

/**
 * A source line as the README shows it: the recipes take the route's path as a parameter and
 * the body limit from common/receiver.mjs; the README writes their values.
 */
const shown = (line) => normal(line)
  .replaceAll('MAX_BODY_BYTES', '1024 * 1024')
  .replace(/^path,$/, "path: '/webhook',")
  .replace(/\bpath\b(?=[,)])/g, "'/webhook'");

/**
 * Lines a block writes in place of the structure the source has for its tests (a route made by
 * an exported function, the app made in a try). Each must still be met, or the entry goes.
 */
const SHOWN_FOR = [
  { section: 'hapi', line: 'server.route({', source: 'webhookRoute() returns the route object, which createServer hands to server.route' },
  { section: 'hapi', line: "method: 'POST', path: '/webhook',", source: "webhookRoute()'s method and path lines" },
  { section: 'hapi', line: '});', source: 'the end of the server.route call the block writes' },
  { section: 'Koa', line: 'app.use(router.routes());', source: 'webhookRoutes() returns router.routes(), which createApp mounts first' },
  { section: 'NestJS', line: 'const app = await NestFactory.create<NestExpressApplication>(AppModule);', source: 'main.ts makes it in a try, with { logger: false, abortOnError: false }' },
];

/** The recipes' source files under `folder`, not what installs or builds write. */
function sourcesIn(folder) {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) return [];
    return /\.(mjs|js|ts)$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

/** The README's sections (`## ` headings), each with its linked sources and its code blocks. */
function sections() {
  return README.split(/^## /m).slice(1).map((text) => {
    const title = text.slice(0, text.indexOf('\n'));
    const linked = [...text.matchAll(/\]\(([\w./-]+\.(?:mjs|js|ts))\)/g)]
      .map((match) => join(RECIPES, match[1])).filter((path) => existsSync(path));
    const files = new Set([...linked, ...linked.flatMap((path) => sourcesIn(dirname(path))), ...sourcesIn(join(RECIPES, 'common'))]);
    const blocks = [...text.matchAll(/^```(js|ts)\n([\s\S]*?)^```$/gm)].map((match) => match[2]);
    return { title, linked, files: [...files], blocks };
  });
}

/** How many of `lines` are, in order, lines of `source` (a greedy subsequence match). */
function matched(lines, source) {
  let at = 0;
  let count = 0;
  for (const line of lines) {
    const found = source.indexOf(line, at);
    if (found < 0) break;
    at = found + 1;
    count += 1;
  }
  return count;
}

const used = new Set();
const SECTIONS = sections();

test('the README has a code block in every framework section, and each links its sources', () => {
  const withCode = SECTIONS.filter((section) => section.blocks.length > 0);
  assert.ok(withCode.length >= 15, withCode.map((section) => section.title).join(', '));
  for (const section of withCode) assert.ok(section.linked.length > 0, `README.md "${section.title}": a code block, but no link to the recipe's files`);
  // Every JavaScript and TypeScript block of the file is one of the sections' blocks.
  assert.equal(withCode.reduce((sum, section) => sum + section.blocks.length, 0), README.match(/^```(js|ts)$/gm).length);
});

for (const section of SECTIONS.filter(({ blocks }) => blocks.length > 0)) {
  test(`README.md "${section.title}": each code block's lines are the recipe's, in its order`, () => {
    const sources = section.files.map((path) => ({ path, lines: readFileSync(path, 'utf8').split('\n').map(shown) }));
    for (const block of section.blocks) {
      for (const part of block.split(/\n\s*\n/)) {
        const lines = part.split('\n').map(normal).filter((line) => {
          if (line === '' || line.startsWith('//')) return false;
          const own = SHOWN_FOR.find((entry) => section.title.startsWith(entry.section) && entry.line === line);
          if (own) used.add(own);
          return !own;
        });
        if (lines.length === 0) continue;
        const best = sources.map((source) => ({ ...source, count: matched(lines, source.lines) }))
          .sort((a, b) => b.count - a.count)[0];
        assert.equal(best.count, lines.length, `README.md "${section.title}": the line\n  ${lines[best.count]}\n`
          + `is not, after the lines before it, a line of ${best.path.slice(RECIPES.length + 1)} (nor of any other of its sources):`
          + ' write the block as the recipe has it (or change the recipe, which the tests run)');
      }
    }
  });
}

test('every line the README writes in place of the source is still in it', () => {
  for (const entry of SHOWN_FOR) assert.ok(used.has(entry), `SHOWN_FOR: "${entry.line}" (${entry.section}) is no longer in the README: remove the entry`);
});
