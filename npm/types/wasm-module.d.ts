// Types of `cryptopay-verify/cryptopay_verify_bg.wasm`: the package's WebAssembly module.
//
// What importing a .wasm file gives is decided by your bundler or host, not by this package,
// so the default export is typed as the union of what the common loaders give, each of which
// `init()` accepts. Self-contained: no WebAssembly, DOM or Node global is named.

/**
 * What a loader gives for `import wasm from 'cryptopay-verify/cryptopay_verify_bg.wasm'`:
 *
 * | Loader | The default export |
 * |---|---|
 * | Vite `?url` (typed by `vite/client`, not by this file) | a URL string |
 * | Vite `?init` (typed by `vite/client`) | a function that instantiates it (not an input of `init()`) |
 * | webpack 5 `type: 'asset/resource'` | a URL string |
 * | esbuild `--loader:.wasm=file` | a path string, relative to the bundle's public path |
 * | esbuild `--loader:.wasm=binary` | a `Uint8Array` |
 * | wrangler (`CompiledWasm`), Next.js `?module` | a compiled `WebAssembly.Module` |
 *
 * Hosts that link a .wasm as an ES module of its exports (webpack `asyncWebAssembly`, Node's
 * `--experimental-wasm-modules`, Deno) give no default export: this module needs its glue
 * code and cannot be used that way. You rarely need this subpath: each runtime entry of the
 * package loads the module itself; it is there for bundlers that must be told about the
 * file, and the browser's `init(input)`.
 *
 * @example
 * ```ts
 * // webpack: module.rules = [{ test: /\.wasm$/, type: 'asset/resource' }]
 * import { init } from 'cryptopay-verify';
 * import wasmUrl from 'cryptopay-verify/cryptopay_verify_bg.wasm';
 *
 * await init(wasmUrl);
 * ```
 */
declare const wasm: string | Uint8Array | object;
export default wasm;
