"""Holds something on the database until released or for a while, like an app mid-request.

Usage: holder.py MODE DATABASE SECONDS

MODE:
  read-rollback  BEGIN; SELECT from levels (a SHARED lock in rollback-journal mode)
  open-wal       a connection in WAL mode, idle after one read
  write          BEGIN IMMEDIATE; INSERT INTO progress (rollback-journal mode)
  write-wal      BEGIN IMMEDIATE; INSERT INTO progress (WAL mode)

Prints "ready" once it holds, then waits SECONDS or until its standard input closes,
whichever comes first. Then it commits and prints "committed <id>" (write modes) or
"released" (read modes), or "error <code> <name> <message>" when the commit fails.
"""
import select
import sqlite3
import sys

mode, path, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
HELD_ROW = 777001

c = sqlite3.connect(path, timeout=10, isolation_level=None)
if mode in ("open-wal", "write-wal"):
    c.execute("PRAGMA journal_mode=WAL")
if mode == "read-rollback":
    c.execute("BEGIN")
    c.execute("SELECT count(*) FROM levels").fetchone()
elif mode == "open-wal":
    c.execute("SELECT count(*) FROM levels").fetchone()
else:
    c.execute("BEGIN IMMEDIATE")
    c.execute("INSERT INTO progress(id, level, stars, note) VALUES (?, 1, 3, 'held')", (HELD_ROW,))
print("ready", flush=True)

select.select([sys.stdin], [], [], seconds)
try:
    if c.in_transaction:
        c.execute("COMMIT")
    print(f"committed {HELD_ROW}" if mode.startswith("write") else "released", flush=True)
except sqlite3.Error as error:
    code = getattr(error, "sqlite_errorcode", -1)
    print(f"error {code} {getattr(error, 'sqlite_errorname', '?')} {error}", flush=True)
c.close()
