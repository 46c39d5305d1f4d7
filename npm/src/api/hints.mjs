// Every framework hint of the package, in one place: how each framework hands over the raw
// body, and what a proxy does to header names. The core knows no framework; the main entry
// (body_not_raw's message), the receiver's log lines and the conformance kit's advice read
// these texts from here.

/** How to get the raw body in each framework, as body_not_raw's message ends. */
export const RAW_BODY_FIXES = 'pass the raw body as a Uint8Array, ArrayBuffer, Buffer or string (Express: ' +
  "app.use('/webhook', express.raw({ type: () => true, limit: '4mb' })) ahead of any app-wide express.json(), any content " +
  "type, up to the default maxBodyBytes; Fastify: a parseAs: 'buffer' content-type parser, in a plugin that first calls " +
  "removeAllContentTypeParsers() (else the app's JSON parser runs first); NestJS: " +
  "app.use('/webhook', express.raw({ type: () => true, limit: '4mb' })) before Nest's parsers, on the route's whole " +
  "path (with app.setGlobalPrefix('api'), '/api/webhook'), then req.body; " +
  'Next.js and Hono: await request.arrayBuffer(); ' +
  'a Next.js Pages Router API route: export const config = { api: { bodyParser: false } }; hapi: a route with ' +
  'options: { payload: { parse: false } }, then request.payload; Nitro 2 and Nuxt (h3 v1): ' +
  'receiver.fetch(toWebRequest(event)), or readRawBody(event, false); Nitro 3 (h3 v2): receiver.fetch(event.req); ' +
  'Workers: await request.arrayBuffer())';

/** body_not_raw's remedy for JavaScript: what the core says, then each framework's way. */
export const BODY_NOT_RAW = 'the body is not the raw request bytes: a parsed or re-serialized JSON body can never ' +
  `verify; ${RAW_BODY_FIXES}`;

/** The conformance kit's advice when a receiver answered body_not_raw to a valid delivery. */
export const BODY_PARSED_FIRST = 'the framework parsed the body before the receiver saw it: give the webhook route ' +
  "the raw bytes (Express: app.use('/webhook', express.raw({ type: () => true, limit: '4mb' })) mounted ahead of any " +
  "app-wide express.json(), where a route's own express.raw() comes too late; NestJS: the same on the route's whole " +
  "path, '/api/webhook' under app.setGlobalPrefix('api'); Fastify: a parseAs: 'buffer' content-type parser in a plugin " +
  "that first calls removeAllContentTypeParsers(); Next.js, Hono and Workers: await request.arrayBuffer())";

/** The receiver's log lines for a body some code read before it, by the face that saw it. */
export const BODY_ALREADY_READ = {
  // Fastify reads every body before any handler; Koa's bodyParser() mounted ahead of the route
  // reads the stream and keeps the parsed body on ctx.request, not on req.
  node: 'body_not_raw: the request stream was already read and req.body is undefined (Fastify, and other ' +
    'frameworks, read it before any handler): pass the raw bytes to receiver.handle({ body, headers }) instead ' +
    "(Fastify: a parseAs: 'buffer' content-type parser, in a plugin that first calls removeAllContentTypeParsers(), as " +
    'in the Fastify recipe); in Koa, mount the webhook route ' +
    'before app.use(bodyParser())',
  // Nitro 3 (h3 v2): readBody(event), in the route or a middleware, reads event.req itself.
  fetch: 'body_not_raw: the Request body was already read (await request.json(), c.req.json(), in Nitro 3 ' +
    'readBody(event), in Elysia a handler, hook, derive or plugin that names body, ...): pass the untouched ' +
    'Request to receiver.fetch, or the bytes you read ' +
    '(await request.arrayBuffer()) to receiver.handle({ body, headers: request.headers })',
  // A parser ran first and kept no bytes: a route-level express.raw() cannot help then (the
  // app-wide parser already took the stream), so the fixes are the route's place or the bytes.
  parsed: 'body_not_raw: req.body is an object: a body parser ran before the receiver and kept no req.rawBody, ' +
    'and a parsed body can never verify. Ahead of the app-wide app.use(express.json()), mount ' +
    "app.use('/webhook', express.raw({ type: () => true, limit: '4mb' })), or register the webhook route before it (an " +
    'express.raw() on the route itself runs too late); a verify callback keeping req.rawBody is read too, but ' +
    'express.json() answers a body over its limit (100kb by default) 413 and one it cannot parse 400, which the service ' +
    'never retries; in a Next.js Pages Router API route, export const config = { api: { bodyParser: false } }; in ' +
    "NestJS, app.use('/webhook', express.raw({ type: () => true, limit: '4mb' })) before Nest's parsers, on the " +
    "route's whole path (with app.setGlobalPrefix('api'), '/api/webhook')",
};

