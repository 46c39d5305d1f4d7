-- cryptopay-verify/receiver: the SQLite tables and statements (SQLite files, libsql and
-- Cloudflare D1).
--
-- receiver.ready() runs the `schema` statements (idempotent); each delivery runs `apply` then
-- `record` in one transaction (BEGIN IMMEDIATE for a file, one batch() for D1 and libsql), or
-- `quarantine`. The prefix `cryptopay_` is replaced by the store's `prefix` option; run the
-- `schema` statements in a migration and pass `createTables: false` to create them yourself.
--
-- status_version is TEXT holding canonical decimal digits (no sign, no leading zeros), of any
-- size, compared exactly: a longer text is a greater number; of equal length, the text order
-- (BINARY collation) is the number order. Never REAL, never a 64-bit INTEGER.

-- statement: schema
CREATE TABLE IF NOT EXISTS cryptopay_events (
  event_id       TEXT NOT NULL PRIMARY KEY,
  payment_id     TEXT NOT NULL,
  status_version TEXT NOT NULL CHECK (typeof(status_version) = 'text' AND length(status_version) > 0
                   AND status_version NOT GLOB '*[^0-9]*' AND (status_version = '0' OR status_version NOT GLOB '0*')),
  decision       TEXT NOT NULL CHECK (decision IN ('apply', 'stale')),
  received_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  body           BLOB NOT NULL CHECK (typeof(body) = 'blob')
);
CREATE INDEX IF NOT EXISTS cryptopay_events_payment_id ON cryptopay_events (payment_id);
CREATE TABLE IF NOT EXISTS cryptopay_payments (
  payment_id     TEXT NOT NULL PRIMARY KEY,
  status_version TEXT NOT NULL CHECK (typeof(status_version) = 'text' AND length(status_version) > 0
                   AND status_version NOT GLOB '*[^0-9]*' AND (status_version = '0' OR status_version NOT GLOB '0*')),
  event_id       TEXT NOT NULL,
  data           TEXT NOT NULL,
  updated_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE IF NOT EXISTS cryptopay_quarantine (
  id          INTEGER PRIMARY KEY,
  received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  code        TEXT NOT NULL,
  body        BLOB NOT NULL CHECK (typeof(body) = 'blob')
);

-- statement: check
-- With createTables: false, ready() creates nothing: it runs `columns` (below), then this,
-- which reads every column (so a role that may not read the tables fails at start).
SELECT
  (SELECT count(*) FROM (SELECT event_id, payment_id, status_version, decision, received_at, body
                         FROM cryptopay_events LIMIT 0))
  + (SELECT count(*) FROM (SELECT payment_id, status_version, event_id, data, updated_at
                           FROM cryptopay_payments LIMIT 0))
  + (SELECT count(*) FROM (SELECT id, received_at, code, body FROM cryptopay_quarantine LIMIT 0))
  AS zero;

-- statement: columns
-- ready() then checks the columns' declared types: CREATE TABLE IF NOT EXISTS keeps a table
-- made earlier, and the ids and versions must have TEXT affinity (an INTEGER one would turn
-- the version "10" and the id "0123" into numbers: a version past 2^63 into an inexact REAL,
-- the ids "0123" and "123" into one). One row, `columns`: a JSON array of { suffix, name,
-- type }, one per column, and one with no name for a table that is missing.
SELECT json_group_array(json_object('suffix', t.suffix, 'name', c.name, 'type', c.type)) AS columns
FROM (SELECT 'events' AS suffix, 'cryptopay_events' AS relation
      UNION ALL SELECT 'payments', 'cryptopay_payments'
      UNION ALL SELECT 'quarantine', 'cryptopay_quarantine') AS t
LEFT JOIN pragma_table_info(t.relation) AS c;

-- statement: writable
-- ready() of a SQLite file runs this in a transaction it rolls back: a write that changes
-- nothing, which a database this process cannot write (opened read-only, query_only, a file
-- or folder without write permission) refuses at start instead of at every delivery.
DELETE FROM cryptopay_quarantine WHERE 0;

-- statement: apply
-- Parameters: event_id, payment_id, status_version, data (JSON text). Writes the payment row
-- only when the event is not stored yet and its version is greater than the stored one.
WITH incoming (event_id, payment_id, status_version, data) AS (VALUES (?, ?, ?, ?))
INSERT INTO cryptopay_payments (payment_id, status_version, event_id, data)
SELECT payment_id, status_version, event_id, data FROM incoming
WHERE NOT EXISTS (SELECT 1 FROM cryptopay_events AS seen WHERE seen.event_id = incoming.event_id)
ON CONFLICT (payment_id) DO UPDATE
  SET status_version = excluded.status_version, event_id = excluded.event_id, data = excluded.data,
      updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
  WHERE length(excluded.status_version) > length(cryptopay_payments.status_version)
     OR (length(excluded.status_version) = length(cryptopay_payments.status_version)
         AND excluded.status_version > cryptopay_payments.status_version);

-- statement: record
-- Parameters: event_id, payment_id, status_version, body. Runs right after `apply` in the same
-- transaction: the event is 'apply' when `apply` wrote the payment row (changes(): the rows the
-- last INSERT, UPDATE or DELETE of this connection changed, here `apply`'s), else 'stale'.
-- Not "the payment row holds this event": after the event's own row was deleted (retention),
-- a retry of the event applied last would read 'apply' again, with nothing applied.
-- Returns that decision, or no row when the event_id is already stored (duplicate).
WITH incoming (event_id, payment_id, status_version, body) AS (VALUES (?, ?, ?, ?))
INSERT INTO cryptopay_events (event_id, payment_id, status_version, decision, body)
SELECT event_id, payment_id, status_version,
       CASE WHEN changes() > 0 THEN 'apply' ELSE 'stale' END,
       body
FROM incoming WHERE true
ON CONFLICT (event_id) DO NOTHING
RETURNING decision;

-- statement: quarantine
-- Parameters: the error code, the verified body.
INSERT INTO cryptopay_quarantine (code, body) VALUES (?, ?);
