// Imported for its effect: SIGINT, SIGTERM and SIGHUP end the test process through
// process.exit, so that its 'exit' listeners (children killed, temporary folders removed) run.
// Without a listener, a signal ends the process at once and they do not: node --test sends
// SIGTERM to a test file that outlives --test-timeout, and a CI job's cancel sends it too.

import { constants } from 'node:os';

// A script with a listener of its own (a worker that stops gracefully on SIGTERM) is left to it.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    if (process.listenerCount(signal) === 0) process.exit(128 + constants.signals[signal]);
  });
}