/**
 * Said once per receiver when a Node request's body came from req.rawBody beside a parsed
 * req.body: the parser that kept those bytes ran first, with a size limit of its own that the
 * receiver never sees (a larger event is answered 413 before it runs, and lost).
 */
export const parserKeptRawBody = (maxBodyBytes) => 'the body was read from req.rawBody, kept by a body parser that ' +
  'ran first (a verify callback, NestJS rawBody: true): that parser answers a body over its own limit 413 before ' +
  'the receiver runs, and the service never retries a 413, so every larger event is lost. express.json() and ' +
  `NestJS take 100kb by default: give the parser a limit of at least maxBodyBytes (${maxBodyBytes} bytes), as ` +
  "express.json({ limit: '4mb', verify }) or app.useBodyParser('json', { limit: '4mb' }), or mount " +
  "express.raw({ type: () => true, limit: '4mb' }) on the webhook path ahead of it. `cryptopay-verify conformance` " +
  'checks it (large_body). Said once';

/**
 * When a delivery header was not found: the names of `names` holding an underscore, which
 * nginx (and some other proxies) drop by default; '' when none does. Starts with '; '.
 */
export function underscoreHint(names) {
  const dropped = names.filter((name) => typeof name === 'string' && name.includes('_'));
  return dropped.length === 0 ? '' : `; or a proxy in front dropped ${dropped.join(' and ')}: nginx drops a ` +
    'header whose name holds an underscore unless underscores_in_headers is on';
}

/**
 * When a secret or key given is an object whose get() gives its text, as a Cloudflare Secrets
 * Store binding is (`env.NAME` is then the binding, not the text): the fix, starting with
 * ': '; else ''. A Map is not one.
 */
export function bindingHint(value) {
  const binding = value !== null && typeof value === 'object' && !(value instanceof Map) && typeof value.get === 'function';
  return binding ? ': it is an object with a get() method, as a Cloudflare Secrets Store binding is; pass its text, '
    + '(await env.NAME.get())' : '';
}

/** An HTTP header name (RFC 9110's token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers HTTP itself uses, which a delivery's timestamp or signature header must not be: the
 * sender would overwrite or drop it (Content-Length), or send the signature as the Host.
 */
export const RESERVED_HEADERS = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'expect',
  'upgrade', 'trailer', 'te', 'keep-alive', 'user-agent']);

/**
 * A time from here on is milliseconds, not Unix seconds (10^12 seconds is the year 33658): the
 * verify API names a clock in milliseconds in its refusal; the receiver refuses such a clock and
 * a rotation's end in milliseconds (the Verifier takes any safe integer; the receiver does not).
 */
export const MILLISECONDS = 1e12;

/**
 * A clock that answers less is not the current Unix time in seconds (10^9 s is September 2001):
 * one that failed or was never set (0), seconds since the process started
 * (`performance.now() / 1000`), or a part of the date. Every delivery would be refused as from
 * the future, 400, which the service never retries: the verify API names it as the caller's
 * clock (receiverFault), and the receiver refuses such a clock.
 */
export const PAST = 1e9;

/** A URL's host name that is this machine: localhost, 127.0.0.0/8 or [::1]. */
export const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The special-use host names local development uses (*.localhost, a Valet or dnsmasq *.test,
 * mDNS *.local, Docker's host.docker.internal, a home router's *.home.arpa): the service
 * reaches none of them; a sandbox on the same machine or network does.
 */
