-- cryptopay-verify/receiver: the SQLite tables and statements (SQLite files, libsql and
-- Cloudflare D1).
--
-- receiver.ready() reads `tables` (and `version`), then runs the `schema` statements
-- (idempotent) in one transaction, after the `migrate_1` ones for tables of schema version 1
-- (the `migrate_2` and `migrate_4` ones for tables of version 2, and `migrate_4` for 3 and 4);
-- each delivery runs `apply` then `record` in one transaction (BEGIN IMMEDIATE for a file,
-- one batch() for D1 and libsql), or `quarantine`; the merchant loop runs the `order`
-- statements (recordCreated) and, under a lease, `claim`, `load`, `intend`, `renew`, `complete`,
-- `retry` and `release` (receiver.fulfil), each group in one transaction. The prefix `cryptopay_` is
-- replaced by the store's `prefix` option; run the `schema` statements in a migration and
-- pass `createTables: false` to create them yourself.
--
-- Schema versions (the row 'receiver' of cryptopay_schema): 1, the first tables (events,
-- payments, quarantine; no version row); 2, the merchant loop: events record the integration
-- and the secret kind that verified each delivery, payments the integration and the version
-- last handled, and the tables orders and fulfilment. `migrate_1` takes version 1 to 2 in
-- place, rows kept: the payments recorded before it are taken as handled (whatever handled
-- them then), so that upgrading never fulfils an old payment again (nor recording its order
-- later: `order_state`). 3: the fulfilment row keeps the version whose key every `fulfil` of
-- the payment carries (`fulfil_version`); `migrate_2` adds it. 4: an index of the closed
-- payments checked again for late money; `schema` alone made it (no `migrate_3`). 5: the
-- fulfilment row keeps when a closed payment's next late-money check is due (`recheck_at`,
-- indexed: a claim reads the checks that are due, not every closed payment of the window);
-- `migrate_4` adds it.
--
-- Times are UTC text, strftime('%Y-%m-%dT%H:%M:%fZ'), compared as text. Leases and delays are
-- measured by the database's clock, shared by every process of the file (or of D1).
--
-- status_version is TEXT holding canonical decimal digits (no sign, no leading zeros), of any
-- size, compared exactly: a longer text is a greater number; of equal length, the text order
-- (BINARY collation) is the number order. Never REAL, never a 64-bit INTEGER.

-- statement: tables
-- ready() first reads which tables stand; when cryptopay_schema does, then `version`.
-- `columns_version` is the version the columns show, for tables without a version row (the
-- first schema's; or a later one's whose row was lost, in a partial restore say: read as
-- version 1, its migration would take every payment not yet handled as handled). With no
-- fulfilment table (lost with the row), 5: no migration alters it, and `schema` makes it whole.
SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'cryptopay_schema') AS has_schema,
       (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'cryptopay_events') AS has_events,
       CASE WHEN NOT EXISTS (SELECT 1 FROM pragma_table_info('cryptopay_payments') WHERE name = 'handled_version') THEN 1
            WHEN NOT EXISTS (SELECT 1 FROM pragma_table_info('cryptopay_fulfilment')) THEN 5
            WHEN NOT EXISTS (SELECT 1 FROM pragma_table_info('cryptopay_fulfilment') WHERE name = 'fulfil_version') THEN 2
            WHEN NOT EXISTS (SELECT 1 FROM pragma_table_info('cryptopay_fulfilment') WHERE name = 'recheck_at') THEN 3
            ELSE 5 END AS columns_version;

-- statement: version
-- No row (lost): null, and the version is `tables`' columns_version.
SELECT max(version) AS version FROM cryptopay_schema WHERE name = 'receiver';

-- statement: migrate_1
-- Schema version 1 to 2, run before `schema` in the same transaction (only on tables of
-- version 1: SQLite has no ADD COLUMN IF NOT EXISTS, so the store leaves out the ALTER of a
-- column that stands). A second migration running at once (another D1 isolate) fails at the
-- first ALTER and rolls back whole; one that read the columns after the first committed has
-- no ALTER left, and its UPDATE runs only while the version row says 1.
ALTER TABLE cryptopay_events ADD COLUMN integration TEXT;
ALTER TABLE cryptopay_events ADD COLUMN secret_kind TEXT
  CHECK (secret_kind IS NULL OR secret_kind IN ('active', 'pending', 'retiring'));
ALTER TABLE cryptopay_payments ADD COLUMN integration TEXT;
ALTER TABLE cryptopay_payments ADD COLUMN handled_version TEXT
  CHECK (handled_version IS NULL OR (typeof(handled_version) = 'text' AND length(handled_version) > 0
    AND handled_version NOT GLOB '*[^0-9]*' AND (handled_version = '0' OR handled_version NOT GLOB '0*')));
CREATE TABLE IF NOT EXISTS cryptopay_schema (
  name    TEXT    NOT NULL PRIMARY KEY,
  version INTEGER NOT NULL
);
INSERT INTO cryptopay_schema (name, version) VALUES ('receiver', 1) ON CONFLICT (name) DO NOTHING;
UPDATE cryptopay_payments SET handled_version = status_version WHERE handled_version IS NULL
  AND (SELECT version FROM cryptopay_schema WHERE name = 'receiver') = 1;

-- statement: migrate_2
-- Schema version 2 to 3, run before `schema` in the same transaction (only on tables of
-- version 2; version 1 has no fulfilment table, which `schema` then makes with the column).
ALTER TABLE cryptopay_fulfilment ADD COLUMN fulfil_version TEXT
  CHECK (fulfil_version IS NULL OR (typeof(fulfil_version) = 'text' AND length(fulfil_version) > 0
                    AND fulfil_version NOT GLOB '*[^0-9]*' AND (fulfil_version = '0' OR fulfil_version NOT GLOB '0*')));

