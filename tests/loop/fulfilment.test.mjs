// Fulfilment on every engine, with scripted views (lib/world.mjs): the scenarios of
// lib/suite.mjs, run on a SQLite file, a throwaway PostgreSQL, D1 in workerd and memoryStore.
// The views come from one parameter: the same scenarios will run with the sandbox's getPayment.

import { describe } from 'node:test';
import { d1Engine, memoryEngine, postgresEngine, sqliteEngine } from './lib/engines.mjs';
import { fulfilmentScenarios } from './lib/suite.mjs';

describe('fulfilment on a SQLite file', () => fulfilmentScenarios(sqliteEngine));
describe('fulfilment on PostgreSQL', () => fulfilmentScenarios(postgresEngine()));
describe('fulfilment on D1 in workerd', () => fulfilmentScenarios(d1Engine()));
describe('fulfilment on memoryStore', () => fulfilmentScenarios(memoryEngine));
