-- cryptopay-verify/receiver: the PostgreSQL tables and statements.
--
-- receiver.ready() runs `schema` (one implicit transaction, idempotent) when a table is
-- missing or the schema version is older than this file's; each delivery runs `record` (one
-- statement, so one transaction) or `quarantine`; the merchant loop runs `order`
-- (recordCreated) and, under a lease, `claim`, `load`, `intend`, `renew`, `complete`, `retry`
-- and `release` (receiver.fulfil). The prefix `cryptopay_` is replaced by the store's `prefix` option. To
-- create the tables in a migration instead, run `schema` as it stands (with your prefix) and
-- pass `createTables: false` to postgresStore.
--
-- Schema versions (the row 'receiver' of cryptopay_schema): 1, the first tables (events,
-- payments, quarantine; no version row); 2, the merchant loop: events record the integration
-- and the secret kind that verified each delivery, payments the integration and the version
-- last handled, and the tables orders and fulfilment; 3, the fulfilment row keeps the version
-- whose key every `fulfil` of the payment carries (`fulfil_version`); 4, the index of the
-- closed payments checked again for late money and the one whose statistics keep `claim`
-- cheap on large tables (`cryptopay_payments_due`); 5, the fulfilment row keeps when a closed
-- payment's next late-money check is due (`recheck_at`, indexed: a claim reads the checks
-- that are due, not every closed payment of the window). `schema`
-- migrates 1 to 4 to 5 in place, rows kept: the payments recorded before version 2 are taken as handled
-- (whatever handled them then), so that upgrading never fulfils an old payment again (nor
-- recording its order later: the `order` statement).
--
-- status_version is `numeric`: integers of any size (up to 131072 digits), compared exactly.
--
-- Durable acknowledgements: `record` and `quarantine` raise synchronous_commit from `off` to
-- `on` for their own transaction (set_config(..., true)), so a server, database or role set to
-- `off` cannot lose a delivery that was answered 200; any other setting (local, on,
-- remote_write, remote_apply) is left as it is. So do `order` (recordCreated resolved: the
-- order is kept) and `complete` (a handled version is not handled again after a crash).

-- statement: schema
-- A lock is waited for 5 s at most: a migration's ALTER TABLE waiting behind a long
-- transaction that reads the tables (a pg_dump, a report) would queue every delivery of the
-- receivers already running behind it; and a receiver starting while another migrates would
-- hold a connection waiting for the advisory lock below for as long. It gives up instead
-- (55P03, lock_not_available); ready() runs it again at a delivery 30 s later, answered 503
-- meanwhile. The work itself has no time limit (a role's or the pool's statement_timeout would
-- cancel a backfill of a large table at every start, for ever): the store gives it 10 minutes.
-- The transaction's own settings are kept aside and put back at the end, for a migration tool
-- that runs more after this statement in the same transaction. (Local to a transaction: run
-- by hand, run it as one, `psql -1`.)
SELECT set_config('cryptopay.lock_timeout', current_setting('lock_timeout'), true),
       set_config('cryptopay.statement_timeout', current_setting('statement_timeout'), true),
       set_config('lock_timeout', '5s', true),
       set_config('statement_timeout', '0', true);
-- (A statement_timeout lifted here holds for the statements after this one from PostgreSQL
-- 13, which times each statement of a query (before, the timer covered the whole of it); PostgreSQL 17's transaction_timeout is lifted too,
-- where it exists.)
SELECT set_config('cryptopay.transaction_timeout', current_setting('transaction_timeout'), true),
       set_config('transaction_timeout', '0', true)
WHERE current_setting('transaction_timeout', true) IS NOT NULL;
-- Several receivers may start at once: CREATE TABLE IF NOT EXISTS is not safe when run
-- concurrently, so creation is serialised by a transaction-level advisory lock.
SELECT pg_advisory_xact_lock(4150767016395183);
CREATE TABLE IF NOT EXISTS cryptopay_schema (
  name    text    PRIMARY KEY,
  version integer NOT NULL
);
-- Tables without a version row are at the version their columns show: 1 for the first
-- schema's (which wrote none), a later one for tables whose row was lost (a partial restore,
-- say: taken as version 1, the migration below would take every payment not yet handled as
-- handled). The same test as `tables`' columns_version.
INSERT INTO cryptopay_schema (name, version)
SELECT 'receiver', CASE
    WHEN NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('cryptopay_payments')
                     AND attname = 'handled_version' AND NOT attisdropped) THEN 1
    WHEN NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('cryptopay_fulfilment')
                     AND attname = 'fulfil_version' AND NOT attisdropped) THEN 2
    WHEN NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('cryptopay_fulfilment')
                     AND attname = 'recheck_at' AND NOT attisdropped) THEN 3
    ELSE 5 END
WHERE to_regclass('cryptopay_events') IS NOT NULL
ON CONFLICT (name) DO NOTHING;
-- The tables of version 1 as they were, then the columns version 2 adds (to new tables and to
-- those of version 1 alike).
CREATE TABLE IF NOT EXISTS cryptopay_events (
  event_id       text        PRIMARY KEY,
  payment_id     text        NOT NULL,
  status_version numeric     NOT NULL CHECK (status_version >= 0 AND scale(status_version) = 0),
  decision       text        NOT NULL CHECK (decision IN ('apply', 'stale')),
  received_at    timestamptz NOT NULL DEFAULT now(),
  body           bytea       NOT NULL
);
-- Each ALTER runs only when a column it adds is missing: ADD COLUMN IF NOT EXISTS takes the
-- table's ACCESS EXCLUSIVE lock even when the column is there, so a migration that needs only
-- new indexes would still wait behind a pg_dump, with every delivery queued behind it. So
-- each index is made only when it is missing: CREATE INDEX IF NOT EXISTS takes the table's
-- SHARE lock (which holds every delivery's write) even when the index stands.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('cryptopay_events')
                 AND attname = 'secret_kind' AND NOT attisdropped) THEN
    ALTER TABLE cryptopay_events ADD COLUMN IF NOT EXISTS integration text,
      ADD COLUMN IF NOT EXISTS secret_kind text CHECK (secret_kind IN ('active', 'pending', 'retiring'));
  END IF;
