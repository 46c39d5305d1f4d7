// A programmable local stand-in for the payment service's HTTP API: it is NOT the service (nor
// the sandbox): each test scripts what it answers, request by request (200 with a JSON body,
// a 5xx, an ErrorResponse, a dropped connection, a slow answer), and reads back every request
// it received (method, path, headers, body bytes).

import http from 'node:http';

/**
 * Starts the stand-in on 127.0.0.1. `answer(request, n)` (n: the request's number for its
 * method and path, from 1) returns { status, json?, text?, headers?, delayMs?, drop?, cutBody? }.
 * Resolves { baseUrl, requests, answer, script(answer), close() }.
 */
export async function startStandin(answer) {
  const requests = [];
  const counts = new Map();
  const sockets = new Set();
  const standin = { requests, answer, baseUrl: '' };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', async () => {
      const path = new URL(req.url, 'http://standin.invalid').pathname;
      const key = `${req.method} ${path}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      const request = { method: req.method, url: req.url, path, headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      requests.push(request);
      let reply;
      try {
        reply = (await standin.answer(request, counts.get(key))) ?? { status: 404, json: { error: { code: 'not_found', message: 'no script' } } };
      } catch (error) {
        reply = { status: 500, text: String(error) };
      }
      if (reply.delayMs) await new Promise((resolve) => { setTimeout(resolve, reply.delayMs); });
      if (reply.drop) {
        req.socket.destroy();
        return;
      }
      const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? '');
      if (res.destroyed) return;
      res.writeHead(reply.status ?? 200, { 'content-type': reply.json !== undefined ? 'application/json' : 'text/plain', ...reply.headers });
      if (reply.cutBody) {
        // The status and half the body, then the connection closed: the body never ends.
        res.write(body.slice(0, Math.floor(body.length / 2)), () => req.socket.destroy());
        return;
      }
      res.end(body);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  standin.baseUrl = `http://127.0.0.1:${server.address().port}`;
  /** Scripts new answers: the requests and the per-route numbering start again. */
  standin.script = (next) => {
    requests.length = 0;
    counts.clear();
    standin.answer = next;
  };
  standin.close = () => new Promise((resolve) => {
    for (const socket of sockets) socket.destroy();
    server.close(resolve);
  });
  return standin;
}

/** An ErrorResponse answer, as DESIGN.md gives its shape. */
export const errorResponse = (status, code, message = `${code} (stand-in)`) => ({ status, json: { error: { code, message } } });
