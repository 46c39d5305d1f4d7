// cryptopay-verify/sandbox: the payment service, local and stateful, for a merchant's tests
// and this package's own (Node only). A subpath of the package: the main entry never imports
// it, and its rules come from a WebAssembly module of its own (bindings/service), so neither
// the main entry's size nor its start grows.
export { startSandbox } from './sandbox.mjs';
export { SandboxError } from './rules.mjs';