-- statement: migrate_4
-- Schema versions 2 to 4 to 5, run before `schema` in the same transaction (after `migrate_2`
-- for version 2): when a closed payment is next due a check for late money. The closed
-- payments whose orders are younger than 7 days (the default recheckClosedSecs) get their next
-- check as `claim` computed it before; older ones are done.
ALTER TABLE cryptopay_fulfilment ADD COLUMN recheck_at TEXT;
-- (Tables set back to version 4 by hand keep the column, and the ALTER is left out: what
-- version 5 wrote before is cleared, since the older package's passes moved seen_at on.) Each
-- UPDATE runs only while the version row is older than 5: another isolate (D1) or client
-- (libsql) that migrated between this one's reads of the version and of the columns leaves
-- this batch no ALTER to fail on, and the recheck_at its passes wrote since must stay.
UPDATE cryptopay_fulfilment SET recheck_at = NULL WHERE recheck_at IS NOT NULL
  AND (SELECT coalesce(max(version), 1) FROM cryptopay_schema WHERE name = 'receiver') < 5;
UPDATE cryptopay_fulfilment
SET recheck_at = (SELECT strftime('%Y-%m-%dT%H:%M:%fZ', julianday(f.seen_at) + max(julianday(f.seen_at) - julianday(o.created_at), 0))
                  FROM cryptopay_fulfilment AS f JOIN cryptopay_orders AS o ON o.payment_id = f.payment_id
                  WHERE f.payment_id = cryptopay_fulfilment.payment_id
                    AND o.created_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-7 days')
                    AND julianday(f.seen_at) + max(julianday(f.seen_at) - julianday(o.created_at), 0) < julianday(o.created_at) + 7)
WHERE settled = 1 AND outcome = 'closed'
  AND payment_id IN (SELECT payment_id FROM cryptopay_orders WHERE created_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-7 days'))
  AND (SELECT coalesce(max(version), 1) FROM cryptopay_schema WHERE name = 'receiver') < 5;

-- statement: schema
CREATE TABLE IF NOT EXISTS cryptopay_schema (
  name    TEXT    NOT NULL PRIMARY KEY,
  version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS cryptopay_events (
  event_id       TEXT NOT NULL PRIMARY KEY,
  payment_id     TEXT NOT NULL,
  status_version TEXT NOT NULL CHECK (typeof(status_version) = 'text' AND length(status_version) > 0
                   AND status_version NOT GLOB '*[^0-9]*' AND (status_version = '0' OR status_version NOT GLOB '0*')),
  decision       TEXT NOT NULL CHECK (decision IN ('apply', 'stale')),
  received_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  body           BLOB NOT NULL CHECK (typeof(body) = 'blob'),
  integration    TEXT,
  secret_kind    TEXT CHECK (secret_kind IS NULL OR secret_kind IN ('active', 'pending', 'retiring'))
);
CREATE INDEX IF NOT EXISTS cryptopay_events_payment_id ON cryptopay_events (payment_id);
CREATE TABLE IF NOT EXISTS cryptopay_payments (
  payment_id      TEXT NOT NULL PRIMARY KEY,
  status_version  TEXT NOT NULL CHECK (typeof(status_version) = 'text' AND length(status_version) > 0
                    AND status_version NOT GLOB '*[^0-9]*' AND (status_version = '0' OR status_version NOT GLOB '0*')),
  event_id        TEXT NOT NULL,
  data            TEXT NOT NULL,
  updated_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  integration     TEXT,
  handled_version TEXT CHECK (handled_version IS NULL OR (typeof(handled_version) = 'text' AND length(handled_version) > 0
                    AND handled_version NOT GLOB '*[^0-9]*' AND (handled_version = '0' OR handled_version NOT GLOB '0*')))
);
-- The payments whose applied facts are newer than those last handled: what a pass claims.
CREATE INDEX IF NOT EXISTS cryptopay_payments_unhandled ON cryptopay_payments (payment_id)
  WHERE handled_version IS NULL OR length(status_version) > length(handled_version)
     OR (length(status_version) = length(handled_version) AND status_version > handled_version);
CREATE TABLE IF NOT EXISTS cryptopay_quarantine (
  id          INTEGER PRIMARY KEY,
  received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  code        TEXT NOT NULL,
  body        BLOB NOT NULL CHECK (typeof(body) = 'blob')
);
-- The merchant's side of each payment it created (recordCreated): what rule 7 links to.
CREATE TABLE IF NOT EXISTS cryptopay_orders (
  payment_id    TEXT NOT NULL PRIMARY KEY,
  order_ref     TEXT,
  source_amount TEXT NOT NULL,
  integration   TEXT,
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- One row per payment the loop knows (an order, or a payment an event named): the version
-- last handled (never lowered), its outcome, the lease of the instance working on it, and
-- when to try again after a failure or to check again a payment not settled yet.
CREATE TABLE IF NOT EXISTS cryptopay_fulfilment (
  payment_id      TEXT    NOT NULL PRIMARY KEY,
  handled_version TEXT    CHECK (handled_version IS NULL OR (typeof(handled_version) = 'text' AND length(handled_version) > 0
                    AND handled_version NOT GLOB '*[^0-9]*' AND (handled_version = '0' OR handled_version NOT GLOB '0*'))),
  outcome         TEXT    CHECK (outcome IS NULL OR outcome IN ('fulfil', 'review', 'wait', 'closed', 'needs_review')),
  code            TEXT,
  settled         INTEGER NOT NULL DEFAULT 0 CHECK (settled IN (0, 1)),
  seen_at         TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  lease_owner     TEXT,
  lease_until     TEXT,
  updated_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  fulfil_version  TEXT    CHECK (fulfil_version IS NULL OR (typeof(fulfil_version) = 'text' AND length(fulfil_version) > 0
                    AND fulfil_version NOT GLOB '*[^0-9]*' AND (fulfil_version = '0' OR fulfil_version NOT GLOB '0*'))),
  recheck_at      TEXT
);
CREATE INDEX IF NOT EXISTS cryptopay_fulfilment_unsettled ON cryptopay_fulfilment (seen_at) WHERE settled = 0;
-- The payments that ended unpaid (closed), by when each is next checked for money that came
-- late (`complete` sets it): less and less often, for recheckClosedSecs after the order was
-- recorded.
CREATE INDEX IF NOT EXISTS cryptopay_fulfilment_recheck ON cryptopay_fulfilment (recheck_at) WHERE recheck_at IS NOT NULL;
-- Version 4 read the closed payments by their seen_at; nothing does now.
DROP INDEX IF EXISTS cryptopay_fulfilment_closed;
INSERT INTO cryptopay_schema (name, version) VALUES ('receiver', 5)
ON CONFLICT (name) DO UPDATE SET version = excluded.version WHERE version < excluded.version;

-- statement: check
-- With createTables: false, ready() creates nothing: it runs `columns` (below), then this,
-- which reads every column (so a role that may not read the tables fails at start).
SELECT
  (SELECT count(*) FROM (SELECT event_id, payment_id, status_version, decision, received_at, body,
                                integration, secret_kind
                         FROM cryptopay_events LIMIT 0))
  + (SELECT count(*) FROM (SELECT payment_id, status_version, event_id, data, updated_at, integration,
                                  handled_version
                           FROM cryptopay_payments LIMIT 0))
  + (SELECT count(*) FROM (SELECT id, received_at, code, body FROM cryptopay_quarantine LIMIT 0))
  + (SELECT count(*) FROM (SELECT payment_id, order_ref, source_amount, integration, created_at
                           FROM cryptopay_orders LIMIT 0))
  + (SELECT count(*) FROM (SELECT payment_id, handled_version, outcome, code, settled, seen_at, attempts,
                                  next_attempt_at, lease_owner, lease_until, updated_at, fulfil_version, recheck_at
                           FROM cryptopay_fulfilment LIMIT 0))
  + (SELECT count(*) FROM (SELECT name, version FROM cryptopay_schema LIMIT 0))
  AS zero;

-- statement: columns
-- ready() then checks the columns' declared types: CREATE TABLE IF NOT EXISTS keeps a table
-- made earlier, and the ids and versions must have TEXT affinity (an INTEGER one would turn
-- the version "10" and the id "0123" into numbers: a version past 2^63 into an inexact REAL,
-- the ids "0123" and "123" into one). One row, `columns`: a JSON array of { suffix, name,
-- type, defaulted, keyed }, one per column, and one with no name for a table that is missing
-- (`defaulted`: the column has a default, or is the rowid; the statements leave some columns
-- to their defaults, and one without would hold NULL: a seen_at never due. `keyed`: the
-- column alone is the primary key or a unique index's, which the ON CONFLICT of the
-- statements names: without, every delivery fails, on D1 and libsql only once it runs; read
-- for the columns of those names only, as the pragmas cost).
-- (The tables are listed as a JSON array: D1 allows few terms in a compound SELECT. The
-- pragmas are read as table-valued functions, for which SQLite prepares the pragma statement
-- itself: workerd's authorizer, under which the tests run this in Miniflare's D1, allows
-- table_info, index_list and index_info of any table whose name is not reserved, `_cf_...`.)
SELECT json_group_array(json_object('suffix', t.suffix, 'name', c.name, 'type', c.type,
  'defaulted', c.dflt_value IS NOT NULL OR (c.pk = 1 AND upper(c.type) = 'INTEGER'),
  'keyed', CASE WHEN c.name IN ('event_id', 'payment_id', 'name') THEN
    (c.pk = 1 AND (SELECT count(*) FROM pragma_table_info(t.relation) AS k WHERE k.pk > 0) = 1)
    OR EXISTS (SELECT 1 FROM pragma_index_list(t.relation) AS i
               WHERE i."unique" = 1 AND i.partial = 0 AND (SELECT count(*) FROM pragma_index_info(i.name)) = 1
                 AND (SELECT x.name FROM pragma_index_info(i.name) AS x) = c.name) END)) AS columns
FROM (SELECT json_extract(value, '$[0]') AS suffix, json_extract(value, '$[1]') AS relation
      FROM json_each('[["events","cryptopay_events"],["payments","cryptopay_payments"],["quarantine","cryptopay_quarantine"],["orders","cryptopay_orders"],["fulfilment","cryptopay_fulfilment"],["schema","cryptopay_schema"]]')) AS t
LEFT JOIN pragma_table_info(t.relation) AS c;

-- statement: writable
-- ready() of a SQLite file runs this in a transaction it rolls back: a write that changes
-- nothing, which a database this process cannot write (opened read-only, query_only, a file
-- or folder without write permission) refuses at start instead of at every delivery.
DELETE FROM cryptopay_quarantine WHERE 0;

-- statement: foreign
-- Parameters: event_id, payment_id, integration (NULL for a receiver with one). Runs first of
-- `foreign`, `apply`, `record`, in one transaction. One row, 'integration_mismatch', when the
-- event is another integration's: new, and its payment's stored facts came through another
-- integration's secret or its order was recorded under another integration (a holder of one
-- integration's secret cannot move another's payments, nor take one up before its first
-- event); or its event_id is stored through another integration's secret (never a
-- duplicate: that 2xx would lose this one). A stored NULL, from before the receiver named its
-- integrations, is anyone's. `apply` and `record`, which test the same, then write nothing.
WITH incoming (event_id, payment_id, integration) AS (VALUES (?, ?, ?))
SELECT 'integration_mismatch' AS decision FROM incoming
WHERE EXISTS (SELECT 1 FROM cryptopay_events AS seen WHERE seen.event_id = incoming.event_id
              AND seen.integration IS NOT NULL AND seen.integration IS NOT incoming.integration)
   OR (NOT EXISTS (SELECT 1 FROM cryptopay_events AS seen WHERE seen.event_id = incoming.event_id)
       AND (EXISTS (SELECT 1 FROM cryptopay_payments AS p WHERE p.payment_id = incoming.payment_id
                    AND p.integration IS NOT NULL AND p.integration IS NOT incoming.integration)
            OR EXISTS (SELECT 1 FROM cryptopay_orders AS o WHERE o.payment_id = incoming.payment_id
                       AND o.integration IS NOT NULL AND o.integration IS NOT incoming.integration)));

-- statement: apply
-- Parameters: event_id, payment_id, status_version, data (the exact JSON text of the event's
-- `data`, as received), integration (NULL for a receiver with one). Writes the payment row
-- only when the event is not stored yet, its payment's facts and order are not another
-- integration's (`foreign`), and its version is greater than the stored one. Its updated_at
-- is later than its fulfilment row's, by a millisecond where the clock reads the same (a
-- `retry` committed in the same group): `claim` tells facts applied after a failed attempt's
-- retry by `p.updated_at > f.updated_at`, and `retry` stamps its row no earlier than the facts
-- it saw, so the two times order them exactly.
WITH incoming (event_id, payment_id, status_version, data, integration) AS (VALUES (?, ?, ?, ?, ?))
INSERT INTO cryptopay_payments (payment_id, status_version, event_id, data, integration, updated_at)
SELECT payment_id, status_version, event_id, data, integration,
       max(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
           coalesce((SELECT strftime('%Y-%m-%dT%H:%M:%fZ', f.updated_at, '+0.001 seconds') FROM cryptopay_fulfilment AS f
                     WHERE f.payment_id = incoming.payment_id), ''))
FROM incoming
WHERE NOT EXISTS (SELECT 1 FROM cryptopay_events AS seen WHERE seen.event_id = incoming.event_id)
  AND NOT EXISTS (SELECT 1 FROM cryptopay_payments AS p WHERE p.payment_id = incoming.payment_id
                  AND p.integration IS NOT NULL AND p.integration IS NOT incoming.integration)
  AND NOT EXISTS (SELECT 1 FROM cryptopay_orders AS o WHERE o.payment_id = incoming.payment_id
                  AND o.integration IS NOT NULL AND o.integration IS NOT incoming.integration)
ON CONFLICT (payment_id) DO UPDATE
  SET status_version = excluded.status_version, event_id = excluded.event_id, data = excluded.data,
      integration = excluded.integration, updated_at = excluded.updated_at
  WHERE length(excluded.status_version) > length(cryptopay_payments.status_version)
     OR (length(excluded.status_version) = length(cryptopay_payments.status_version)
         AND excluded.status_version > cryptopay_payments.status_version);

-- statement: record
-- Parameters: event_id, payment_id, status_version, body, integration (NULL for a receiver
-- with one), the kind of the secret that verified it (active, pending, retiring). Runs right after `apply` in the same
-- transaction: the event is 'apply' when `apply` wrote the payment row (changes(): the rows the
-- last INSERT, UPDATE or DELETE of this connection changed, here `apply`'s), else 'stale'.
-- Not "the payment row holds this event": after the event's own row was deleted (retention),
-- a retry of the event applied last would read 'apply' again, with nothing applied.
-- Returns that decision, or no row when the event_id is already stored (duplicate) or the
-- payment is another integration's (`foreign` said so: nothing is written).
WITH incoming (event_id, payment_id, status_version, body, integration, secret_kind) AS (VALUES (?, ?, ?, ?, ?, ?))
INSERT INTO cryptopay_events (event_id, payment_id, status_version, decision, body, integration, secret_kind)
SELECT event_id, payment_id, status_version,
       CASE WHEN changes() > 0 THEN 'apply' ELSE 'stale' END,
       body, integration, secret_kind
FROM incoming
WHERE NOT EXISTS (SELECT 1 FROM cryptopay_payments AS p WHERE p.payment_id = incoming.payment_id
                  AND p.integration IS NOT NULL AND p.integration IS NOT incoming.integration)
  AND NOT EXISTS (SELECT 1 FROM cryptopay_orders AS o WHERE o.payment_id = incoming.payment_id
                  AND o.integration IS NOT NULL AND o.integration IS NOT incoming.integration)
ON CONFLICT (event_id) DO NOTHING
RETURNING decision;

-- statement: quarantine_due
-- Parameters: the payment_id read from an authentic delivery quarantined in the same
-- transaction (run before `quarantine`), and the integration whose secret verified it (NULL
-- for a receiver with one): its facts cannot be applied, so the payment's fulfilment row,
-- where there is one, is made due at once, settled or not (the next pass fetches the
-- authoritative view); a pass holding its lease has the lease marked (its `complete` writes
-- the version handled and leaves the row due). Not for another integration's payment (its stored facts or
-- its order under another name), as `foreign` refuses its events: a holder of one integration's
-- secret must not hold back another's fulfilment. See schema/postgres.sql.
WITH incoming (payment_id, integration) AS (VALUES (?, ?))
UPDATE cryptopay_fulfilment
SET settled = 0, seen_at = '1970-01-01T00:00:00.000Z', next_attempt_at = NULL,
    lease_owner = CASE WHEN lease_owner IS NULL OR lease_owner LIKE '% (event quarantined)' THEN lease_owner
                       ELSE lease_owner || ' (event quarantined)' END,
    updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE payment_id = (SELECT payment_id FROM incoming)
  AND NOT EXISTS (SELECT 1 FROM cryptopay_payments AS p, incoming WHERE p.payment_id = incoming.payment_id
                  AND p.integration IS NOT NULL AND p.integration IS NOT incoming.integration)
  AND NOT EXISTS (SELECT 1 FROM cryptopay_orders AS o, incoming WHERE o.payment_id = incoming.payment_id
                  AND o.integration IS NOT NULL AND o.integration IS NOT incoming.integration);

-- statement: quarantine
-- Parameters: the error code, the verified body. A body kept already under the same code
-- among the newest 1000 rows adds none (see schema/postgres.sql).
WITH incoming (code, body) AS (VALUES (?, ?))
INSERT INTO cryptopay_quarantine (code, body)
SELECT code, body FROM incoming
WHERE NOT EXISTS (SELECT 1 FROM (SELECT code, body FROM cryptopay_quarantine ORDER BY id DESC LIMIT 1000) AS recent
                  WHERE recent.code = incoming.code AND recent.body = incoming.body);

-- statement: quarantined
-- receiver.quarantined(): the last id already listed (0 for the first page), how many.
SELECT id, received_at, code, body FROM cryptopay_quarantine WHERE id > ? ORDER BY id LIMIT ?;

-- statement: order_mark
-- recordCreated, five statements in one transaction; this one first. Parameter: payment_id.
-- When this call is about to insert the order (none is stored yet), a pass that holds the
-- payment's lease (it may have loaded the payment before the order existed) has its lease
-- marked, so that its `complete` writes nothing and the payment is handled again, with the
-- order, at the next pass (`release`, at the end of that pass, frees the mark). An order
-- recorded again marks nothing: a pass that loaded the payment saw the order.
WITH params (payment_id) AS (VALUES (?))
UPDATE cryptopay_fulfilment SET lease_owner = lease_owner || ' (order recorded)'
WHERE payment_id = (SELECT payment_id FROM params) AND lease_owner IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM cryptopay_orders AS o WHERE o.payment_id = (SELECT payment_id FROM params));

