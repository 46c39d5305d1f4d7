// The receiver's durable record: an append-only JSON-lines file, one line per accepted
// event, flushed to disk (fsync) before the delivery is acknowledged. The state the
// receiver works from (event ids seen, latest status_version per payment) is rebuilt from
// this file at start, so a restart loses nothing and re-applies nothing.

import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, truncateSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { decideEvent } from 'cryptopay-verify';

export class EventLog {
  #file;
  #handle = null;
  #size = 0;
  #tail = Promise.resolve(); // appends run one at a time, in arrival order
  /** Every recorded line, in order. */
  records = [];
  /** event_id -> true for every recorded event (the de-duplication key). */
  #seen = new Set();
  /** payment_id -> the record whose facts were last applied for that payment. */
  #payments = new Map();

  constructor(dataDir) {
    this.#file = join(dataDir, 'events.jsonl');
    this.dataDir = dataDir;
  }

  /** Opens the log and rebuilds the state from it. */
  async open() {
    mkdirSync(this.dataDir, { recursive: true });
    let text = '';
    try {
      text = readFileSync(this.#file, 'utf8');
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    // A crash in the middle of an append leaves a last line without its newline. That
    // delivery was never acknowledged (the answer waits for fsync), so the service retries
    // it: the partial line is cut off.
    const end = text.lastIndexOf('\n') + 1;
    if (end < text.length) {
      truncateSync(this.#file, Buffer.byteLength(text.slice(0, end)));
      text = text.slice(0, end);
    }
    const lines = text.split('\n').slice(0, -1);
    lines.forEach((line, i) => {
      let record;
      try {
        record = JSON.parse(line);
      } catch {
        throw new Error(`${this.#file} line ${i + 1} is not JSON: the log is damaged; refusing to start`);
      }
      this.#remember(record);
    });
    this.#handle = await open(this.#file, 'a');
    this.#size = (await this.#handle.stat()).size;
    // Make the file's directory entry durable too (it may have just been created).
    const dir = openSync(this.dataDir, 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    return this;
  }

  #remember(record) {
    this.records.push(record);
    this.#seen.add(record.event_id);
    if (record.decision === 'apply') this.#payments.set(record.payment_id, record);
  }

  payment(paymentId) {
    return this.#payments.get(paymentId);
  }

  payments() {
    return [...this.#payments.values()];
  }

  /**
   * Records a verified event. Resolves with the decision ('apply', 'stale' or 'duplicate')
   * once the line is on disk; a duplicate writes nothing.
   */
  record(verified, delivery) {
    const run = this.#tail.then(() => this.#append(verified, delivery));
    this.#tail = run.catch(() => {});
    return run;
  }

  async #append({ event, matchedSecret }, { timestamp, body }) {
    const latest = this.#payments.get(event.paymentId);
    const decision = decideEvent(
      { eventId: event.eventId, paymentId: event.paymentId, statusVersion: event.statusVersion },
      { eventSeen: this.#seen.has(event.eventId), statusVersion: latest?.status_version },
    );
    if (decision === 'duplicate') return decision;
    const record = {
      event_id: event.eventId,
      payment_id: event.paymentId,
      status_version: event.statusVersion,
      decision,
      recorded_at: new Date().toISOString(),
      delivery_timestamp: timestamp,
      matched_secret: matchedSecret,
      event: {
        schema_version: event.schemaVersion,
        event_type: event.eventType,
        occurred_at: event.occurredAt,
        data: event.data,
      },
      // The verified bytes as received (a verified event is valid UTF-8 JSON).
      body: body.toString('utf8'),
    };
    const line = Buffer.from(`${JSON.stringify(record)}\n`);
    try {
      await this.#handle.write(line);
      await this.#handle.sync();
    } catch (error) {
      // Nothing is acknowledged: cut off whatever part of the line reached the file.
      await this.#handle.truncate(this.#size).catch(() => {});
      throw error;
    }
    this.#size += line.length;
    this.#remember(record);
    return decision;
  }

  async close() {
    await this.#tail;
    await this.#handle?.close();
    this.#handle = null;
  }
}
