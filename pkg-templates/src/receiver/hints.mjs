// Fixes named in more than one place: the receiver's log and the command line's conformance
// kit (dist/cli/hints.mjs imports this module).

/**
 * When a delivery header was not found: the names of `names` holding an underscore, which
 * nginx (and some other proxies) drop by default; '' when none does. Starts with '; '.
 */
export function underscoreHint(names) {
  const dropped = names.filter((name) => typeof name === 'string' && name.includes('_'));
  return dropped.length === 0 ? '' : `; or a proxy in front dropped ${dropped.join(' and ')}: nginx drops a ` +
    'header whose name holds an underscore unless underscores_in_headers is on';
}
