// Child processes for the tests: started, awaited until their output says they are ready,
// and killed when the test process exits, whatever happened.

import { spawn } from 'node:child_process';
import './signals.mjs';

const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * Spawns a process with this process's environment less `unset`, plus `env`, its output
 * collected: { child, output(), exited (its exit code, or the signal that ended it),
 * stop(signal) }. Killed when the test process exits.
 */
export function spawnProcess(command, args, { env = {}, unset = [], cwd } = {}) {
  const inherited = { ...process.env };
  for (const name of unset) delete inherited[name];
  const child = spawn(command, args, { cwd, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  const exited = new Promise((r) => child.on('exit', (code, signal) => {
    children.delete(child);
    r(code ?? signal);
  }));
  return {
    child,
    exited,
    output: () => output,
    stop: (signal = 'SIGTERM') => {
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * As spawnProcess; resolves once its output matches `ready` (the match), with the handle.
 * Rejects if it takes too long, or if it exits first (the error's `exitCode` and `output`).
 */
export function startProcess(command, args, { ready, timeoutMs = 20_000, ...options } = {}) {
  const handle = spawnProcess(command, args, options);
  const { child, exited, output } = handle;
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not start:\n${output()}`));
    }, timeoutMs);
    const check = () => {
      const match = ready.exec(output());
      if (match) {
        clearTimeout(timer);
        resolveStart({ ...handle, match });
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    exited.then((code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`${command} exited (${code}) before it was ready:\n${output()}`), { exitCode: code, output: output() }));
    });
  });
}
