"""An app with one connection for its whole run, writing its user's data.

Usage: long_lived_writer.py delete|wal DATABASE STOP_FILE LOG_FILE RATE

About RATE times a second (until STOP_FILE exists) it commits one row into `progress`
(a table the seed has and the deploy preserves) and, in a separate transaction, one row
into `user_notes` (a table this app creates itself; the seed does not have it). Ids are
chosen by the writer and never reused, so a row lost in one reseed cannot be mistaken for
a later one. Each id is logged only after its COMMIT returned.

When a write fails with SQLITE_READONLY_DBMOVED (the file it had open is no longer the
database at that path) it reopens, as an app following the documentation does, and
retries the same row; on SQLITE_BUSY it retries. Any other error is logged, and the row
is given up (it was not committed, so it is not owed).

Log lines (tab-separated, flushed at once):
  P <id>                        a row committed into progress
  N <id>                        a row committed into user_notes
  E <table> <code> <name> <message>   an error
  REOPEN                        the connection was reopened after SQLITE_READONLY_DBMOVED
  DONE <progress rows> <note rows>
"""
import os
import sqlite3
import sys
import time

mode, path, stop, log_path, rate = sys.argv[1:6]
pause = 1.0 / float(rate)
log = open(log_path, "a", buffering=1)

DBMOVED = 1032
READONLY = 8  # the fence on an old generation (see GenerationFence.swift)
BUSY = 5


def record(*fields):
    log.write("\t".join(str(f) for f in fields) + "\n")


def connect():
    c = sqlite3.connect(path, timeout=10, isolation_level=None)
    if mode == "wal":
        c.execute("PRAGMA journal_mode=WAL")
    c.execute("CREATE TABLE IF NOT EXISTS user_notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL, at REAL)")
    return c


c = connect()
print("ready", flush=True)
started = time.monotonic()
next_id = 1
committed = {"P": 0, "N": 0}
statements = {
    "P": "INSERT INTO progress(id, level, stars, note) VALUES (?, ?, 3, 'w' || ?)",
    "N": "INSERT INTO user_notes(id, body, at) VALUES (?, 'note ' || ?, ?)",
}
while not os.path.exists(stop):
    row = next_id
    next_id += 1
    for tag in ("P", "N"):
        arguments = (row, row % 40 + 1, row) if tag == "P" else (row, row, time.time())
        for attempt in range(50):
            try:
                c.execute("BEGIN IMMEDIATE")
                c.execute(statements[tag], arguments)
                c.execute("COMMIT")
                record(tag, row)
                committed[tag] += 1
                break
            except sqlite3.Error as error:
                code = getattr(error, "sqlite_errorcode", None)
                name = getattr(error, "sqlite_errorname", None) or type(error).__name__
                record("E", "progress" if tag == "P" else "user_notes", -1 if code is None else code, name,
                       str(error).replace("\t", " ").replace("\n", " "))
                try:
                    if c.in_transaction:
                        c.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                if code in (DBMOVED, READONLY):
                    try:
                        c.close()
                    except sqlite3.Error:
                        pass
                    c = connect()
                    record("REOPEN")
                    continue
                if code is not None and code & 0xFF == BUSY:
                    continue
                if "no such table: user_notes" in str(error):
                    # The table this app created is gone; an app would recreate it at its
                    # next start. Recreate it so the run goes on measuring.
                    c.execute("CREATE TABLE IF NOT EXISTS user_notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL, at REAL)")
                break
    # Paced by the clock, not by a fixed sleep, so slow commits do not lower the rate.
    time.sleep(max(0.0, started + next_id * pause - time.monotonic()))
c.close()
record("DONE", committed["P"], committed["N"])
