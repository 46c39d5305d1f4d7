// The sandbox as the scenarios' world (suite.mjs): payments created through the client
// (createClient on the sandbox's API), paid, reviewed, expired and cancelled as the customer,
// the dashboard and the merchant do it there, their events delivered by the sandbox over HTTP
// to the receiver, served on loopback; confirm is the client's getPayment. Only `change` (any
// status, any version) is missing: supports('status') is false.
//
// Deliveries are the sandbox's: asynchronous, retried, and with `duplicateRate` and `shuffle`
// (seeded) duplicated and reordered as a network would; settle() waits for every one. A lost
// delivery ({ silent: true }) is one the receiver refused (503) until the sandbox's short retry
// schedule was exhausted; { again: true } replays each event of the action once it was delivered.

import { canaries, createClient, serveReceiver, settled, startSandbox } from './sandbox.mjs';
import { confirmation } from './world.mjs';

const RETRY_DELAYS_MS = [10, 20];

/**
 * A world factory for fulfilmentScenarios: options of the sandbox (duplicateRate, shuffle,
 * seed), and `watch`, canaries() that its log, the client's errors and the receiver's log
 * and records go to (so that a run can be searched for the key and the secret).
 */
export function sandboxWorld({ duplicateRate = 0, shuffle = false, seed, watch = canaries() } = {}) {
  return async function makeWorld() {
    const door = await serveReceiver();
    const sandbox = await startSandbox({
      port: 0, webhookUrl: door.url, retryDelaysMs: RETRY_DELAYS_MS, duplicateRate, shuffle, seed, log: watch.sandboxLog,
    });
    const api = createClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, timeoutMs: 5000 });
    const confirming = confirmation(async (paymentId) => {
      try {
        return await api.getPayment(paymentId);
      } catch (error) {
        throw watch.keep(error);
      }
    });
    let replays = [];

    const eventIds = async (paymentId) => (await sandbox.events(paymentId)).map((e) => e.event_id);

    async function settle() {
      await settled(sandbox);
      while (replays.length > 0) {
        const queued = replays;
        replays = [];
        for (const eventId of queued) await sandbox.replay(eventId);
        await settled(sandbox);
      }
    }

    // One action of the sandbox's: its deliveries lost (refused until exhausted), or each of
    // its events replayed once delivered (at the next settle), or left to the sandbox.
    async function act(paymentId, action, { silent = false, again = false } = {}) {
      const before = again ? new Set(await eventIds(paymentId)) : null;
      if (silent) {
        await settle();
        door.refuse();
        try {
          const view = await action();
          await settle();
          return view;
        } finally {
          door.open();
        }
      }
      const view = await action();
      if (again) replays.push(...(await eventIds(paymentId)).filter((id) => !before.has(id)));
      return view;
    }

    const view = async (paymentId) => (await api.getPayment(paymentId)).responseText;

    return {
      confirmed: confirming.confirmed,
      sandbox,
      api,
      receiverOptions: { secrets: sandbox.webhook.secret, log: watch.receiverLog, onOutcome: watch.onOutcome },
      attach: (receiver) => door.attach(receiver),
      supports: (capability) => capability !== 'status',
      settle,
      async close() {
        await sandbox.close();
        await door.close();
      },
      /** A payment created through the client, as createPayment answers it (not recorded). */
      async create({ orderRef, amountRaw = '12800', currency = 'USD' } = {}) {
        const input = { source_amount: { kind: 'fiat', currency, amount_raw: amountRaw } };
        if (orderRef !== undefined) input.order_ref = orderRef;
        return api.createPayment(input).catch((error) => { throw watch.keep(error); });
      },
      pay: (paymentId, amountRaw, options) => act(paymentId, () => sandbox.pay(paymentId, amountRaw), options),
      hold: (paymentId, amountRaw, options) => act(paymentId, () => sandbox.pay(paymentId, amountRaw, { hold: true }), options),
      settleHeld: (paymentId, options) => act(paymentId, () => sandbox.settle(paymentId), options),
      review: (paymentId, options) => act(paymentId, () => sandbox.review(paymentId), options),
      expire: (paymentId, options) => act(paymentId, () => sandbox.expire(paymentId), options),
      cancel: (paymentId, options) => act(paymentId, () => api.cancelPayment(paymentId), options),
      change() {
        throw new Error('the sandbox changes a payment only as its rules allow: this scenario needs a scripted world');
      },
      /** The payment's last event, delivered again (Replay Delivery: the same event_id and bytes). */
      async redeliver(paymentId) {
        await settle();
        await sandbox.replay((await eventIds(paymentId)).at(-1));
        await settle();
      },
      view,
      /** A view text of this payment with these fields changed (a promise: override takes it). */
      viewWith: async (paymentId, fields) => JSON.stringify({ ...JSON.parse(await view(paymentId)), ...fields }),
      override: confirming.override,
      confirm: confirming.confirm,
    };
  };
}
