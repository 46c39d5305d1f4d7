// The table printed at the end of a run: rule, expected, got, verdict, then what to fix. Every
// line fits in 100 columns; a long "got" is summarised (the details are in --json).

import { LARGE_BODY_BYTES } from './verdicts.mjs';

export const WIDTH = 100;
const VERDICT = 'not_judged'.length;

// `text` cut to `width` with "..." at the end: after the last whole item of a list (", " or
// "; "), else at the last space, when that leaves more than half of it, so that no item or
// word is cut in two; no separator is left hanging.
function cut(text, width) {
  if (text.length <= width) return text;
  const room = Math.max(0, width - 3);
  const item = Math.max(text.lastIndexOf(', ', room), text.lastIndexOf('; ', room));
  const space = text.lastIndexOf(' ', room);
  const end = item > room / 2 ? item : space > room / 2 ? space : room;
  return `${text.slice(0, end).replace(/[\s,;:]+$/, '')}...`;
}

/** `text` wrapped at WIDTH, the first line after `first`, the others indented by `indent`. */
export function wrap(text, first, indent = '    ') {
  const lines = [];
  let line = first;
  for (const word of text.split(' ')) {
    const sep = line === first || line === indent ? '' : ' ';
    if (line.length + sep.length + word.length > WIDTH && line !== first && line !== indent) {
      lines.push(line);
      line = indent + word;
    } else {
      line += sep + word;
    }
  }
  lines.push(line);
  return lines.map((l) => cut(l, WIDTH)).join('\n');
}

/**
 * results: from judge. context: { url (printable), millis, unchecked: rules not run for want
 * of an option }.
 */
export function formatReport(results, { url, millis, unchecked = [] }) {
  const ruleW = Math.max('rule'.length, ...results.map((r) => r.rule.length));
  const expW = Math.max('expected'.length, ...results.map((r) => r.expected.length));
  const gotW = Math.min(Math.max('got'.length, ...results.map((r) => r.summary.length)), WIDTH - ruleW - expW - VERDICT - 6);
  const row = (rule, expected, got, verdict) =>
    `${rule.padEnd(ruleW)}  ${expected.padEnd(expW)}  ${cut(got, gotW).padEnd(gotW)}  ${verdict}`.trimEnd();
  let out = `\nreceiver conformance: ${url}\n\n${row('rule', 'expected', 'got', 'verdict')}\n`;
  out += `${'-'.repeat(ruleW + expW + gotW + VERDICT + 6)}\n`;
  for (const r of results) out += `${row(r.rule, r.expected, r.summary, r.verdict)}\n`;

  const failed = results.filter((r) => r.verdict === 'fail');
  const notJudged = results.filter((r) => r.verdict === 'not_judged');
  out += '\n';
  if (failed.length === 0 && notJudged.length === 0) {
    out += `all ${results.length} rules hold (${millis} ms)\n`;
  } else {
    const counts = [`${failed.length} of ${results.length} rules failed`];
    if (notJudged.length > 0) counts.push(`${notJudged.length} not judged`);
    out += `${counts.join(', ')} (${millis} ms); what to fix:\n`;
    for (const r of failed) out += `${wrap(r.hint ?? '', `  ${r.rule}: `)}\n`;
    const byValid = notJudged.filter((r) => r.reason === 'valid_delivery').map((r) => r.rule);
    const byAnswer = notJudged.filter((r) => r.reason === 'unanswered').map((r) => r.rule);
    const notSent = notJudged.filter((r) => r.reason === 'stopped');
    if (byValid.length > 0) {
      out += `${wrap(`${byValid.join(', ')}. A receiver that refuses everything would pass every refusal rule, and ` +
        'each variation of a valid delivery fails for the same reason: fix valid_delivery first, then run again',
      '  not judged until valid_delivery holds: ')}\n`;
    }
    if (byAnswer.length > 0) {
      out += `${wrap(`${byAnswer.join(', ')} (see response_time)`, '  not judged, a delivery got no answer: ')}\n`;
    }
    if (notSent.length > 0) {
      out += `${wrap(`${notSent.map((r) => r.rule).join(', ')}: ${notSent[0].got.replace(/^not sent: /, '')}, so the run ` +
        'stopped rather than wait for each (make the receiver answer every delivery, then run again)', '  not sent: ')}\n`;
    }
  }
  if (unchecked.length > 0) {
    const give = unchecked.map((rule) => (rule === 'pending_secret'
      ? '--pending-secret-env VAR, the new secret'
      : '--retired-secret-env VAR, an old one whose overlap has ended'));
    out += `${wrap(`${unchecked.join(' and ')} (during a rotation: give ${give.join(', and ')})`, 'not checked: ')}\n`;
  }
  out += `${wrap('retry_same_event and older_version judge answers only: no URL-only kit can see durable ' +
    'recording, de-duplication by event_id (a retry is answered 2xx whether it was applied again or not) or ' +
    'ordering in the store: cryptopay-verify/receiver does those atomically in PostgreSQL, SQLite, libsql or D1 (a receiver that ' +
    'forwards events to a queue or another service leaves them to whatever consumes it); nor a signature ' +
    'compared in constant time, effects of a delivery before it is refused, or a limit on the body\'s size above ' +
    `${LARGE_BODY_BYTES / 1024} KiB`, 'note: ')}\n`;
  // Passed, but refused for good: while this receiver's clock is behind the service's, every
  // event is lost so (the package answers it 500, retried; a 5xx costs a forger nothing).
  const future = results.find((r) => r.rule === 'future_timestamp' && r.verdict === 'pass');
  if (future !== undefined && /permanent_failure/.test(future.got)) {
    out += `${wrap('future_timestamp was refused with a 4xx, which the service never retries: while this receiver\'s ' +
      'clock is behind the service\'s, every delivery is refused so and every event lost. Answer a timestamp ahead of ' +
      'the clock 5xx (cryptopay-verify answers 500 timestamp_in_future, retried; a 5xx costs a forger nothing), and ' +
      'keep the clock on NTP', 'note: ')}\n`;
  }
  if (results.some((r) => r.rule === 'valid_delivery' && r.verdict === 'pass')) {
    // Authentic events a receiver keeps: said here, where a run against the live database is seen.
    out += `${wrap('its valid deliveries were authentic events (evt_conformance_..., payments pay_conformance_...), which a ' +
      'receiver records (or forwards, to whatever consumes it), and a fulfilment pass then asks the service for those payments and retries their 404 at every pass: ' +
      'run the kit against a throwaway database, or delete them (the package README, "What a run leaves behind")', 'left behind: ')}\n`;
  }
  return out;
}
