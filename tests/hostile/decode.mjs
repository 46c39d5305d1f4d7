// Builds the JavaScript values that the hostile catalogue (tests/hostile/vectors/hostile_*.json)
// writes as JSON. An object with exactly one key starting with `$` is a special value (the
// list is in the catalogue's notes and below); every other object becomes a fresh plain object
// whose keys are own data properties (a "__proto__" key stays an own key, as JSON.parse makes
// it). Every call builds fresh values, so a case can never see what an earlier case did to them.

const fromHex = (hex) => {
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || !/^[0-9a-f]*$/i.test(hex)) {
    throw new Error(`hostile catalogue: bad hex ${String(hex).slice(0, 20)}`);
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
};

/** A buffer transferred away (detached), or a view over one. */
function detached(kind) {
  const buffer = new ArrayBuffer(16);
  const view = kind === 'Uint8Array' ? new Uint8Array(buffer) : kind === 'DataView' ? new DataView(buffer) : null;
  structuredClone(buffer, { transfer: [buffer] });
  if (buffer.byteLength !== 0) throw new Error('hostile catalogue: could not detach a buffer');
  if (kind === 'ArrayBuffer') return buffer;
  if (view === null) throw new Error(`hostile catalogue: unknown $detached kind ${kind}`);
  return view;
}

/** A fixed-length view over a resizable ArrayBuffer that was then shrunk below it. */
function outOfBounds(kind) {
  const buffer = new ArrayBuffer(16, { maxByteLength: 32 });
  const view = kind === 'Uint8Array' ? new Uint8Array(buffer, 0, 16) : kind === 'DataView' ? new DataView(buffer, 0, 16) : null;
  if (view === null) throw new Error(`hostile catalogue: unknown $outOfBounds kind ${kind}`);
  buffer.resize(4);
  return view;
}

function nest(depth, wrap, leaf) {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) value = wrap(value);
  return value;
}

function plain(source, proto) {
  const out = proto === null ? Object.create(null) : {};
  for (const key of Object.keys(source)) {
    Object.defineProperty(out, key, { value: decode(source[key]), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const SPECIALS = {
  $special(name) {
    switch (name) {
      case 'undefined': return undefined;
      case 'NaN': return NaN;
      case 'Infinity': return Infinity;
      case '-Infinity': return -Infinity;
      case '-0': return -0;
      default: throw new Error(`hostile catalogue: unknown $special ${name}`);
    }
  },
  $bigint: (text) => BigInt(text),
  $repeat: ([unit, count]) => decode(unit).repeat(count),
  $concat: (parts) => parts.map(decode).join(''),
  $loneSurrogate: (text) => text.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16))),
  $bytes: (hex) => fromHex(hex),
  $repeatBytes: ([hex, count]) => {
    const unit = fromHex(hex);
    const out = new Uint8Array(unit.length * count);
    if (unit.length === 1) out.fill(unit[0]);
    else for (let i = 0; i < count; i += 1) out.set(unit, i * unit.length);
    return out;
  },
  $buffer: (hex) => Buffer.from(hex, 'hex'),
  $arrayBuffer: (hex) => fromHex(hex).buffer,
  $dataView: (hex) => new DataView(fromHex(hex).buffer),
  $float64Array: (hex) => new Float64Array(fromHex(hex).buffer),
  $sharedArrayBuffer: (hex) => {
    const bytes = fromHex(hex);
    const shared = new SharedArrayBuffer(bytes.length);
    new Uint8Array(shared).set(bytes);
    return shared;
  },
  $detached: detached,
  $outOfBounds: outOfBounds,
  $deepArray: ([depth, leaf]) => nest(depth, (v) => [v], decode(leaf)),
  $deepObject: ([depth, key, leaf]) => nest(depth, (v) => ({ [key]: v }), decode(leaf)),
  $cyclic(kind) {
    if (kind === 'array') {
      const a = [];
      a.push(a);
      return a;
    }
    if (kind === 'object') {
      const o = { kind: 'fiat' };
      o.self = o;
      return o;
    }
    throw new Error(`hostile catalogue: unknown $cyclic ${kind}`);
  },
  $nullProto: (source) => plain(source, null),
  $map: (pairs) => new Map(decode(pairs)),
  $headers: (pairs) => new Headers(decode(pairs)),
  $boxed: (value) => Object(decode(value)),
  $symbol: (description) => Symbol(description),
  $function: (name) => ({ [name]() {} })[name],
  $repeatArray: ([value, count]) => Array.from({ length: count }, () => decode(value)),
  $concatArrays: (arrays) => [].concat(...arrays.map(decode)),
  $literal: (value) => structuredClone(value),
};

/** The JavaScript value a catalogue JSON value stands for (fresh on every call). */
export function decode(value) {
  if (Array.isArray(value)) return value.map(decode);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0].startsWith('$')) {
    const build = SPECIALS[keys[0]];
    if (build === undefined) throw new Error(`hostile catalogue: unknown special ${keys[0]}`);
    return build(value[keys[0]]);
  }
  return plain(value, Object.prototype);
}

/** A short description of any value, for failure messages (never huge). */
export function describe(value) {
  if (typeof value === 'string') return value.length > 60 ? `string(${value.length}) ${JSON.stringify(value.slice(0, 40))}…` : JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol' || typeof value === 'function') return String(value);
  if (value === null || typeof value !== 'object') return Object.is(value, -0) ? '-0' : String(value);
  const tag = Object.prototype.toString.call(value);
  if (ArrayBuffer.isView(value) || tag === '[object ArrayBuffer]' || tag === '[object SharedArrayBuffer]') {
    let length;
    try {
      length = value.byteLength;
    } catch {
      length = 'detached';
    }
    return `${tag}(${length})`;
  }
  if (tag === '[object Object]' || Array.isArray(value)) {
    // JSON with long strings cut and lone surrogates escaped (JSON.stringify escapes them).
    try {
      const text = JSON.stringify(value, (_, v) => (typeof v === 'string' && v.length > 60 ? `${v.slice(0, 40)}…(${v.length})` : v));
      if (text !== undefined) return text.length > 240 ? `${text.slice(0, 240)}…` : text;
    } catch {
      // a cycle, a BigInt or deep nesting
    }
    return Array.isArray(value) ? `array(${value.length})` : tag;
  }
  return tag;
}
