-- cryptopay-verify/receiver: the PostgreSQL tables and statements.
--
-- receiver.ready() runs `schema` (one implicit transaction, idempotent); each delivery runs
-- `record` (one statement, so one transaction) or `quarantine`. The prefix `cryptopay_` is
-- replaced by the store's `prefix` option. To create the tables in a migration instead, run
-- `schema` as it stands (with your prefix) and pass `createTables: false` to postgresStore.
--
-- status_version is `numeric`: integers of any size (up to 131072 digits), compared exactly.
--
-- Durable acknowledgements: `record` and `quarantine` raise synchronous_commit from `off` to
-- `on` for their own transaction (set_config(..., true)), so a server, database or role set to
-- `off` cannot lose a delivery that was answered 200; any other setting (local, on,
-- remote_write, remote_apply) is left as it is.

-- statement: schema
-- Several receivers may start at once: CREATE TABLE IF NOT EXISTS is not safe when run
-- concurrently, so creation is serialised by a transaction-level advisory lock.
SELECT pg_advisory_xact_lock(4150767016395183);
CREATE TABLE IF NOT EXISTS cryptopay_events (
  event_id       text        PRIMARY KEY,
  payment_id     text        NOT NULL,
  status_version numeric     NOT NULL CHECK (status_version >= 0 AND scale(status_version) = 0),
  decision       text        NOT NULL CHECK (decision IN ('apply', 'stale')),
  received_at    timestamptz NOT NULL DEFAULT now(),
  body           bytea       NOT NULL
);
CREATE INDEX IF NOT EXISTS cryptopay_events_payment_id ON cryptopay_events (payment_id);
CREATE TABLE IF NOT EXISTS cryptopay_payments (
  payment_id     text        PRIMARY KEY,
  status_version numeric     NOT NULL CHECK (status_version >= 0 AND scale(status_version) = 0),
  event_id       text        NOT NULL,
  data           json        NOT NULL,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS cryptopay_quarantine (
  id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  received_at timestamptz NOT NULL DEFAULT now(),
  code        text        NOT NULL,
  body        bytea       NOT NULL
);

-- statement: check
-- With createTables: false, ready() creates nothing: it runs `columns` (below), then this,
-- which reads every column (so a role that may not read the tables fails at start).
SELECT
  (SELECT count(*) FROM (SELECT event_id, payment_id, status_version, decision, received_at, body
                         FROM cryptopay_events LIMIT 0) AS e)
  + (SELECT count(*) FROM (SELECT payment_id, status_version, event_id, data, updated_at
                           FROM cryptopay_payments LIMIT 0) AS p)
  + (SELECT count(*) FROM (SELECT id, received_at, code, body FROM cryptopay_quarantine LIMIT 0) AS q)
  AS zero;

-- statement: writable
-- ready() runs this after the tables stand: writes that change nothing (WHERE false), which a
-- read-only database (a standby after a failover, default_transaction_read_only) or a role
-- without INSERT or UPDATE on the tables refuses at start instead of at every delivery.
WITH e AS (INSERT INTO cryptopay_events SELECT * FROM cryptopay_events WHERE false RETURNING 1),
     pi AS (INSERT INTO cryptopay_payments SELECT * FROM cryptopay_payments WHERE false RETURNING 1),
     pu AS (UPDATE cryptopay_payments SET updated_at = updated_at WHERE false RETURNING 1),
     q AS (INSERT INTO cryptopay_quarantine (code, body) SELECT code, body FROM cryptopay_quarantine WHERE false RETURNING 1)
SELECT (SELECT count(*) FROM e) + (SELECT count(*) FROM pi) + (SELECT count(*) FROM pu)
       + (SELECT count(*) FROM q) AS zero;

-- statement: columns
-- ready() then checks the database's encoding (UTF8: ids and data are UTF-8 text) and the
-- columns' types: CREATE TABLE IF NOT EXISTS keeps a table made earlier, whose types may
-- differ (a text status_version would compare as text, 9 after 10). One row per column, and a
-- row with no column for a table that is missing.
SELECT current_setting('server_encoding') AS encoding, t.suffix, a.attname AS name,
       format_type(a.atttypid, a.atttypmod) AS type
FROM (VALUES ('events', 'cryptopay_events'), ('payments', 'cryptopay_payments'),
             ('quarantine', 'cryptopay_quarantine')) AS t (suffix, relation)
LEFT JOIN pg_attribute AS a
  ON a.attrelid = to_regclass(t.relation) AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY t.suffix, a.attnum;

-- statement: record
-- $1 event_id, $2 payment_id, $3 status_version (canonical decimal digits), $4 data (JSON
-- text), $5 the verified body. Returns one row (decision 'apply' or 'stale') when the event
-- is new, none when its event_id is already stored (a duplicate: nothing changed).
--
-- $4 is text, cast to json here: a client that serializes each parameter by the type the
-- server describes (postgres.js: JSON.stringify for json) would otherwise store the data
-- text as a JSON string instead of the object it holds.
--
-- The payment row is written first, and only when the event is not stored yet and its
-- version is greater than the stored one: ON CONFLICT DO UPDATE locks the row and checks
-- the condition against its latest committed version, so concurrent deliveries for one
-- payment end as if run one after the other. The event row then records the outcome. If
-- another transaction committed the same event_id meanwhile, the applying branch (which has
-- no ON CONFLICT) fails with a unique violation and the whole statement is rolled back: the
-- store reports that as a duplicate, and nothing changed. The WHERE of `incoming` makes the
-- commit durable (synchronous_commit `off` raised to `on`, see above) before any write.
WITH incoming AS (
  SELECT $1::text AS event_id, $2::text AS payment_id, $3::numeric AS status_version,
         $4::text::json AS data, $5::bytea AS body
  WHERE set_config('synchronous_commit', CASE current_setting('synchronous_commit') WHEN 'off' THEN 'on'
          ELSE current_setting('synchronous_commit') END, true) IS NOT NULL
), applied AS (
  INSERT INTO cryptopay_payments AS stored (payment_id, status_version, event_id, data)
  SELECT payment_id, status_version, event_id, data FROM incoming
  WHERE NOT EXISTS (SELECT 1 FROM cryptopay_events AS seen WHERE seen.event_id = incoming.event_id)
  ON CONFLICT (payment_id) DO UPDATE
    SET status_version = excluded.status_version, event_id = excluded.event_id,
        data = excluded.data, updated_at = now()
    WHERE stored.status_version < excluded.status_version
  RETURNING 1
), recorded_apply AS (
  INSERT INTO cryptopay_events (event_id, payment_id, status_version, decision, body)
  SELECT event_id, payment_id, status_version, 'apply', body FROM incoming
  WHERE EXISTS (SELECT 1 FROM applied)
  RETURNING decision
), recorded_stale AS (
  INSERT INTO cryptopay_events (event_id, payment_id, status_version, decision, body)
  SELECT event_id, payment_id, status_version, 'stale', body FROM incoming
  WHERE NOT EXISTS (SELECT 1 FROM applied)
  ON CONFLICT (event_id) DO NOTHING
  RETURNING decision
)
SELECT decision FROM recorded_apply UNION ALL SELECT decision FROM recorded_stale;

-- statement: quarantine
-- $1 the error code, $2 the verified body; durable as `record` is.
INSERT INTO cryptopay_quarantine (code, body)
SELECT $1::text, $2::bytea
WHERE set_config('synchronous_commit', CASE current_setting('synchronous_commit') WHEN 'off' THEN 'on'
        ELSE current_setting('synchronous_commit') END, true) IS NOT NULL;
