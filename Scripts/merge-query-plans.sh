#!/bin/bash
# The merge's statements on the benchmark's merged-deploy case, with their query plans and
# timings: the query that finds the user's changes as it is, and the two forms it replaced
# (typeof on every column; deletions by NOT EXISTS). Run `seeddb-bench --only merge` first:
# it builds the seeds in its scratch folder (default /tmp/seeddb-bench).
#
#   bash Scripts/merge-query-plans.sh [scratch]
set -euo pipefail
scratch=${1:-/tmp/seeddb-bench}
base=$scratch/merge-v1.sqlite user=$scratch/merge-user.sqlite new=$scratch/merge-v2.sqlite
for file in "$base" "$user" "$new"; do
    [ -f "$file" ] || { echo "missing $file: run seeddb-bench --only merge first" >&2; exit 66; }
done
same() { echo "(($1) IS ($2) COLLATE BINARY AND typeof($1) = typeof($2))"; }
changed_typeof="NOT ($(same u.id b.id) AND $(same u.name b.name) AND $(same u.score b.score) AND $(same u.payload b.payload))"
changed_now="NOT (((u.id) IS (b.id) COLLATE BINARY) AND ((u.name) IS (b.name) COLLATE BINARY) AND ((u.score) IS (b.score) COLLATE BINARY) AND $(same u.payload b.payload))"
changes="SELECT u.id FROM user.items AS u LEFT JOIN base.items AS b ON b.id = u.id WHERE u.id IS NOT NULL AND (b.id IS NULL OR"
sqlite3 :memory: <<SQL
ATTACH '$base' AS base; ATTACH '$user' AS user; ATTACH '$new' AS seed;
CREATE TEMP TABLE seeddb_merge_keys (k0);
CREATE TEMP TABLE seeddb_merge_rows (base_present, user_present, seed_present, base_0, user_0, seed_0);
-- Both queries read warm pages.
SELECT count(*) FROM (SELECT sum(length(payload)) FROM base.items UNION ALL SELECT sum(length(payload)) FROM user.items);
.print '-- the user's changes, as the merge runs it (typeof only for the BLOB column; deletions by an anti-join)'
EXPLAIN QUERY PLAN $changes $changed_now) UNION ALL SELECT b.id FROM base.items AS b LEFT JOIN user.items AS u ON b.id = u.id WHERE b.id IS NOT NULL AND u.id IS NULL;
.timer on
INSERT INTO seeddb_merge_keys $changes $changed_now) UNION ALL SELECT b.id FROM base.items AS b LEFT JOIN user.items AS u ON b.id = u.id WHERE b.id IS NOT NULL AND u.id IS NULL;
.timer off
.print '-- before: typeof on every column, deletions by NOT EXISTS'
EXPLAIN QUERY PLAN $changes $changed_typeof) UNION ALL SELECT b.id FROM base.items AS b WHERE b.id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM user.items AS u WHERE b.id = u.id);
.timer on
SELECT count(*) FROM ($changes $changed_typeof) UNION ALL SELECT b.id FROM base.items AS b WHERE b.id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM user.items AS u WHERE b.id = u.id));
.timer off
.print '-- the three sides of each changed key'
EXPLAIN QUERY PLAN INSERT INTO seeddb_merge_rows SELECT b.id IS NOT NULL, u.id IS NOT NULL, s.id IS NOT NULL, b.id, u.id, s.id
    FROM seeddb_merge_keys AS k LEFT JOIN base.items AS b ON b.id = k.k0 LEFT JOIN user.items AS u ON u.id = k.k0
    LEFT JOIN seed.items AS s ON s.id = k.k0 ORDER BY k.k0;
.print '-- one decided row written (UPDATE; INSERT and DELETE search the same way)'
EXPLAIN QUERY PLAN UPDATE seed.items SET score = (SELECT user_0 FROM seeddb_merge_rows WHERE rowid = 1)
    WHERE id = (SELECT seed_0 FROM seeddb_merge_rows WHERE rowid = 1);
.print '-- the reference: two sqldiff --primarykey'
SQL
time (sqldiff --primarykey "$base" "$user" > /dev/null; sqldiff --primarykey "$base" "$new" > /dev/null)
