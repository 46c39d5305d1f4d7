// A STAND-IN for AWS's front doors to a Lambda function (API Gateway, Function URLs, ALB),
// which cannot run here: a node:http server that turns each request into the event object
// AWS documents for `SHAPE` and the handler's result into the response, so that the Lambda
// recipe (./handler.mjs of the working directory, or the file HANDLER names) is driven over
// HTTP by the same deliveries, and the same conformance kit, as the other recipes. It
// reproduces what matters to a receiver: how the body arrives (text, or base64 with
// isBase64Encoded) and how header names and repeated headers are given. Prints
// `listening on http://127.0.0.1:<port>/webhook`.
//
// SHAPE (environment):
//   http-api         API Gateway HTTP API, payload 2.0, and Function URLs: header names in
//                    lower case, a repeated header's values joined with commas; text body
//   http-api-base64  the same with the body as base64 (isBase64Encoded: a binary content type)
//   rest-api         API Gateway REST API, payload 1.0: names as sent; `headers` keeps a repeated
//                    header's last value, `multiValueHeaders` all of them; text body
//   rest-api-binary  the same with application/json among the API's binaryMediaTypes: base64
//   alb              Application Load Balancer with multi-value headers on: names in lower
//                    case, only `multiValueHeaders` (in the event and in the answer); the
//                    body as text for text/*,
//                    application/json, application/javascript and application/xml without a
//                    Content-Encoding, else as base64 (AWS's guide to Lambda targets)

import http from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const SHAPE = process.env.SHAPE;
const SHAPES = ['http-api', 'http-api-base64', 'rest-api', 'rest-api-binary', 'alb'];
if (!SHAPES.includes(SHAPE)) {
  console.error(`SHAPE must be one of ${SHAPES.join(', ')}`);
  process.exit(2);
}
// An ES module, or a CommonJS bundle (whose exports may arrive only as the default).
const loaded = await import(pathToFileURL(join(process.cwd(), process.env.HANDLER ?? 'handler.mjs')).href);
const handler = loaded.handler ?? loaded.default?.handler;

function headerViews(rawHeaders, lowerCase) {
  const single = {};
  const multi = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = lowerCase ? rawHeaders[i].toLowerCase() : rawHeaders[i];
    const value = rawHeaders[i + 1];
    (multi[name] ??= []).push(value);
    single[name] = value;
  }
  return { single, multi };
}

// The content types an ALB passes to a Lambda target as text.
const ALB_TEXT = /^\s*(text\/[^;\s]+|application\/(json|javascript|xml))\s*(;|$)/i;
const albBase64 = (req) => req.headers['content-encoding'] !== undefined || !ALB_TEXT.test(req.headers['content-type'] ?? '');

// A text body is the request's bytes decoded as UTF-8; what AWS does with bytes that are not
// UTF-8 is its own: here they decode to U+FFFD, as Node decodes them.
function eventOf(req, bytes) {
  const url = new URL(req.url, 'http://localhost');
  const base64 = SHAPE.endsWith('-base64') || SHAPE.endsWith('-binary') || (SHAPE === 'alb' && albBase64(req));
  const body = bytes.length === 0 ? null : base64 ? bytes.toString('base64') : bytes.toString('utf8');
  if (SHAPE === 'http-api' || SHAPE === 'http-api-base64') {
    const { multi } = headerViews(req.rawHeaders, true);
    const headers = Object.fromEntries(Object.entries(multi).map(([name, values]) => [name, values.join(',')]));
    return {
      version: '2.0', routeKey: 'POST /webhook', rawPath: url.pathname, rawQueryString: url.search.slice(1), headers,
      requestContext: { http: { method: req.method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1' } },
      body, isBase64Encoded: base64,
    };
  }
  if (SHAPE.startsWith('rest-api')) {
    const { single, multi } = headerViews(req.rawHeaders, false);
    return {
      resource: '/webhook', path: url.pathname, httpMethod: req.method, headers: single, multiValueHeaders: multi,
      requestContext: { httpMethod: req.method, path: url.pathname },
      body, isBase64Encoded: base64,
    };
  }
  const { multi } = headerViews(req.rawHeaders, true);
  return {
    requestContext: { elb: { targetGroupArn: 'arn:aws:elasticloadbalancing:stand-in' } },
    httpMethod: req.method, path: url.pathname, multiValueHeaders: multi, body, isBase64Encoded: base64,
  };
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    try {
      const result = await handler(eventOf(req, Buffer.concat(chunks)));
      const body = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : Buffer.from(result.body ?? '', 'utf8');
      // The headers of the answer as each front door reads them: an ALB with multi-value
      // headers on, from multiValueHeaders only; a REST API, from both; the others, headers.
      const multi = SHAPE === 'alb' || SHAPE.startsWith('rest-api') ? result.multiValueHeaders ?? {} : {};
      const single = SHAPE === 'alb' ? {} : result.headers ?? {};
      res.writeHead(result.statusCode, { ...single, ...multi, 'content-length': body.length });
      res.end(body);
    } catch (error) {
      // What AWS answers when the function throws.
      console.error(`handler threw: ${error?.message}`);
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end('{"message":"Internal Server Error"}');
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  console.log(`api gateway stand-in (${SHAPE}): listening on http://127.0.0.1:${server.address().port}/webhook`);
});
