// startFulfilment: passes in a loop, every intervalMs, at once after a full batch; a failed
// pass is logged and the loop goes on; stop() gives back what the running pass has not taken
// up, waits for it to end, and gives back what a failed release still owed. A store down
// fails every pass: its lines are throttled as the receiver's (a few a minute, the rest
// counted), not one every intervalMs.

import { describeError, invalid, isPlainObject, stuckFix } from './stores/common.mjs';
import { lineThrottle } from './throttle.mjs';

/**
 * The receiver's `startFulfilment(options)`: `checkOptions` refuses wrong options at once
 * (intervalMs and the pass's own), `runPass(options, stopping)` runs one pass, `finish()` runs
 * once the loop has stopped, `error` logs.
 */
export function scheduler({ checkOptions, runPass, finish, error }) {
  return function startFulfilment(options) {
    if (!isPlainObject(options)) throw invalid('startFulfilment takes { intervalMs, confirm, handle, ... }');
    checkOptions(options);
    const { intervalMs, ...rest } = options;
    let stopped = false;
    let wake = null;
    let timer = null;
    const say = lineThrottle();
    const sleep = () => new Promise((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, intervalMs);
    });
    const loop = (async () => {
      while (!stopped) {
        let more = false;
        try {
          ({ more } = await runPass(rest, () => stopped));
        } catch (failure) {
          const fix = stuckFix(failure);
          say('pass failed', error, `fulfilment: a pass failed (${describeError(failure)}); the next one in ${intervalMs} ms`
            + `${fix ? `, but every pass will fail the same way until this is fixed: ${fix}` : ''}`);
        }
        if (!stopped && !more) await sleep();
      }
    })();
    return {
      async stop() {
        stopped = true;
        clearTimeout(timer);
        wake?.();
        await loop;
        await finish();
      },
    };
  };
}