-- statement: order
-- Parameters: payment_id,
-- order_ref (NULL for none), source_amount (JSON text), integration (NULL for a receiver with
-- one). Stores the order once; the same payment_id recorded again changes nothing (the
-- stored order is read back by `order_read`, for the caller to compare).
INSERT INTO cryptopay_orders (payment_id, order_ref, source_amount, integration) VALUES (?, ?, ?, ?)
ON CONFLICT (payment_id) DO NOTHING;

-- statement: order_unheld
-- Parameter: payment_id. A payment an event named before its order was recorded, held as
-- payment_unknown, is looked at again: its applied facts count as not handled ...
WITH params (payment_id) AS (VALUES (?))
UPDATE cryptopay_payments SET handled_version = NULL
WHERE payment_id = (SELECT payment_id FROM params)
  AND EXISTS (SELECT 1 FROM cryptopay_fulfilment AS held WHERE held.payment_id = (SELECT payment_id FROM params)
              AND held.outcome = 'needs_review' AND held.code = 'payment_unknown');

-- statement: order_state
-- Parameter: payment_id. ... and its fulfilment row starts again; an order's first row is
-- made here (checked again for a lost delivery once recoverAfterSecs have passed). A payment
-- handled before the merchant loop's tables (migrate_1) has no row yet: its order's row starts
-- handled at that version and settled, so that recording the order never handles it again.
WITH params (payment_id) AS (VALUES (?))
INSERT INTO cryptopay_fulfilment (payment_id, handled_version, settled)
SELECT params.payment_id, p.handled_version, p.handled_version IS NOT NULL
FROM params LEFT JOIN cryptopay_payments AS p ON p.payment_id = params.payment_id
WHERE true
ON CONFLICT (payment_id) DO UPDATE SET
  handled_version = CASE WHEN outcome = 'needs_review' AND code = 'payment_unknown' THEN NULL ELSE handled_version END,
  outcome = CASE WHEN outcome = 'needs_review' AND code = 'payment_unknown' THEN NULL ELSE outcome END,
  settled = CASE WHEN outcome = 'needs_review' AND code = 'payment_unknown' THEN 0 ELSE settled END,
  seen_at = CASE WHEN outcome = 'needs_review' AND code = 'payment_unknown' THEN strftime('%Y-%m-%dT%H:%M:%fZ', 'now') ELSE seen_at END,
  attempts = CASE WHEN outcome = 'needs_review' AND code = 'payment_unknown' THEN 0 ELSE attempts END,
  next_attempt_at = CASE WHEN outcome = 'needs_review' AND code = 'payment_unknown' THEN NULL ELSE next_attempt_at END,
  code = CASE WHEN outcome = 'needs_review' AND code = 'payment_unknown' THEN NULL ELSE code END,
  -- Moved only when the row starts again: `claim` compares it with the time of newer facts,
  -- and an order recorded again must not hide facts applied after a failed attempt.
  updated_at = CASE WHEN outcome = 'needs_review' AND code = 'payment_unknown'
                    THEN strftime('%Y-%m-%dT%H:%M:%fZ', 'now') ELSE updated_at END;

