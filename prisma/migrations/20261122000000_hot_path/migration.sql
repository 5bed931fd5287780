-- Ids made inside a statement, for rows whose number is only known there (a settlement's ledger
-- entries and webhook deliveries). Same shape as the application's ids (packages/core/src/ids.ts):
-- prefix, underscore, 22 base62 characters. The bytes come from gen_random_uuid() (a strong random
-- source). Bytes 6 and 8 of each UUID carry its version and variant and are skipped, so every
-- character comes from 8 random bits (about 130 bits per id).
CREATE FUNCTION svc_random_id(prefix TEXT) RETURNS TEXT
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT prefix || '_' || string_agg(
    substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', get_byte(r.b, i) % 62 + 1, 1),
    '' ORDER BY i)
  FROM (SELECT uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()) AS b) r,
       unnest(ARRAY[0, 1, 2, 3, 4, 5, 7, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 23, 25]) AS i
$$;
