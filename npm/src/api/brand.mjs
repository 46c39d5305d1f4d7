// `instanceof` for the package's error classes across its copies: a process that loads the
// package twice (its ES module and its CommonJS entry, two bundles each with their own class)
// still has `error instanceof CryptoPayApiError` hold for an error of either copy. The mark is
// in the global symbol registry, on the class's prototype.

/**
 * Marks `Class` as `cryptopay-verify.<name>`: `x instanceof Class` then holds for an instance
 * of any copy's class of that name (its subclasses' instances included). A subclass of it keeps
 * the ordinary test (`x instanceof MySubclass` only for MySubclass's instances).
 */
export function brand(Class, name) {
  const mark = Symbol.for(`cryptopay-verify.${name}`);
  Object.defineProperty(Class.prototype, mark, { value: true });
  Object.defineProperty(Class, Symbol.hasInstance, {
    value(value) {
      if (this !== Class) return Function.prototype[Symbol.hasInstance].call(this, value);
      return value !== null && typeof value === 'object' && value[mark] === true;
    },
  });
}

/**
 * The receiver's check, before anything is sent, that `recordCreated` would take a payment
 * created under `integration` (a name, or undefined): createPayment calls it where its
 * `record` has one, so that a call the receiver will refuse creates no payment at the service.
 * In the global symbol registry, as the brands are, for a receiver and a client of two copies.
 */
export const RECORDABLE = Symbol.for('cryptopay-verify.recordable');