END $$;
DO $$ BEGIN
  IF to_regclass('cryptopay_events_payment_id') IS NULL THEN
    CREATE INDEX cryptopay_events_payment_id ON cryptopay_events (payment_id);
  END IF;
END $$;
CREATE TABLE IF NOT EXISTS cryptopay_payments (
  payment_id     text        PRIMARY KEY,
  status_version numeric     NOT NULL CHECK (status_version >= 0 AND scale(status_version) = 0),
  event_id       text        NOT NULL,
  data           json        NOT NULL,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('cryptopay_payments')
                 AND attname = 'handled_version' AND NOT attisdropped) THEN
    ALTER TABLE cryptopay_payments ADD COLUMN IF NOT EXISTS integration text,
      ADD COLUMN IF NOT EXISTS handled_version numeric CHECK (handled_version >= 0 AND scale(handled_version) = 0);
  END IF;
END $$;
-- Migrating from version 1: what was recorded before the merchant loop existed is handled.
UPDATE cryptopay_payments SET handled_version = status_version
WHERE handled_version IS NULL AND (SELECT version FROM cryptopay_schema WHERE name = 'receiver') = 1;
-- The payments whose applied facts are newer than those last handled: what a pass claims.
DO $$ BEGIN
  IF to_regclass('cryptopay_payments_unhandled') IS NULL THEN
    CREATE INDEX cryptopay_payments_unhandled ON cryptopay_payments (payment_id)
      WHERE handled_version IS NULL OR status_version > handled_version;
  END IF;
END $$;
-- The same condition as an expression index, for its statistics: `claim` writes the condition
-- `(...) IS TRUE`, which the planner estimates from them (a handful of rows). Estimated as a
-- comparison of two columns it is a third of the table, and with a million payments that
-- estimate made every claim cost enough to be compiled by JIT (measured on PostgreSQL 15 with
-- a million settled payments and five due: 0.75 to 2 s a claim, 2 ms with the statistics).
DO $$ BEGIN
  IF to_regclass('cryptopay_payments_due') IS NULL THEN
    CREATE INDEX cryptopay_payments_due ON cryptopay_payments
      ((handled_version IS NULL OR status_version > handled_version));
  END IF;
END $$;
CREATE TABLE IF NOT EXISTS cryptopay_quarantine (
  id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  received_at timestamptz NOT NULL DEFAULT now(),
  code        text        NOT NULL,
  body        bytea       NOT NULL
);
-- The merchant's side of each payment it created (recordCreated): what rule 7 links to.
CREATE TABLE IF NOT EXISTS cryptopay_orders (
  payment_id    text        PRIMARY KEY,
  order_ref     text,
  source_amount json        NOT NULL,
  integration   text,
  created_at    timestamptz NOT NULL DEFAULT now()
);
-- One row per payment the loop knows (an order, or a payment an event named): the version
-- last handled (never lowered), its outcome, the lease of the instance working on it, and
-- when to try again after a failure or to check again a payment not settled yet.
CREATE TABLE IF NOT EXISTS cryptopay_fulfilment (
  payment_id      text        PRIMARY KEY,
  handled_version numeric     CHECK (handled_version >= 0 AND scale(handled_version) = 0),
  outcome         text        CHECK (outcome IN ('fulfil', 'review', 'wait', 'closed', 'needs_review')),
  code            text,
  settled         boolean     NOT NULL DEFAULT false,
  seen_at         timestamptz NOT NULL DEFAULT now(),
  attempts        integer     NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  lease_owner     text,
  lease_until     timestamptz,
  updated_at      timestamptz NOT NULL DEFAULT now()
);
DO $$ BEGIN
  IF to_regclass('cryptopay_fulfilment_unsettled') IS NULL THEN
    CREATE INDEX cryptopay_fulfilment_unsettled ON cryptopay_fulfilment (seen_at) WHERE NOT settled;
  END IF;
END $$;
-- Version 3: the version whose key every fulfil of the payment carries.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('cryptopay_fulfilment')
                 AND attname = 'fulfil_version' AND NOT attisdropped) THEN
    ALTER TABLE cryptopay_fulfilment ADD COLUMN IF NOT EXISTS fulfil_version numeric
      CHECK (fulfil_version >= 0 AND scale(fulfil_version) = 0);
  END IF;
END $$;
-- Version 5: when a payment that ended unpaid (closed, settled) is next due a check for money
-- that came late (`complete` sets it: as long after the last look as the order had lived by
-- then, or NULL once that falls after recheckClosedSecs of the order's life).
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('cryptopay_fulfilment')
                 AND attname = 'recheck_at' AND NOT attisdropped) THEN
    ALTER TABLE cryptopay_fulfilment ADD COLUMN IF NOT EXISTS recheck_at timestamptz;
  END IF;
END $$;
DO $$ BEGIN
  IF to_regclass('cryptopay_fulfilment_recheck') IS NULL THEN
    CREATE INDEX cryptopay_fulfilment_recheck ON cryptopay_fulfilment (recheck_at) WHERE recheck_at IS NOT NULL;
  END IF;
