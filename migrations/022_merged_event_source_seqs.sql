-- An event merged away hands its reports to the survivor (events.store.ts, mergeEvent), so it
-- has no source left: its source_seqs is emptied with the merge from now on, and here for the
-- events merged before. A search event read at a cut-off counts its distinct sources from
-- source_seqs (corpus/event-view.ts); a page read just before a merge would otherwise show the
-- merged-away event with sources and no report. Merged events are in no day count and in no
-- search index, so neither changes.
UPDATE events SET source_seqs = '{}' WHERE merged_into_event_id IS NOT NULL AND cardinality(source_seqs) > 0;