-- statement: order_read
-- Parameter: payment_id. The order as stored.
SELECT order_ref, source_amount, integration FROM cryptopay_orders WHERE payment_id = ?;

-- statement: claim_fresh
-- Parameter: how many at most. Runs right before `claim`: a payment with newer facts and no
-- fulfilment row yet (an event for a payment the loop has not seen: one created outside
-- recordCreated, a Payment Link's say) gets one, not leased and looked at now, so that
-- `claim` takes it with the other newer facts, ahead of every recovery check. Rows made here
-- and left by `claim` (a batch full of older newer facts) are taken by a later pass as any
-- row whose lease ran out.
INSERT INTO cryptopay_fulfilment (payment_id)
SELECT p.payment_id FROM cryptopay_payments AS p
WHERE (p.handled_version IS NULL OR length(p.status_version) > length(p.handled_version)
       OR (length(p.status_version) = length(p.handled_version) AND p.status_version > p.handled_version))
  AND NOT EXISTS (SELECT 1 FROM cryptopay_fulfilment AS known WHERE known.payment_id = p.payment_id)
ORDER BY p.payment_id
LIMIT ?
ON CONFLICT (payment_id) DO NOTHING;

-- statement: claim
-- receiver.fulfil, two statements in one transaction (SQLite has one writer at a time: the
-- conditional update is the lease), `claim_fresh` first. Parameters of this one: the owner
-- (this pass's id), the lease in seconds, how many at most, recoverAfterSecs,
-- recheckClosedSecs. Leases the payments due: those whose applied facts are newer than the
-- version last handled (the partial index cryptopay_payments_unhandled), those not settled and not looked at for recoverAfterSecs (a
-- delivery may be lost; `complete` sets the seen_at of one held for review ahead, so it comes
-- less and less often), and those closed whose late-money check is due (`closed_due`, below),
-- when no other instance holds their lease and no retry is waiting (a retry is not waited for
-- by facts applied since it was set: the failure was about what was known then): those with
-- newer facts first, then the longest not looked at, so that recovery checks of many open orders never
-- hold back a paid one. Returns the payment ids, with `seen_at` and `newer` (1: facts newer
-- than the version handled), by which the store works them in that order (RETURNING keeps no
-- order of its own).
--
-- closed_due: a payment that ended unpaid (outcome closed, settled) may still receive money
-- (sent after it expired) whose event was lost. It is looked at again while its order is
-- younger than recheckClosedSecs, each time once it has gone unlooked-at for as long as it
-- had been since the order was recorded at the last look (and at least recoverAfterSecs): so
-- an order closed an hour after it was made is checked at about 2, 4, 8, ... hours.
-- `complete` writes when that is (`recheck_at`), and a claim reads the ones that have come in
-- the last recheckClosedSecs through its index, not every closed payment of the window (a
-- check is never due before its order was recorded, so the range drops none).
WITH params (owner, lease_secs, most, recover_secs, recheck_secs) AS (VALUES (?, ?, ?, ?, ?)),
  newer (payment_id) AS (
    SELECT p.payment_id FROM cryptopay_payments AS p
    WHERE p.handled_version IS NULL OR length(p.status_version) > length(p.handled_version)
       OR (length(p.status_version) = length(p.handled_version) AND p.status_version > p.handled_version))
UPDATE cryptopay_fulfilment
SET lease_owner = (SELECT owner FROM params),
    lease_until = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || (SELECT lease_secs FROM params) || ' seconds'),
    updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE payment_id IN (
  SELECT f.payment_id FROM cryptopay_fulfilment AS f
  WHERE (f.lease_until IS NULL OR f.lease_until < strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    AND (f.next_attempt_at IS NULL OR f.next_attempt_at <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
         -- Newer facts applied after the failure's retry was set (`retry` writes updated_at):
         -- `newer` as its own definition says, the payment's time read by its key.
         OR (f.payment_id IN (SELECT payment_id FROM newer)
             AND EXISTS (SELECT 1 FROM cryptopay_payments AS p WHERE p.payment_id = f.payment_id
                         AND p.updated_at > f.updated_at)))
    AND f.payment_id IN (
      SELECT payment_id FROM newer
      UNION ALL
      SELECT u.payment_id FROM cryptopay_fulfilment AS u
      WHERE u.settled = 0
        AND u.seen_at <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (SELECT recover_secs FROM params) || ' seconds')
      UNION ALL
      SELECT c.payment_id FROM cryptopay_fulfilment AS c JOIN cryptopay_orders AS o ON o.payment_id = c.payment_id
      WHERE c.recheck_at <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
        AND c.recheck_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (SELECT recheck_secs FROM params) || ' seconds')
        AND c.settled = 1 AND c.outcome = 'closed'
        AND c.seen_at <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (SELECT recover_secs FROM params) || ' seconds')
        AND o.created_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (SELECT recheck_secs FROM params) || ' seconds'))
  -- min(): a payment held for review has its seen_at ahead (`complete`); with newer facts it
  -- waits its turn as one looked at now, not behind every payment until then.
  ORDER BY f.payment_id IN (SELECT payment_id FROM newer) DESC, min(f.seen_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), f.payment_id
  LIMIT (SELECT most FROM params))