const LOCAL_DEV_NAME = /\.(localhost|test|local|internal|home\.arpa)\.?$/i;

/**
 * A host only a container network or a LAN resolves: one label with a letter (a Compose or CI
 * service name such as `receiver`: no registered domain has one label), or a private address
 * (10/8, 172.16/12, 192.168/16, IPv6 fc00::/7). The service reaches none of them. (A
 * container name may hold `_`: Compose v1's `project_service_1`.)
 */
const SINGLE_LABEL = /^(?=[\w-]*[a-z])[a-z0-9](?:[\w-]*[a-z0-9])?$/i;
const PRIVATE_ADDRESS = /^(?:10(?:\.\d{1,3}){3}|172\.(?:1[6-9]|2\d|3[01])(?:\.\d{1,3}){2}|192\.168(?:\.\d{1,3}){2}|\[f[cd][0-9a-f]{2}:[0-9a-f:.]*\])$/i;

/**
 * Whether a URL's host name is this machine, a local development name, a one-label host or a
 * private address: where a sandbox, and only a sandbox, delivers webhooks over http://.
 */
export const isLocalHost = (hostname) => LOOPBACK_HOST.test(hostname) || LOCAL_DEV_NAME.test(hostname)
  || SINGLE_LABEL.test(hostname) || PRIVATE_ADDRESS.test(hostname);

/**
 * What a sandbox refuses of a local webhook URL (`url` parsed from `text`), which it takes as
 * http:// and on any port: user information, a query or a fragment, as the service refuses
 * them in any URL. Answers a public URL holding only that part, for validateWebhookUrl to
 * refuse with the core's own code and message; null when there is none.
 */
export function localWebhookUrlProbe(url, text) {
  if (url.username !== '' || url.password !== '') return 'https://user:password@example.com/';
  if (url.search !== '' || text.includes('?')) return 'https://example.com/?';
  if (url.hash !== '' || text.includes('#')) return 'https://example.com/#';
  return null;
}

// Same letters ignoring case, '_' and '-', or one edit apart.
export function nearMiss(key, name) {
  const fold = (s) => s.toLowerCase().replace(/[_-]/g, '');
  const a = fold(key);
  const b = fold(name);
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1 || a.length > 40) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const tail = (x, y) => a.slice(i + x) === b.slice(i + y);
  return tail(1, 1) || tail(1, 0) || tail(0, 1);
}

/**
 * Whether option `key` is option `name` cut short or run on (maxSkew, maxSkewSeconds for
 * maxSkewSecs): a shared start of 6 or more letters that leaves at most three of the shorter.
 * For options, and for a variable only where ours is unset: an environment variable of the
 * user's own may share our prefix.
 */
export function cutOrRunOn(key, name) {
  const fold = (s) => s.toLowerCase().replace(/[_-]/g, '');
  const a = fold(key);
  const b = fold(name);
  if (a.length > 40) return false;
  let shared = 0;
  while (shared < a.length && shared < b.length && a[shared] === b[shared]) shared++;
  return shared >= 6 && shared >= Math.min(a.length, b.length) - 3;
}

/**
 * What to say of an unknown option `key` given to `what`: never the key itself (it could be a
 * pasted secret), the options there are, and a near miss of one of them when there is one.
 * `noun` names what the keys are when they are not options (createPayment's fields).
 */
export function unknownOption(key, allowed, what, noun = 'option') {
  const near = allowed.find((name) => nearMiss(key, name)) ?? allowed.find((name) => cutOrRunOn(key, name));
  return `${what} was given an unknown ${noun} (${noun}s: ${allowed.join(', ')})${near ? `; did you mean "${near}"?` : ''}`;
}

/**
 * `text` without one pair of the same quotes around it ("..." or '...'), else as it is: what an
 * env file, a YAML value or a shell script may leave around a secret (the receiver warns of
 * it at start, the command line when it reads one).
 */
export const unquoted = (text) => (text.length >= 2 && (text[0] === '"' || text[0] === "'") && text.at(-1) === text[0]
  ? text.slice(1, -1) : text);