END $$;
-- Migrating from versions 2 to 4: the closed payments whose orders are younger than 7 days
-- (the default recheckClosedSecs) get their next check as `claim` computed it before; older
-- ones are done. (Tables rolled back to 4 and upgraded again: what version 5 wrote before is
-- cleared first, since the older package's passes moved seen_at on meanwhile.)
UPDATE cryptopay_fulfilment SET recheck_at = NULL
WHERE recheck_at IS NOT NULL AND (SELECT version FROM cryptopay_schema WHERE name = 'receiver') < 5;
UPDATE cryptopay_fulfilment AS f
SET recheck_at = f.seen_at + greatest(extract(epoch FROM f.seen_at - o.created_at), 0) * interval '1 second'
FROM cryptopay_orders AS o
WHERE o.payment_id = f.payment_id AND f.settled AND f.outcome = 'closed'
  AND o.created_at > now() - interval '7 days'
  AND f.seen_at + greatest(extract(epoch FROM f.seen_at - o.created_at), 0) * interval '1 second'
      < o.created_at + interval '7 days'
  AND (SELECT version FROM cryptopay_schema WHERE name = 'receiver') < 5;
-- Version 4 read the closed payments by their seen_at; nothing does now. (Only where it
-- stands: DROP INDEX IF EXISTS would send a notice, which some drivers print, at every start
-- on new tables.)
DO $$ BEGIN
  IF to_regclass('cryptopay_fulfilment_closed') IS NOT NULL THEN
    DROP INDEX cryptopay_fulfilment_closed;
  END IF;
END $$;
-- Version 4's indexes have statistics at once, not after autovacuum's next ANALYZE (from an
-- older version only: run again, or from version 4, there is nothing new to read).
DO $$ BEGIN
  IF (SELECT version FROM cryptopay_schema WHERE name = 'receiver') < 4 THEN
    ANALYZE cryptopay_payments;
  END IF;
END $$;
INSERT INTO cryptopay_schema (name, version) VALUES ('receiver', 5)
ON CONFLICT (name) DO UPDATE SET version = excluded.version WHERE cryptopay_schema.version < excluded.version;
-- (Run statement by statement, outside one transaction, the settings kept aside are gone:
-- the current ones stay.)
SELECT set_config('lock_timeout', coalesce(nullif(current_setting('cryptopay.lock_timeout', true), ''),
                                           current_setting('lock_timeout')), true),
       set_config('statement_timeout', coalesce(nullif(current_setting('cryptopay.statement_timeout', true), ''),
                                                current_setting('statement_timeout')), true);
SELECT set_config('transaction_timeout', coalesce(nullif(current_setting('cryptopay.transaction_timeout', true), ''),
                                                  current_setting('transaction_timeout')), true)
WHERE current_setting('transaction_timeout', true) IS NOT NULL;

-- statement: tables
-- ready() first reads which tables stand, then (when cryptopay_schema does) `version`:
-- `schema` runs only when a table is missing or the version is older than this file's.
-- `columns_version`: the version the columns show, for tables without a version row (as
-- `schema` computes it).
SELECT to_regclass('cryptopay_schema') IS NOT NULL AS has_schema,
       to_regclass('cryptopay_events') IS NOT NULL AS has_events,
       CASE WHEN NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('cryptopay_payments')
                             AND attname = 'handled_version' AND NOT attisdropped) THEN 1
            WHEN NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('cryptopay_fulfilment')
                             AND attname = 'fulfil_version' AND NOT attisdropped) THEN 2
            WHEN NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('cryptopay_fulfilment')
                             AND attname = 'recheck_at' AND NOT attisdropped) THEN 3
            ELSE 5 END AS columns_version;

-- statement: version
-- No row (lost): null, and the version is `tables`' columns_version.
SELECT max(version) AS version FROM cryptopay_schema WHERE name = 'receiver';

-- statement: check
-- With createTables: false, ready() creates nothing: it runs `columns` (below), then this,
-- which reads every column (so a role that may not read the tables fails at start).
SELECT
  (SELECT count(*) FROM (SELECT event_id, payment_id, status_version, decision, received_at, body,
                                integration, secret_kind
                         FROM cryptopay_events LIMIT 0) AS e)
  + (SELECT count(*) FROM (SELECT payment_id, status_version, event_id, data, updated_at, integration,
                                  handled_version
                           FROM cryptopay_payments LIMIT 0) AS p)
  + (SELECT count(*) FROM (SELECT id, received_at, code, body FROM cryptopay_quarantine LIMIT 0) AS q)
  + (SELECT count(*) FROM (SELECT payment_id, order_ref, source_amount, integration, created_at
                           FROM cryptopay_orders LIMIT 0) AS o)
  + (SELECT count(*) FROM (SELECT payment_id, handled_version, outcome, code, settled, seen_at, attempts,
                                  next_attempt_at, lease_owner, lease_until, updated_at, fulfil_version, recheck_at
                           FROM cryptopay_fulfilment LIMIT 0) AS f)
  + (SELECT count(*) FROM (SELECT name, version FROM cryptopay_schema LIMIT 0) AS s)
  AS zero;

-- statement: writable
-- ready() runs this after the tables stand: writes that change nothing (WHERE false), which a
-- read-only database (a standby after a failover, default_transaction_read_only) or a role
-- without INSERT or UPDATE on the tables refuses at start instead of at every delivery.
WITH e AS (INSERT INTO cryptopay_events SELECT * FROM cryptopay_events WHERE false RETURNING 1),
     pi AS (INSERT INTO cryptopay_payments SELECT * FROM cryptopay_payments WHERE false RETURNING 1),
     pu AS (UPDATE cryptopay_payments SET updated_at = updated_at WHERE false RETURNING 1),
     q AS (INSERT INTO cryptopay_quarantine (code, body) SELECT code, body FROM cryptopay_quarantine WHERE false RETURNING 1),
     o AS (INSERT INTO cryptopay_orders SELECT * FROM cryptopay_orders WHERE false RETURNING 1),
     fi AS (INSERT INTO cryptopay_fulfilment SELECT * FROM cryptopay_fulfilment WHERE false RETURNING 1),
     fu AS (UPDATE cryptopay_fulfilment SET updated_at = updated_at WHERE false RETURNING 1)
SELECT (SELECT count(*) FROM e) + (SELECT count(*) FROM pi) + (SELECT count(*) FROM pu)
       + (SELECT count(*) FROM q) + (SELECT count(*) FROM o) + (SELECT count(*) FROM fi)
       + (SELECT count(*) FROM fu) AS zero;

-- statement: columns
-- ready() then checks the database's encoding (UTF8: ids and data are UTF-8 text) and the
-- columns' types: CREATE TABLE IF NOT EXISTS keeps a table made earlier, whose types may
-- differ (a text status_version would compare as text, 9 after 10), and whether each has a
-- default (the statements leave some columns to it: one without would hold NULL, a seen_at
-- never due), and whether it alone is a primary key or unique (the ON CONFLICT of the
-- statements names it: without, every delivery fails). One row per column, and a row with no
-- column for a table that is missing.
SELECT current_setting('server_encoding') AS encoding, t.suffix, a.attname AS name,
       format_type(a.atttypid, a.atttypmod) AS type, (a.atthasdef OR a.attidentity <> '') AS defaulted,
       EXISTS (SELECT 1 FROM pg_index AS i WHERE i.indrelid = a.attrelid AND i.indisunique AND i.indpred IS NULL
               AND i.indnkeyatts = 1 AND i.indkey[0] = a.attnum) AS keyed