RETURNING payment_id, min(seen_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) AS seen_at, payment_id IN (SELECT payment_id FROM newer) AS newer;

-- statement: load_renew
-- Parameters: the owner, the lease in seconds, payment_id. Runs right before `load`, in one
-- transaction: the lease renewed for that many seconds from now while it is still this
-- owner's, run out or not (a batch is leased at once and worked one payment after another:
-- each payment gets the whole lease for its own confirm and handle; one whose lease ran out
-- while the payments before it were worked is still this pass's unless another pass claimed
-- it, which made the lease that pass's, or recordCreated marked it).
WITH params (owner, lease_secs, payment_id) AS (VALUES (?, ?, ?))
UPDATE cryptopay_fulfilment
SET lease_until = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || (SELECT lease_secs FROM params) || ' seconds'),
    updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE payment_id = (SELECT payment_id FROM params) AND lease_owner IS (SELECT owner FROM params);

-- statement: load
-- Parameters: the owner, recoverAfterSecs, payment_id, recheckClosedSecs. What a pass needs
-- of one leased payment. `leased`: the lease is still this owner's; `event_due`: the applied
-- facts are newer than the version handled; `recover_due`: not settled, and not looked at for
-- recoverAfterSecs, or closed and its late-money check due (`claim`'s closed_due: recheck_at
-- come, the order younger than recheckClosedSecs).
WITH params (owner, recover_secs, payment_id, recheck_secs) AS (VALUES (?, ?, ?, ?))
SELECT f.handled_version, f.outcome, f.code, f.attempts,
       (f.lease_owner IS (SELECT owner FROM params) AND f.lease_until > strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) AS leased,
       (p.payment_id IS NOT NULL AND (f.handled_version IS NULL OR (length(p.status_version) > length(f.handled_version) OR (length(p.status_version) = length(f.handled_version) AND p.status_version > f.handled_version)))) AS event_due,
       (f.seen_at <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (SELECT recover_secs FROM params) || ' seconds')
        AND (f.settled = 0
             OR (f.outcome = 'closed' AND o.created_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (SELECT recheck_secs FROM params) || ' seconds')
                 AND f.recheck_at <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))) AS recover_due,
       p.status_version AS event_version, p.integration AS event_integration, p.event_id,
       (p.payment_id IS NOT NULL) AS has_payment,
       (o.payment_id IS NOT NULL) AS has_order, o.order_ref, o.source_amount, o.integration AS order_integration,
       o.created_at, f.fulfil_version
