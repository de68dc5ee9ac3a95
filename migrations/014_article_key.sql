-- An article is identified by its outlet and url (operations.md, 2026-11-25): an article
-- whose outlet and url match a stored report is that report. This index finds it; ingest
-- takes an advisory lock on the pair, so two processes cannot both add it. (Not a unique
-- index: databases made before this rule may hold the same pair twice, and those reports stay.)
-- By the url's hash: a url may be longer than an index entry can hold (2,000 characters of
-- UTF-8), and the lookup compares the url itself too.
CREATE INDEX reports_outlet_url ON reports (outlet_id, md5(url)) WHERE url IS NOT NULL;
