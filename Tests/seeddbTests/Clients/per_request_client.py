"""A client that opens the database for every transaction, as a web handler or a CLI does.

Usage: per_request_client.py reader|writer delete|wal DATABASE STOP_FILE LOG_FILE NAME

Loops until STOP_FILE exists: connect (timeout 10 s), set the journal mode (WAL only when
asked), run ONE transaction, close, sleep 2 ms.

- reader: BEGIN; reads meta(version, levels) and the markers of every row of `levels`.
  The seed describes itself, so a transaction that sees meta of one version and a level
  of another (or the wrong number of levels) is a mixed-version read.
- writer: BEGIN IMMEDIATE; inserts one row into `events`; COMMIT. Logs the row id only
  after the commit returned.

Log lines (one per event, flushed at once; fields separated by tabs):
  R <version>                  a consistent read of that version (readers)
  C <id> <version>             a committed write (writers), after COMMIT returned
  M <meta> <min> <max> <n> <expected>   a mixed-version read
  E <phase> <code> <name> <message>     an error: extended SQLite code and its name
  DONE <transactions>          the last line, when the stop file was seen
"""
import os
import sqlite3
import sys
import time

role, mode, path, stop, log_path, name = sys.argv[1:7]
log = open(log_path, "a", buffering=1)


def record(*fields):
    log.write("\t".join(str(f) for f in fields) + "\n")


def error_fields(error):
    code = getattr(error, "sqlite_errorcode", None)
    label = getattr(error, "sqlite_errorname", None)
    message = str(error).replace("\t", " ").replace("\n", " ")
    return (-1 if code is None else code, label or type(error).__name__, message)


def reader(c):
    c.execute("BEGIN")
    version, expected = c.execute("SELECT version, levels FROM meta").fetchone()
    low, high, count, size = c.execute(
        "SELECT min(marker), max(marker), count(*), sum(length(data)) FROM levels").fetchone()
    c.execute("COMMIT")
    if low != version or high != version or count != expected:
        record("M", version, low, high, count, expected)
    else:
        record("R", version)


def writer(c):
    c.execute("BEGIN IMMEDIATE")
    cursor = c.execute(
        "INSERT INTO events(client, version, at) SELECT ?, version, ? FROM meta", (name, time.time()))
    row = cursor.lastrowid
    version = c.execute("SELECT version FROM events WHERE id = ?", (row,)).fetchone()[0]
    c.execute("COMMIT")
    record("C", row, version)


transaction = reader if role == "reader" else writer
print("ready", flush=True)
done = 0
while not os.path.exists(stop):
    phase = "open"
    c = None
    try:
        c = sqlite3.connect(path, timeout=10, isolation_level=None)
        if mode == "wal":
            phase = "journal_mode"
            c.execute("PRAGMA journal_mode=WAL")
        phase = role
        transaction(c)
        done += 1
    except (sqlite3.Error, TypeError) as error:
        # TypeError: a SELECT that found no row (an empty or foreign database).
        record("E", phase, *error_fields(error))
        try:
            if c is not None and c.in_transaction:
                c.execute("ROLLBACK")
        except sqlite3.Error:
            pass
    finally:
        if c is not None:
            try:
                c.close()
            except sqlite3.Error as error:
                record("E", "close", *error_fields(error))
    time.sleep(0.002)
record("DONE", done)