FROM cryptopay_fulfilment AS f
LEFT JOIN cryptopay_payments AS p ON p.payment_id = f.payment_id
LEFT JOIN cryptopay_orders AS o ON o.payment_id = f.payment_id
WHERE f.payment_id = (SELECT payment_id FROM params);

-- statement: intend
-- Parameters: payment_id, the owner, the version, the lease in seconds. Right before `handle`
-- is called with fulfil: the version whose key (payment_id:version) every fulfil of this
-- payment carries from then on, kept when one is stored already (a fulfil that may have run,
-- repeated after a crash or a lost lease, once the payment moved on, keeps its first key),
-- while the lease is still this owner's, run out or not (no other pass took it, and neither
-- recordOrder nor a quarantine marked it: a confirm slower than the lease, with no other pass
-- about, still fulfils); the lease renewed for that many seconds from now, for the handler.
-- Returns the version stored; no row when the lease is not this owner's.
WITH params (payment_id, owner, version, lease_secs) AS (VALUES (?, ?, ?, ?))
UPDATE cryptopay_fulfilment SET fulfil_version = coalesce(fulfil_version, (SELECT version FROM params)),
  lease_until = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || (SELECT lease_secs FROM params) || ' seconds'),
  updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE payment_id = (SELECT payment_id FROM params) AND lease_owner IS (SELECT owner FROM params)
