// Loads the playground (app.mjs, which imports the package), so that a package that cannot be
// loaded (a static host that left out node_modules/, or serves .mjs with a type that is not
// JavaScript) is said on the page instead of "Loading the verifier…" for ever.

try {
  await import('./app.mjs');
} catch (error) {
  const status = document.getElementById('status');
  status.dataset.state = 'error';
  status.textContent = `The verifier could not be loaded (${error?.message ?? error}): serve node_modules/cryptopay-verify/ beside `
    + 'this page, its .mjs files as text/javascript and its .wasm as application/wasm (on GitHub Pages, add a .nojekyll file)';
}
