// The Express recipe (examples/recipes/express), run as `node server.mjs` on its SQLite file.

import { sqliteRecipeSuite } from './helpers.mjs';

sqliteRecipeSuite('Express recipe (receiver.node, no body parser on the route; SQLite file)', 'express');