FROM (VALUES ('events', 'cryptopay_events'), ('payments', 'cryptopay_payments'),
             ('quarantine', 'cryptopay_quarantine'), ('orders', 'cryptopay_orders'),
             ('fulfilment', 'cryptopay_fulfilment'), ('schema', 'cryptopay_schema')) AS t (suffix, relation)
LEFT JOIN pg_attribute AS a
  ON a.attrelid = to_regclass(t.relation) AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY t.suffix, a.attnum;

-- statement: record
-- $1 event_id, $2 payment_id, $3 status_version (canonical decimal digits), $4 data (the
-- exact JSON text of the event's `data`, as received), $5 the verified body, $6 the
-- integration whose secret verified it (NULL for a receiver with one), $7 the secret's kind
-- (active, pending or retiring). Returns one row (decision 'apply' or 'stale') when the event
-- is new, none when its event_id is already stored (a duplicate: nothing changed), and
-- 'integration_mismatch' with nothing written when the event is another integration's: its
-- payment's stored facts came through another integration's secret, or its order was
-- recorded under another integration (a holder of one integration's secret cannot move
-- another's payments, nor take one up before its first event), or its event_id is stored
-- through another integration's secret (never a duplicate: that 2xx would lose this one). A
-- stored NULL, from before the receiver named its integrations, is anyone's.
--
-- $4 is text, cast to json here: a client that serializes each parameter by the type the
-- server describes (postgres.js: JSON.stringify for json) would otherwise store the data
-- text as a JSON string instead of the object it holds.
--
-- The payment row is written first, and only when the event is not stored yet and its
-- version is greater than the stored one: ON CONFLICT DO UPDATE locks the row and checks
-- the condition against its latest committed version, so concurrent deliveries for one
-- payment end as if run one after the other. The integration is checked there again against
-- that latest version: an event racing the first write of its payment through another
-- integration's secret (which this statement's snapshot cannot see) is recorded stale and
-- never applied over it (one statement cannot tell that case from a stale one; the SQLite
-- family, with one writer at a time, answers integration_mismatch). The event row then
-- records the outcome. If
-- another transaction committed the same event_id meanwhile, the applying branch (which has
-- no ON CONFLICT) fails with a unique violation and the whole statement is rolled back: the
-- store reports that as a duplicate, and nothing changed. The WHERE of `incoming` makes the
-- commit durable (synchronous_commit `off` raised to `on`, see above) before any write.
-- updated_at is the time of the write (clock_timestamp(), taken once the row is locked), not
-- of the statement's start: `claim` compares it with the time a failed attempt's `retry` was
-- set, and a statement that began before that retry may write after it.
WITH incoming AS (
  SELECT $1::text AS event_id, $2::text AS payment_id, $3::numeric AS status_version,
         $4::text::json AS data, $5::bytea AS body, $6::text AS integration, $7::text AS secret_kind
  WHERE set_config('synchronous_commit', CASE current_setting('synchronous_commit') WHEN 'off' THEN 'on'
          ELSE current_setting('synchronous_commit') END, true) IS NOT NULL
), foreign_payment AS (
  SELECT 'integration_mismatch'::text AS decision FROM incoming
  WHERE EXISTS (SELECT 1 FROM cryptopay_events AS seen WHERE seen.event_id = incoming.event_id
                AND seen.integration IS NOT NULL AND seen.integration IS DISTINCT FROM incoming.integration)
     OR (NOT EXISTS (SELECT 1 FROM cryptopay_events AS seen WHERE seen.event_id = incoming.event_id)
         AND (EXISTS (SELECT 1 FROM cryptopay_payments AS p WHERE p.payment_id = incoming.payment_id
                      AND p.integration IS NOT NULL AND p.integration IS DISTINCT FROM incoming.integration)
              OR EXISTS (SELECT 1 FROM cryptopay_orders AS o WHERE o.payment_id = incoming.payment_id
                         AND o.integration IS NOT NULL AND o.integration IS DISTINCT FROM incoming.integration)))
), mine AS (
  SELECT * FROM incoming WHERE NOT EXISTS (SELECT 1 FROM foreign_payment)
), applied AS (
  INSERT INTO cryptopay_payments AS stored (payment_id, status_version, event_id, data, integration, updated_at)
  SELECT payment_id, status_version, event_id, data, integration, clock_timestamp() FROM mine
  WHERE NOT EXISTS (SELECT 1 FROM cryptopay_events AS seen WHERE seen.event_id = mine.event_id)
  ON CONFLICT (payment_id) DO UPDATE
    SET status_version = excluded.status_version, event_id = excluded.event_id,
        data = excluded.data, integration = excluded.integration, updated_at = clock_timestamp()
    WHERE stored.status_version < excluded.status_version
      AND (stored.integration IS NULL OR stored.integration IS NOT DISTINCT FROM excluded.integration)
  RETURNING 1
), recorded_apply AS (
  INSERT INTO cryptopay_events (event_id, payment_id, status_version, decision, body, integration, secret_kind)
  SELECT event_id, payment_id, status_version, 'apply', body, integration, secret_kind FROM mine
  WHERE EXISTS (SELECT 1 FROM applied)
  RETURNING decision
), recorded_stale AS (
  INSERT INTO cryptopay_events (event_id, payment_id, status_version, decision, body, integration, secret_kind)
  SELECT event_id, payment_id, status_version, 'stale', body, integration, secret_kind FROM mine
  WHERE NOT EXISTS (SELECT 1 FROM applied)
  ON CONFLICT (event_id) DO NOTHING
  RETURNING decision
)
SELECT decision FROM recorded_apply UNION ALL SELECT decision FROM recorded_stale
UNION ALL SELECT decision FROM foreign_payment;

-- statement: quarantine_due
-- $1 the payment_id read from an authentic delivery about to be quarantined (run before
-- `quarantine`): its facts cannot be applied (an unreadable status_version, say), so the
-- payment's fulfilment row, where there is one, is made due at once, settled or not, and the
-- next pass fetches the authoritative view (GET /v1/payments/{payment_id}) instead of waiting
-- recoverAfterSecs, or for ever once settled. A pass holding the payment's lease meanwhile has
-- its lease marked: its `complete` writes the version handled but leaves the row due, and the
-- payment is looked at again at the next pass (`release`, at the end of that pass, frees a
-- mark `complete` did not reach). A
-- payment with no row (no order recorded, no event handled) is left to receiver.quarantined(). $2 the integration whose secret verified the
-- delivery (NULL for a receiver with one): another integration's payment (its stored facts or
-- its order under another name, as `record` refuses its events) is left alone, so that a
-- holder of one integration's secret cannot hold back another's fulfilment.
UPDATE cryptopay_fulfilment
SET settled = false, seen_at = to_timestamp(0), next_attempt_at = NULL,
    lease_owner = CASE WHEN lease_owner IS NULL OR lease_owner LIKE '% (event quarantined)' THEN lease_owner
                       ELSE lease_owner || ' (event quarantined)' END,
    updated_at = now()
