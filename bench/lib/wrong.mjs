// The bench's one rule for a wrong answer in a child process (the native bench, Bun, Deno,
// workerd): it fails the run. A runtime or build that is absent or cannot start only leaves its
// rows "not measured"; a wrong answer is never a row.

/** Throws when `output` holds a `BENCH_WRONG` line (a valid delivery refused, a forged one accepted). */
export function failOnWrong(what, output) {
  const line = output.split('\n').find((l) => l.startsWith('BENCH_WRONG '));
  if (line) throw new WrongAnswer(`bench: ${what}: ${line.slice('BENCH_WRONG '.length)}`);
}

/** What failOnWrong throws: never caught as a runtime that could not run. */
export class WrongAnswer extends Error {}