RETURNING fulfil_version;

-- statement: renew
-- Parameters: payment_id, the owner, the lease in seconds. Right before `handle` is called
-- with review, wait or closed (fulfil has `intend`): the lease renewed for that many seconds
-- from now while it is still this owner's, run out or not, as `intend`. Returns a row when
-- it is: a pass whose lease another took (its confirm slower than the lease) must not act on
-- its older view after the other pass handled a newer one.
WITH params (payment_id, owner, lease_secs) AS (VALUES (?, ?, ?))
UPDATE cryptopay_fulfilment
SET lease_until = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || (SELECT lease_secs FROM params) || ' seconds'),
    updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE payment_id = (SELECT payment_id FROM params) AND lease_owner IS (SELECT owner FROM params)
RETURNING 1 AS renewed;

-- statement: keep
-- Parameters: payment_id, the owner, the lease in seconds. While `handle` runs, every third of
-- leaseSecs: the lease renewed for that many seconds from now while it is this owner's, or
-- this owner's marked by an order or a quarantine since (the mark kept for `complete`, and
-- `release` frees it at the end of the pass), so that no other pass takes the
-- payment and calls `handle` while this call still runs. Returns a row when renewed.
WITH params (payment_id, owner, lease_secs) AS (VALUES (?, ?, ?))
UPDATE cryptopay_fulfilment
SET lease_until = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || (SELECT lease_secs FROM params) || ' seconds'),
    updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE payment_id = (SELECT payment_id FROM params)
  AND (lease_owner = (SELECT owner FROM params)
       OR substr(lease_owner, 1, length((SELECT owner FROM params)) + 2) = (SELECT owner FROM params) || ' (')
RETURNING 1 AS renewed;

