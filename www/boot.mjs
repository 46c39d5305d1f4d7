// Loads the playground (app.mjs, which imports the package), so that a package that cannot be
// loaded (a static host that left out node_modules/, or serves .mjs with a type that is not
// JavaScript) is said on the page instead of "Loading the verifier…" for ever.

try {
  await import('./app.mjs');
} catch (error) {
  const status = document.getElementById('status');
  status.dataset.state = 'error';
  const message = String(error?.message ?? error);
  // A bare specifier left unresolved: the import map was not applied, whatever is served.
  const fix = /specifier|import ?map/i.test(message)
    ? 'the page\'s import map was not applied: this browser has no import maps, or the map was edited and no longer matches '
      + 'its sha256 hash in the Content-Security-Policy meta tag (give the new hash there)'
    : 'serve node_modules/cryptopay-verify/ beside this page, its .mjs and .js files as text/javascript '
      + '(on GitHub Pages, add a .nojekyll file)';
  status.textContent = `The verifier could not be loaded (${message}): ${fix}`;
}