WHERE payment_id = $1::text
  AND NOT EXISTS (SELECT 1 FROM cryptopay_payments AS p WHERE p.payment_id = $1::text
                  AND p.integration IS NOT NULL AND p.integration IS DISTINCT FROM $2::text)
  AND NOT EXISTS (SELECT 1 FROM cryptopay_orders AS o WHERE o.payment_id = $1::text
                  AND o.integration IS NOT NULL AND o.integration IS DISTINCT FROM $2::text);

-- statement: quarantine
-- $1 the error code, $2 the verified body; durable as `record` is. A body kept already under
-- the same code among the newest 1000 rows (QUARANTINE_RECENT, receiver/limits.mjs) adds none:
-- the service's replay of such an event, or a captured one sent again within maxSkewSecs, is
-- one row, not one per request (read through the primary key, newest first: at most that many
-- rows compared).
INSERT INTO cryptopay_quarantine (code, body)
SELECT $1::text, $2::bytea
WHERE set_config('synchronous_commit', CASE current_setting('synchronous_commit') WHEN 'off' THEN 'on'
        ELSE current_setting('synchronous_commit') END, true) IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM (SELECT code, body FROM cryptopay_quarantine ORDER BY id DESC LIMIT 1000) AS recent
                  WHERE recent.code = $1::text AND recent.body = $2::bytea);

-- statement: quarantined
-- receiver.quarantined(): $1 the last id already listed (0 for the first page), $2 how many.
SELECT id, received_at, code, body FROM cryptopay_quarantine WHERE id > $1 ORDER BY id LIMIT $2;

-- statement: order
-- recordCreated: $1 payment_id, $2 order_ref (NULL for none), $3 source_amount (JSON text),
-- $4 integration (NULL for a receiver with one). Stores the order once, with its fulfilment
-- row (checked again for a lost delivery once recoverAfterSecs have passed). The same
-- payment_id recorded again changes nothing: `inserted` is false and the stored order is
-- returned, for the caller to compare. A payment an event named before its order was
-- recorded, held as payment_unknown, is looked at again; and when this call inserts the
-- order, a pass that holds the payment's lease meanwhile (it may have loaded the payment
-- before the order existed) has its lease marked, so that its `complete` writes nothing and
-- the payment is handled again, with the order, at the next pass (`release`). An order
-- recorded again marks nothing: a pass that loaded the payment saw the order.
WITH inserted AS (
  INSERT INTO cryptopay_orders (payment_id, order_ref, source_amount, integration)
  SELECT $1::text, $2::text, $3::text::json, $4::text
  WHERE set_config('synchronous_commit', CASE current_setting('synchronous_commit') WHEN 'off' THEN 'on'
          ELSE current_setting('synchronous_commit') END, true) IS NOT NULL
  ON CONFLICT (payment_id) DO NOTHING
  RETURNING payment_id
), state AS (
  -- A payment handled before the merchant loop's tables (the migration from version 1) has
  -- no fulfilment row yet: its order's row starts handled at that version and settled, so
  -- that recording the order never handles it again.
  INSERT INTO cryptopay_fulfilment AS f (payment_id, handled_version, settled)
  SELECT $1::text, p.handled_version, p.handled_version IS NOT NULL
  FROM (SELECT 1) AS one LEFT JOIN cryptopay_payments AS p ON p.payment_id = $1::text
  ON CONFLICT (payment_id) DO UPDATE SET
    handled_version = CASE WHEN f.outcome = 'needs_review' AND f.code = 'payment_unknown' THEN NULL ELSE f.handled_version END,
    outcome = CASE WHEN f.outcome = 'needs_review' AND f.code = 'payment_unknown' THEN NULL ELSE f.outcome END,
    settled = CASE WHEN f.outcome = 'needs_review' AND f.code = 'payment_unknown' THEN false ELSE f.settled END,
    seen_at = CASE WHEN f.outcome = 'needs_review' AND f.code = 'payment_unknown' THEN now() ELSE f.seen_at END,
    attempts = CASE WHEN f.outcome = 'needs_review' AND f.code = 'payment_unknown' THEN 0 ELSE f.attempts END,
    next_attempt_at = CASE WHEN f.outcome = 'needs_review' AND f.code = 'payment_unknown' THEN NULL ELSE f.next_attempt_at END,
    code = CASE WHEN f.outcome = 'needs_review' AND f.code = 'payment_unknown' THEN NULL ELSE f.code END,
    lease_owner = CASE WHEN f.lease_owner IS NOT NULL AND EXISTS (SELECT 1 FROM inserted)
                       THEN f.lease_owner || ' (order recorded)' ELSE f.lease_owner END,
    -- Moved only when the row changed: `claim` compares it with the time of newer facts,
    -- and an order recorded again must not hide facts applied after a failed attempt.
    updated_at = CASE WHEN (f.outcome = 'needs_review' AND f.code = 'payment_unknown')
                        OR (f.lease_owner IS NOT NULL AND EXISTS (SELECT 1 FROM inserted))
                      THEN now() ELSE f.updated_at END
  RETURNING handled_version IS NULL AS unhandled
), again AS (
  -- The payment's version handled follows the row as the upsert left it. No test of the
  -- payments row's own columns here: under READ COMMITTED an UPDATE re-reads the newest row
  -- only for rows its snapshot already matched, so `handled_version IS NOT NULL` would skip a
  -- row a pass's complete (payment_unknown) wrote after this statement's snapshot, leaving the
  -- payment marked handled with its fulfilment row reset: not due until recoverAfterSecs.
  UPDATE cryptopay_payments SET handled_version = NULL
  WHERE payment_id = $1::text AND EXISTS (SELECT 1 FROM state WHERE unhandled)
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM inserted) AS inserted, o.order_ref, o.source_amount::text AS source_amount,
       o.integration
