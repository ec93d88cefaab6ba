#!/bin/sh
# Builds fuzz/seed/nsys_small.sqlite, the image the nsys_sql fuzz target
# edits: the real cloverleaf export (fixtures/nsys/nsys2024.5.1_pipit_cloverleaf.sqlite,
# provenance in its .src.txt) cut to the tables rooftrace reads and to its
# first 60 kernels, 20 memcpys and 20 sync rows, the runtime rows of those
# launches plus the first 40, the StringIds they name, and three hand-made
# NVTX ranges (the source export has no NVTX table). Small, so one
# execution copies ~40 KB, not 2 MB. Run from the repository root:
#   sh fuzz/make_seed.sh
set -eu
src=fixtures/nsys/nsys2024.5.1_pipit_cloverleaf.sqlite
out=fuzz/seed/nsys_small.sqlite
rm -f "$out"
cp "$src" "$out"
sqlite3 "$out" <<'SQL'
DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid > 60;
DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE rowid > 20;
DELETE FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE rowid > 20;
DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE rowid > 40 AND correlationId NOT IN
  (SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL
   UNION SELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY);
DELETE FROM StringIds WHERE id NOT IN
  (SELECT shortName FROM CUPTI_ACTIVITY_KIND_KERNEL
   UNION SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL
   UNION SELECT nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, text TEXT, globalTid INTEGER, textId INTEGER);
INSERT INTO NVTX_EVENTS SELECT min(start), max("end"), 59, NULL, 'step', globalTid, NULL
  FROM CUPTI_ACTIVITY_KIND_RUNTIME;
INSERT INTO NVTX_EVENTS SELECT min(start), min(start) + 1000, 59, NULL, NULL, globalTid,
  (SELECT min(id) FROM StringIds) FROM CUPTI_ACTIVITY_KIND_RUNTIME;
INSERT INTO NVTX_EVENTS VALUES (5, NULL, 34, NULL, 'mark', 0, NULL);
SQL
keep="'StringIds','CUPTI_ACTIVITY_KIND_KERNEL','CUPTI_ACTIVITY_KIND_MEMCPY','CUPTI_ACTIVITY_KIND_RUNTIME','CUPTI_ACTIVITY_KIND_SYNCHRONIZATION','META_DATA_EXPORT','META_DATA_CAPTURE','NVTX_EVENTS'"
sqlite3 "$out" "SELECT 'DROP TABLE \"' || name || '\";' FROM sqlite_master WHERE type = 'table' AND name NOT IN ($keep) AND name NOT LIKE 'sqlite_%'" | sqlite3 "$out"
sqlite3 "$out" "VACUUM;"
ls -l "$out"
