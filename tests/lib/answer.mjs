// An HTTP answer read whole, for the tests that send deliveries with node:http.

/**
 * Reads `res` (a node:http IncomingMessage) to its end. Resolves { status, headers, text, json }:
 * `json` the parsed body, or undefined when it is not JSON. Rejects on a stream error.
 */
export function readAnswer(res) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    res.on('data', (chunk) => chunks.push(chunk));
    res.on('error', reject);
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      resolve({ status: res.statusCode, headers: res.headers, text, json });
    });
  });
}