FROM (SELECT 1) AS one LEFT JOIN cryptopay_orders AS o ON o.payment_id = $1::text;

-- statement: order_read
-- $1 payment_id. The order as stored, read again when `order` neither inserted nor saw one: a
-- concurrent recordCreated inserted it after that statement's snapshot was taken.
SELECT order_ref, source_amount::text AS source_amount, integration FROM cryptopay_orders WHERE payment_id = $1::text;

-- statement: claim
-- receiver.fulfil: $1 the owner (this pass's id), $2 the lease in seconds, $3 how many at most,
-- $4 recoverAfterSecs, $5 recheckClosedSecs. Leases the payments due: those whose applied
-- facts are newer than the version last handled (the partial index
-- cryptopay_payments_unhandled), those not settled and not looked at for recoverAfterSecs (a
-- delivery may be lost; `complete` sets the seen_at of one held for review ahead, so it comes
-- less and less often), and those closed whose late-money check is due (`recheck_at`, which
-- `complete` sets, has come while the order is younger than $5: read through
-- cryptopay_fulfilment_recheck over the last $5 seconds, so a claim reads the checks that are
-- due, not every closed payment of the window; a check is never due before its order was
-- recorded, so the range drops none), when no other
-- instance holds their lease and no retry is waiting (a retry is not waited for by facts
-- applied since it was set: the failure was about what was known then): those with newer facts first, then the
-- longest not looked at, so that recovery checks of many open orders never hold back a paid
-- one (and returns them in that order). Rows another transaction has locked are
-- skipped (FOR UPDATE SKIP LOCKED); a row whose lease another instance took meanwhile fails
-- the lease condition, checked again on the locked row. A payment with newer facts and no
-- fulfilment row yet (an event for a payment the loop has not seen) gets one, leased, after
-- the newer facts with one and before the recovery checks. Returns the payment ids.
WITH newer AS (
  -- IS TRUE: estimated from cryptopay_payments_due's statistics (see `schema`).
  SELECT p.payment_id FROM cryptopay_payments AS p
  WHERE (p.handled_version IS NULL OR p.status_version > p.handled_version) IS TRUE
), due_newer AS (
  -- least(): a payment held for review has its seen_at ahead (`complete`); with newer facts it
  -- waits its turn as one looked at now, not behind every payment until then.
  SELECT f.payment_id, least(f.seen_at, now()) AS seen_at, true AS newer
  FROM cryptopay_fulfilment AS f
  WHERE (f.lease_until IS NULL OR f.lease_until < now())
    AND f.payment_id IN (SELECT payment_id FROM newer)
    AND (f.next_attempt_at IS NULL OR f.next_attempt_at <= now()
         -- Newer facts applied after the failure's retry was set (`retry` writes updated_at):
         -- the payment's time read by its key.
         OR EXISTS (SELECT 1 FROM cryptopay_payments AS p WHERE p.payment_id = f.payment_id
                    AND p.updated_at > f.updated_at))
  ORDER BY least(f.seen_at, now()), f.payment_id
  LIMIT $3::integer
  FOR UPDATE OF f SKIP LOCKED
), fresh AS (
  -- Newer facts with no row yet, after those with one (looked at now), before every recovery
  -- check (a Payment Link's payment, say, has no order and so no row until here).
  INSERT INTO cryptopay_fulfilment (payment_id, lease_owner, lease_until)
  SELECT n.payment_id, $1::text, now() + make_interval(secs => $2::integer) FROM newer AS n
  WHERE NOT EXISTS (SELECT 1 FROM cryptopay_fulfilment AS known WHERE known.payment_id = n.payment_id)
  ORDER BY n.payment_id
  LIMIT greatest($3::integer - (SELECT count(*) FROM due_newer), 0)
  ON CONFLICT (payment_id) DO NOTHING
  RETURNING payment_id, seen_at
), due_other AS (
  -- What the batch has room for after the newer facts: the longest not looked at.
  SELECT f.payment_id, least(f.seen_at, now()) AS seen_at, false AS newer
  FROM cryptopay_fulfilment AS f
  WHERE (f.lease_until IS NULL OR f.lease_until < now())
    AND (f.next_attempt_at IS NULL OR f.next_attempt_at <= now())
    AND f.payment_id NOT IN (SELECT payment_id FROM newer)
    AND f.payment_id IN (
      SELECT u.payment_id FROM cryptopay_fulfilment AS u
      WHERE NOT u.settled AND u.seen_at <= now() - make_interval(secs => $4::integer)
      UNION ALL
      SELECT c.payment_id FROM cryptopay_fulfilment AS c JOIN cryptopay_orders AS o ON o.payment_id = c.payment_id
      WHERE c.recheck_at <= now() AND c.recheck_at > now() - make_interval(secs => $5::integer)
        AND c.settled AND c.outcome = 'closed'
        AND c.seen_at <= now() - make_interval(secs => $4::integer)
        AND o.created_at > now() - make_interval(secs => $5::integer))
  ORDER BY least(f.seen_at, now()), f.payment_id
  LIMIT greatest($3::integer - (SELECT count(*) FROM due_newer) - (SELECT count(*) FROM fresh), 0)
  FOR UPDATE OF f SKIP LOCKED
), due AS (
  SELECT * FROM due_newer UNION ALL SELECT * FROM due_other
), leased AS (
  UPDATE cryptopay_fulfilment AS f
  SET lease_owner = $1::text, lease_until = now() + make_interval(secs => $2::integer), updated_at = now()
  FROM due WHERE f.payment_id = due.payment_id
  RETURNING f.payment_id
)
-- In the order the pass works them: newer facts first (those with no row yet, looked at now,
-- after the others), then the longest not looked at.
SELECT payment_id FROM (
  SELECT due.payment_id, due.newer, due.seen_at FROM leased JOIN due ON due.payment_id = leased.payment_id
  UNION ALL SELECT payment_id, true, seen_at FROM fresh) AS claimed
ORDER BY newer DESC, seen_at, payment_id;

-- statement: load
-- $1 payment_id, $2 the owner, $3 recoverAfterSecs, $4 the lease in seconds, $5
-- recheckClosedSecs: what a pass needs
-- of one leased payment, its lease renewed for $4 seconds from now while it is still this
-- owner's, run out or not (a batch is leased at once and worked one payment after another:
-- each payment gets the whole lease for its own confirm and handle; one whose lease ran out
-- while the payments before it were worked is still this pass's unless another pass claimed
-- it or recordCreated marked it). `leased`: the lease was this owner's and is renewed; `event_due`: the applied facts are newer than the version handled;
-- `recover_due`: not settled, and not looked at for recoverAfterSecs, or closed and its
-- late-money check due (`recheck_at` come, the order younger than $5: as `claim`).
WITH renewed AS (
  UPDATE cryptopay_fulfilment SET lease_until = now() + make_interval(secs => $4::integer), updated_at = now()
  WHERE payment_id = $1::text AND lease_owner = $2::text
  RETURNING payment_id
)
SELECT f.handled_version::text AS handled_version, f.outcome, f.code, f.attempts,
       EXISTS (SELECT 1 FROM renewed) AS leased,
       (p.payment_id IS NOT NULL AND (f.handled_version IS NULL OR p.status_version > f.handled_version)) AS event_due,
       (f.seen_at <= now() - make_interval(secs => $3::integer)
        AND (NOT f.settled
             OR (f.outcome = 'closed' AND o.created_at > now() - make_interval(secs => $5::integer)
                 AND f.recheck_at <= now()))) AS recover_due,
       p.status_version::text AS event_version, p.integration AS event_integration, p.event_id,
       (p.payment_id IS NOT NULL) AS has_payment,
       (o.payment_id IS NOT NULL) AS has_order, o.order_ref, o.source_amount::text AS source_amount,
       o.integration AS order_integration, o.created_at, f.fulfil_version::text AS fulfil_version
FROM cryptopay_fulfilment AS f
LEFT JOIN cryptopay_payments AS p ON p.payment_id = f.payment_id
LEFT JOIN cryptopay_orders AS o ON o.payment_id = f.payment_id
WHERE f.payment_id = $1::text;

-- statement: intend
-- $1 payment_id, $2 the owner, $3 the version, $4 the lease in seconds. Right before `handle` is
-- called with fulfil: the version whose key (payment_id:version) every fulfil of this payment
-- carries from then on, kept when one is stored already (a fulfil that may have run, repeated
-- after a crash or a lost lease once the payment moved on, keeps its first key), while the
-- lease is still this owner's, run out or not (no other pass took it, and neither recordOrder
-- nor a quarantine marked it: a confirm slower than the lease, with no other pass about,
-- still fulfils); the lease renewed for $4 seconds from now, for the handler; durable (as
-- `record`) before the handler runs. Returns the version stored; no row when the lease is not
-- this owner's.
UPDATE cryptopay_fulfilment SET fulfil_version = coalesce(fulfil_version, $3::numeric),
  lease_until = now() + make_interval(secs => $4::integer), updated_at = now()
