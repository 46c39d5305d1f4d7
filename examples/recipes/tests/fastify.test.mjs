// The Fastify recipe (examples/recipes/fastify), run as `node server.mjs`.

import { sqliteRecipeSuite } from './helpers.mjs';

sqliteRecipeSuite('Fastify recipe (raw-body content-type parser, receiver.handle; SQLite file)', 'fastify');
