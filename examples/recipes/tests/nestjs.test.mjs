// The NestJS recipe (examples/recipes/nestjs): its TypeScript compiled with tsc as a user
// builds it (`npm run build`: decorators, nodenext modules), then run as `node dist/main.js`
// on its SQLite file (said at start); a PostgreSQL it cannot reach (DATABASE_URL) stops the
// start with one line; its package.json names every package its sources import, with types.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { run } from '../../../tests/runtimes/lib.mjs';
import {
  RECIPES, ROOT, deliver, eventBody, importedPackages, post, recipeCopy, sqliteRecipeSuite, startNodeRecipe, startWithoutDatabase,
} from './helpers.mjs';

async function build(dir) {
  const tsc = join(ROOT, 'node_modules', 'typescript-5', 'bin', 'tsc');
  const built = await run(process.execPath, [tsc, '-p', dir], { cwd: dir, timeoutMs: 120_000 });
  assert.equal(built.code, 0, `tsc -p examples/recipes/nestjs failed:\n${built.stdout}${built.stderr}`);
}

sqliteRecipeSuite('NestJS recipe (express.raw on /webhook before Nest\'s parsers, req.body to receiver.handle; SQLite file)', 'nestjs', {
  build,
  async start(dir) {
    const server = await startNodeRecipe(dir, { script: join('dist', 'main.js') });
    assert.match(server.output.stdout, /nestjs recipe: events recorded in the SQLite file data\/receiver\.sqlite \(one process only; set DATABASE_URL for PostgreSQL\)/);
    return server;
  },
});

// The app a merchant grows around the recipe: a route of its own that takes JSON, added to the
// copy as a user adds a controller. main.ts's promise: that route keeps Nest's JSON parser
// (with the 1 MB limit), while /webhook still gets its exact bytes.
test("NestJS recipe: the app's other routes keep Nest's JSON parser, the webhook its bytes", async () => {
  const dir = recipeCopy('nestjs', 'nestjs-other-route');
  writeFileSync(join(dir, 'src', 'orders.controller.ts'), `import { Body, Controller, Post } from '@nestjs/common';
@Controller()
export class OrdersController {
  @Post('orders')
  create(@Body() body: unknown) {
    return { got: body, parsed: typeof body === 'object' && body !== null && !Buffer.isBuffer(body) };
  }
}
`);
  const module = join(dir, 'src', 'app.module.ts');
  const text = readFileSync(module, 'utf8');
  assert.ok(text.includes('controllers: [WebhookController]'), 'app.module.ts lists its controllers as the test expects');
  writeFileSync(module, `import { OrdersController } from './orders.controller.js';\n${text
    .replace('controllers: [WebhookController]', 'controllers: [WebhookController, OrdersController]')}`);
  await build(dir);
  const server = await startNodeRecipe(dir, { script: join('dist', 'main.js') });
  try {
    const origin = new URL(server.url).origin;
    const order = { order_ref: 'ord_1', note: 'x'.repeat(200_000) }; // over the parsers' 100 KB default
    const created = await post(`${origin}/orders`, Buffer.from(JSON.stringify(order)), {});
    assert.equal(created.status, 201, created.text.slice(0, 300));
    assert.deepEqual(created.json, { got: order, parsed: true });
    const delivered = await deliver(server.url, eventBody({ eventId: 'evt_nest_other', paymentId: 'pay_nest_other', statusVersion: 1 }));
    assert.deepEqual([delivered.status, delivered.json], [200, { received: true, decision: 'apply' }]);
  } finally {
    await server.stop();
  }
});

test('NestJS recipe: a PostgreSQL it cannot reach stops the start with one line, exit 1, the password masked', async () => {
  const dir = recipeCopy('nestjs', 'nestjs-no-db');
  await build(dir);
  const { exited, said } = await startWithoutDatabase(dir, join('dist', 'main.js'), 'pw-Canary-72');
  assert.deepEqual(exited, { code: 1, signal: null }, said);
  assert.match(said, /^nestjs recipe: the app did not start: the store cannot be used: .*ECONNREFUSED/);
  assert.doesNotMatch(said, /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(said, /SQLite/, 'PostgreSQL, not a file');
  assert.ok(!said.includes('pw-Canary-72'), 'no password');
});

// A user builds the folder alone (`npm install && npm run build`), where nothing of this
// repository's node_modules is seen: every package its sources import is in its package.json,
// and one that ships no types of its own has its @types package there too.
test('NestJS recipe: its package.json names every package its sources import, and their types', () => {
  const folder = join(RECIPES, 'nestjs');
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  const named = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.devDependencies)]);
  const sources = readdirSync(join(folder, 'src')).filter((f) => f.endsWith('.ts')).map((f) => readFileSync(join(folder, 'src', f), 'utf8'));
  const imported = new Set(sources.flatMap(importedPackages));
  assert.ok(imported.has('better-sqlite3') && imported.has('pg') && imported.has('@nestjs/core'), [...imported].join(' '));
  for (const name of imported) {
    assert.ok(named.has(name), `${name} is imported but not in package.json`);
    if (name === 'cryptopay-verify') continue; // installed from the packed tarball (README)
    const own = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
    const typed = own.types !== undefined || own.typings !== undefined || existsSync(join(ROOT, 'node_modules', name, 'index.d.ts'))
      || JSON.stringify(own.exports ?? {}).includes('"types"');
    if (!typed) assert.ok(named.has(`@types/${name}`), `${name} ships no types: @types/${name} belongs in devDependencies`);
  }
});