WHERE payment_id = $1::text AND lease_owner = $2::text
  AND set_config('synchronous_commit', CASE current_setting('synchronous_commit') WHEN 'off' THEN 'on'
        ELSE current_setting('synchronous_commit') END, true) IS NOT NULL
RETURNING fulfil_version::text AS fulfil_version;

-- statement: renew
-- $1 payment_id, $2 the owner, $3 the lease in seconds. Right before `handle` is called with
-- review, wait or closed (fulfil has `intend`): the lease renewed for $3 seconds from now while
-- it is still this owner's, run out or not, as `intend`. Returns a row when it is: a pass
-- whose lease another took (its confirm slower than the lease) must not act on its older view
-- after the other pass handled a newer one.
UPDATE cryptopay_fulfilment SET lease_until = now() + make_interval(secs => $3::integer), updated_at = now()
WHERE payment_id = $1::text AND lease_owner = $2::text
RETURNING 1 AS renewed;

-- statement: keep
-- $1 payment_id, $2 the owner, $3 the lease in seconds. While `handle` runs, every third of
-- leaseSecs: the lease renewed for $3 seconds from now while it is this owner's, or this
-- owner's marked by an order or a quarantine since (the mark kept for `complete`, and
-- `release` frees it at the end of the pass), so that no other pass takes the payment and
-- calls `handle` while this call still runs. Returns a row when renewed.
UPDATE cryptopay_fulfilment SET lease_until = now() + make_interval(secs => $3::integer), updated_at = now()
WHERE payment_id = $1::text AND (lease_owner = $2::text OR left(lease_owner, length($2::text) + 2) = $2::text || ' (')
RETURNING 1 AS renewed;

