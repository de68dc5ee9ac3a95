-- An article is identified by its outlet and url (operations.md, 2026-11-25): an article
-- whose outlet and url match a stored report is that report. This index finds it; ingest
-- takes an advisory lock on the pair, so two processes cannot both add it. (Not a unique
-- index: databases made before this rule may hold the same pair twice, and those reports stay.)
CREATE INDEX reports_outlet_url ON reports (outlet_id, url) WHERE url IS NOT NULL;
