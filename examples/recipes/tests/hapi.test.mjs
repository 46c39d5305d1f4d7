// The hapi recipe (examples/recipes/hapi), run as `node server.mjs` on its SQLite file; then
// its trap (traps.mjs): the recipe's route with hapi's default payload handling (parsed JSON).

import Hapi from '@hapi/hapi';
import { sqliteRecipeSuite } from './helpers.mjs';
import { appTraps } from './traps.mjs';

sqliteRecipeSuite('hapi recipe (payload parse: false, the Buffer to receiver.handle; SQLite file)', 'hapi');

appTraps('hapi', 'hapi', async (setup, receiver, recipe) => {
  const route = recipe.webhookRoute(receiver);
  delete route.options; // the mistake: hapi's default, payload parsed as JSON
  const server = Hapi.server({ port: 0, host: '127.0.0.1' });
  server.route(route);
  await server.start();
  return { url: `http://127.0.0.1:${server.listener.address().port}/webhook`, close: () => server.stop() };
});