-- statement: complete
-- $1 payment_id, $2 the owner, $3 the version handled, $4 the outcome, $5 its code (NULL, or
-- the link mismatch), $6 settled (no more checks for a lost delivery), $7 recheckClosedSecs.
-- Once the handler
-- resolved: the version handled is raised, never lowered (compared exactly), and the outcome
-- is written only for a version at least as new as the one stored; seen_at is now, or for a
-- payment held for review as far past now as its order had lived; for a payment closed (and
-- settled), recheck_at is when its next check for late money is due, as long after now as its
-- order had lived, or NULL when that is $7 or more after the order was recorded (its checks
-- are over), as it is for any other outcome; the payment's copy of the
-- version (the index of what is due) follows; the lease is released. All of it only while the
-- lease is still this owner's (not taken by another pass, nor marked by `order`: that pass may
-- have decided without the order). A lease a quarantine marked meanwhile is written too (the
-- handler ran, and its version must not be handled twice), but left unsettled and due at once,
-- as quarantine_due left it, so that the next pass fetches the view again. Returns the
-- version now handled, and `wrote`: false when nothing was written, for `unmark` to give back
-- a lease of this owner that was marked.
WITH state AS (
  UPDATE cryptopay_fulfilment AS f SET
    (outcome, code, settled, handled_version, seen_at, recheck_at) = (
      SELECT n.outcome, n.code, n.settled, n.handled_version,
        -- Held for review (not settled): looked at again less and less often, so seen_at is
        -- set as far past now as the order had lived (recovery takes it recoverAfterSecs after
        -- that).
        -- Marked by a quarantine: due at the next pass, as quarantine_due left it.
        CASE WHEN n.marked THEN to_timestamp(0)
             ELSE now() + CASE WHEN n.outcome = 'review' AND NOT n.settled THEN n.lived ELSE interval '0' END END,
        -- Closed (and settled): the next check for late money, while it falls within $7 of the
        -- order's life.
        CASE WHEN n.outcome = 'closed' AND n.settled AND now() + n.lived < n.created_at + make_interval(secs => $7::integer)
             THEN now() + n.lived END
      FROM (
        SELECT CASE WHEN v.takes THEN $4::text ELSE f.outcome END AS outcome,
               CASE WHEN v.takes THEN $5::text ELSE f.code END AS code,
               CASE WHEN v.marked THEN false WHEN v.takes THEN $6::boolean ELSE f.settled END AS settled,
               v.marked,
               greatest(f.handled_version, $3::numeric) AS handled_version,
               o.created_at,
               -- How long the order has lived (none: 0), in seconds, as an interval of days
               -- would follow the session's TimeZone across a DST change.
               greatest(extract(epoch FROM now() - o.created_at), 0) * interval '1 second' AS lived
        -- The outcome is this version's unless a newer one was handled.
        FROM (SELECT f.handled_version IS NULL OR f.handled_version <= $3::numeric AS takes,
                     f.lease_owner <> $2::text AS marked) AS v
        LEFT JOIN cryptopay_orders AS o ON o.payment_id = $1::text
      ) AS n),
    attempts = 0, next_attempt_at = NULL,
    lease_owner = NULL, lease_until = NULL, updated_at = now()
  WHERE f.payment_id = $1::text AND f.lease_owner IN ($2::text, $2::text || ' (event quarantined)')
    AND set_config('synchronous_commit', CASE current_setting('synchronous_commit') WHEN 'off' THEN 'on'
          ELSE current_setting('synchronous_commit') END, true) IS NOT NULL
  RETURNING f.handled_version
), marked AS (
  UPDATE cryptopay_payments AS p SET handled_version = state.handled_version
  FROM state
  WHERE p.payment_id = $1::text AND (p.handled_version IS NULL OR p.handled_version < state.handled_version)
  RETURNING 1
)
SELECT coalesce((SELECT handled_version FROM state),
                (SELECT handled_version FROM cryptopay_fulfilment WHERE payment_id = $1::text))::text AS handled_version,
  EXISTS (SELECT 1 FROM state) AS wrote;

-- statement: unmark
-- $1 payment_id, $2 the owner. Runs after a `complete` that wrote nothing, in a snapshot of its
-- own (so that it sees a mark committed after complete's was taken): a lease of this owner that
-- an order or a quarantine marked is given back, whatever the pass reports, so that the payment
-- is due at the next pass, not once the lease runs out.
UPDATE cryptopay_fulfilment SET lease_owner = NULL, lease_until = NULL, updated_at = now()
WHERE payment_id = $1::text AND left(lease_owner, length($2::text) + 2) = $2::text || ' (';

-- statement: retry
-- $1 payment_id, $2 the owner, $3 seconds to wait, $4 why (a code), $5 the applied
-- status_version the attempt loaded ('' when it loaded no payment; NULL when not known). After
-- a failure (confirm or the handler threw, the view was older than the event): nothing
-- handled, the attempt counted, the lease released, the next try after the delay; at once when
-- newer facts were applied while the attempt ran (the failure was about what it knew; facts
-- applied after this are `claim`'s to take up). The code is the row's only while it holds no
-- outcome: an outcome's own code (payment_unknown, which `order` looks for; a link mismatch)
-- stays with it, since a later pass that finds nothing new writes the row back.
UPDATE cryptopay_fulfilment SET attempts = attempts + 1, code = CASE WHEN outcome IS NULL THEN $4::text ELSE code END,
  next_attempt_at = CASE
    -- FOR SHARE: a `record` that wrote the payment and has not committed yet is waited for,
    -- and its version read (the comparison in the select list: as a WHERE it would be
    -- pushed below the lock and test the version before that write); one that writes after
    -- this waits for the retry, and its updated_at is then later than the retry's, which
    -- `claim` takes up. -1: none loaded, any stored version is newer.
    WHEN $5::text IS NOT NULL AND coalesce((SELECT status_version > coalesce(NULLIF($5::text, '')::numeric, -1)
                                            FROM cryptopay_payments WHERE payment_id = $1::text FOR SHARE), false)
      THEN now()
    ELSE now() + make_interval(secs => $3::integer) END,
  lease_owner = NULL, lease_until = NULL, updated_at = now()
WHERE payment_id = $1::text AND lease_owner = $2::text
RETURNING attempts;

-- statement: release
-- $1 the owner: the leases it still holds are given up (a pass that stops early), and those an
-- order or a quarantine marked while it held them (its outcome was not written: the payment is
-- due again at the next pass, not once the marked lease runs out).
UPDATE cryptopay_fulfilment SET lease_owner = NULL, lease_until = NULL, updated_at = now()
WHERE lease_owner = $1::text OR left(lease_owner, length($1::text) + 2) = $1::text || ' (';

-- statement: retry_now
-- $1 a payment_id, or NULL for every payment. The payments waiting out the backoff of a failed
-- attempt (`retry`'s next_attempt_at, still ahead) are due at once: the merchant fixed what
-- failed (a handler, an API key, a service that was down). Their attempts stay counted. A
-- payment a live pass holds is that pass's.
UPDATE cryptopay_fulfilment SET next_attempt_at = NULL, updated_at = now()
WHERE next_attempt_at > now() AND (lease_until IS NULL OR lease_until < now())
  AND ($1::text IS NULL OR payment_id = $1::text)
RETURNING payment_id;
