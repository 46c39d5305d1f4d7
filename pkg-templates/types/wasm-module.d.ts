// The package's compiled WebAssembly module, for hosts that import .wasm files as modules.
declare const wasmModule: WebAssembly.Module;
export default wasmModule;
