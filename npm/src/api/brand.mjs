// `instanceof` for the package's error classes across its copies: a process that loads the
// package twice (its ES module and its CommonJS entry, two bundles each with their own class)
// still has `error instanceof CryptoPayApiError` hold for an error of either copy. The mark is
// in the global symbol registry, on the class's prototype.

/**
 * Marks `Class` as `cryptopay-verify.<name>`: its `instanceof` then holds for an instance of
 * any copy's class of that name (subclasses' instances included), and for nothing else.
 */
export function brand(Class, name) {
  const mark = Symbol.for(`cryptopay-verify.${name}`);
  Object.defineProperty(Class.prototype, mark, { value: true });
  Object.defineProperty(Class, Symbol.hasInstance, {
    value: (value) => value !== null && typeof value === 'object' && value[mark] === true,
  });
}