-- statement: complete
-- complete, with complete_mark, complete_read and complete_unmark in one transaction. Parameters of this one: payment_id, the owner,
-- the version handled, the outcome, its code (NULL, or the link mismatch), settled (0 or 1),
-- recheckClosedSecs.
-- Once the handler resolved: the version handled is raised, never lowered (compared as digit
-- text: longer is greater, then the text order), and the outcome is written only for a version
-- at least as new as the one stored; seen_at is now, or for a payment held for review as far
-- past now as its order had lived (so that recovery looks at it less and less often: see
-- schema/postgres.sql); for a payment closed (and settled), recheck_at is when its next check
-- for late money is due, as long after now as its order had lived, or NULL when that is
-- recheckClosedSecs or more after the order was recorded (its checks are over), as it is for
-- any other outcome; the lease is released. All of it only while the lease is
-- still this owner's (not taken by another pass, nor marked by `order_mark`). A lease a
-- quarantine marked meanwhile is written too, but left unsettled and due at once (see
-- schema/postgres.sql). Returns the version now handled (the one stored, when nothing was
-- written).
WITH params (payment_id, owner, version, outcome, code, settled, recheck_secs) AS (VALUES (?, ?, ?, ?, ?, ?, ?))
UPDATE cryptopay_fulfilment AS f SET
  (outcome, code, settled, handled_version, seen_at, recheck_at) = (
    SELECT n.outcome, n.code, n.settled, n.handled_version,
      -- Held for review (not settled): seen_at as far past now as the order had lived. Marked
      -- by a quarantine: due at the next pass, as quarantine_due left it.
      CASE WHEN n.marked THEN '1970-01-01T00:00:00.000Z'
           ELSE strftime('%Y-%m-%dT%H:%M:%fZ', julianday('now') + CASE WHEN n.outcome = 'review' AND n.settled = 0 THEN n.lived ELSE 0 END) END,
      -- Closed (and settled): the next check for late money, while it falls within
      -- recheckClosedSecs of the order's life.
      CASE WHEN n.outcome = 'closed' AND n.settled = 1 AND julianday('now') + n.lived < n.created + n.recheck_secs / 86400.0
           THEN strftime('%Y-%m-%dT%H:%M:%fZ', julianday('now') + n.lived) END
    FROM (
      SELECT CASE WHEN v.takes THEN p.outcome ELSE f.outcome END AS outcome,
             CASE WHEN v.takes THEN p.code ELSE f.code END AS code,
             CASE WHEN v.marked THEN 0 WHEN v.takes THEN p.settled ELSE f.settled END AS settled,
             v.marked,
             CASE WHEN v.raises THEN p.version ELSE f.handled_version END AS handled_version,
             o.created, p.recheck_secs,
             -- How long the order has lived, in days (none: 0).
             max(julianday('now') - coalesce(o.created, julianday('now')), 0) AS lived
      FROM params AS p
      -- takes: no newer version was handled (the outcome is this one's); raises: this version
      -- is newer than the one handled.
      CROSS JOIN (SELECT f.handled_version IS NULL
                           OR NOT (length(f.handled_version) > length(q.version)
                                   OR (length(f.handled_version) = length(q.version) AND f.handled_version > q.version)) AS takes,
                         f.handled_version IS NULL
                           OR length(q.version) > length(f.handled_version)
                           OR (length(q.version) = length(f.handled_version) AND q.version > f.handled_version) AS raises,
                         f.lease_owner IS NOT q.owner AS marked
                  FROM params AS q) AS v
      LEFT JOIN (SELECT julianday(created_at) AS created FROM cryptopay_orders
                 WHERE payment_id = (SELECT payment_id FROM params)) AS o ON 1
    ) AS n),
  attempts = 0, next_attempt_at = NULL,
  lease_owner = NULL, lease_until = NULL, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE f.payment_id = (SELECT payment_id FROM params)
  AND (f.lease_owner IS (SELECT owner FROM params) OR f.lease_owner IS (SELECT owner FROM params) || ' (event quarantined)')
RETURNING handled_version;

-- statement: complete_mark
-- Parameter: payment_id. Runs right after `complete`: the payment's copy of the version
-- handled (the index of what is due) follows, never lowered.
WITH params (payment_id) AS (VALUES (?)),
     state AS (SELECT handled_version FROM cryptopay_fulfilment WHERE payment_id = (SELECT payment_id FROM params))
UPDATE cryptopay_payments SET handled_version = (SELECT handled_version FROM state)
WHERE payment_id = (SELECT payment_id FROM params) AND (SELECT handled_version FROM state) IS NOT NULL
  AND (handled_version IS NULL OR (length((SELECT handled_version FROM state)) > length(handled_version) OR (length((SELECT handled_version FROM state)) = length(handled_version) AND (SELECT handled_version FROM state) > handled_version)));

-- statement: complete_read
-- Parameter: payment_id. Runs right after `complete_mark`: the version handled, written or not.
SELECT handled_version FROM cryptopay_fulfilment WHERE payment_id = ?;

-- statement: complete_unmark
-- Parameters: payment_id, the owner. Runs right after `complete_read`: a lease of this owner
-- that an order marked (so `complete` wrote nothing) is given back, whatever
-- the pass reports, so that the payment is due at the next pass, not once the lease runs out.
WITH params (payment_id, owner) AS (VALUES (?, ?))
UPDATE cryptopay_fulfilment SET lease_owner = NULL, lease_until = NULL, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE payment_id = (SELECT payment_id FROM params)
  AND substr(lease_owner, 1, length((SELECT owner FROM params)) + 2) = (SELECT owner FROM params) || ' (';

-- statement: retry
-- Parameters: payment_id, the owner, seconds to wait, why (a code), the applied status_version
-- the attempt loaded ('' when it loaded no payment; NULL when not known). After a failure
-- (confirm or the handler threw, the view was older than the event): nothing handled, the
-- attempt counted, the lease released, the next try after the delay; at once when newer facts
-- were applied while the attempt ran (the failure was about what it knew; facts applied after
-- this are `claim`'s to take up). The code is the row's only while it holds no outcome: an
-- outcome's own code (payment_unknown, which `order_unheld` and `order_state` look for; a link
-- mismatch) stays with it, since a later pass that finds nothing new writes the row back.
WITH params (payment_id, owner, delay_secs, code, loaded) AS (VALUES (?, ?, ?, ?, ?))
UPDATE cryptopay_fulfilment SET attempts = attempts + 1,
  code = CASE WHEN outcome IS NULL THEN (SELECT code FROM params) ELSE code END,
  next_attempt_at = CASE
    WHEN EXISTS (SELECT 1 FROM cryptopay_payments AS p, params
                 WHERE p.payment_id = params.payment_id AND params.loaded IS NOT NULL
                   AND (params.loaded = '' OR length(p.status_version) > length(params.loaded)
                        OR (length(p.status_version) = length(params.loaded) AND p.status_version > params.loaded)))
      THEN strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    ELSE strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || (SELECT delay_secs FROM params) || ' seconds') END,
  lease_owner = NULL, lease_until = NULL,
  -- No earlier than the facts it saw (`apply` may have stamped them a millisecond ahead).
  updated_at = max(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
                   coalesce((SELECT p.updated_at FROM cryptopay_payments AS p, params WHERE p.payment_id = params.payment_id), ''))
WHERE payment_id = (SELECT payment_id FROM params) AND lease_owner IS (SELECT owner FROM params)
RETURNING attempts;

-- statement: release
-- Parameter: the owner. The leases it still holds are given up (a pass that stops early), and
-- those an order or a quarantine marked while it held them (its outcome was not written: the
-- payment is due again at the next pass, not once the marked lease runs out).
WITH params (owner) AS (VALUES (?))
UPDATE cryptopay_fulfilment SET lease_owner = NULL, lease_until = NULL, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE lease_owner = (SELECT owner FROM params)
  OR substr(lease_owner, 1, length((SELECT owner FROM params)) + 2) = (SELECT owner FROM params) || ' (';

-- statement: retry_now
-- Parameter: a payment_id, or NULL for every payment. The payments waiting out the backoff of a
-- failed attempt (`retry`'s next_attempt_at, still ahead) are due at once: the merchant fixed
-- what failed (a handler, an API key, a service that was down). Their attempts stay counted. A
-- payment a live pass holds is that pass's.
WITH params (payment_id) AS (VALUES (?))
UPDATE cryptopay_fulfilment SET next_attempt_at = NULL, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE next_attempt_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
  AND (lease_until IS NULL OR lease_until < strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  AND ((SELECT payment_id FROM params) IS NULL OR payment_id = (SELECT payment_id FROM params))
RETURNING payment_id;
