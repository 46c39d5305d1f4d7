// Nitro's defaults do the rest: routes/ and utils/ beside this file, the node-server preset,
// `nitro build` writing .output/server/index.mjs.
import { defineNitroConfig } from 'nitro/config';

export default defineNitroConfig({
  compatibilityDate: '2025-01-01',
});
