-- Webhook signing secrets at rest (operations.md, EVMON_ENCRYPTION_KEY): sensors.signing_secret
-- and previous_signing_secret hold sealed values, `v1.<key id>.<nonce>.<ciphertext>.<tag>`
-- (AES-256-GCM under the operator's key, bound to the sensor's id; src/platform/secret-box.ts),
-- in the same columns, since a sealed value names its key itself.
--
-- SQL has no key, so this file cannot seal the secrets that rows from before it hold in clear
-- (`whsec_…`): every process seals them at start-up before it reads any, in one transaction
-- (src/modules/sensors/sensor-secrets.ts). From here on no row may be written with a secret in
-- clear: the check holds for every new or changed row (NOT VALID spares only the rows that
-- start-up has yet to seal, which it writes sealed).
ALTER TABLE sensors ADD CONSTRAINT sensors_secrets_sealed
  CHECK (signing_secret LIKE 'v1.%' AND (previous_signing_secret IS NULL OR previous_signing_secret LIKE 'v1.%')) NOT VALID;

COMMENT ON COLUMN sensors.signing_secret IS 'sealed: v1.<key id>.<nonce>.<ciphertext>.<tag> (src/platform/secret-box.ts), never the secret in clear';
COMMENT ON COLUMN sensors.previous_signing_secret IS 'sealed like signing_secret; signs until previous_secret_expires_at';
