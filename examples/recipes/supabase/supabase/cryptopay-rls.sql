-- Row Level Security on the receiver's tables, for a Supabase project (examples/recipes/README.md,
-- "Supabase Edge Functions"). Supabase's Data API serves the tables of the `public` schema to
-- anyone holding the project's anon key, with whatever the project grants its roles `anon` and
-- `authenticated` on new tables: without this, they could read every event and order, delete
-- events (a delivery sent again is then applied again) or lower a payment's status_version.
-- With RLS on and no policy those roles see and change no row, and their privileges are taken
-- away too; the function's connection (the tables' owner, `postgres`) is not subject to RLS.
-- Run it after the package's schema, in the same migration. Another table prefix: change
-- `cryptopay\_` below.
DO $$
DECLARE
  name text;
BEGIN
  FOR name IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'cryptopay\_%' LOOP
    EXECUTE format('ALTER TABLE public.%I ENABLE ROW LEVEL SECURITY', name);
    EXECUTE format('REVOKE ALL ON TABLE public.%I FROM anon, authenticated', name);
  END LOOP;
  FOR name IN SELECT sequencename FROM pg_sequences WHERE schemaname = 'public' AND sequencename LIKE 'cryptopay\_%' LOOP
    EXECUTE format('REVOKE ALL ON SEQUENCE public.%I FROM anon, authenticated', name);
  END LOOP;
END $$;
