"""Holds a Zotero database open in WAL mode, as Zotero does, after adding items that stay only in
the WAL (no checkpoint): prints "ready" and waits until stdin closes.

Usage: python3 hold_wal.py <zotero.sqlite> '<json: [{"key": ..., "title": ...}]>'
"""
import json
import sqlite3
import sys

db, items = sys.argv[1], json.loads(sys.argv[2])
con = sqlite3.connect(db, isolation_level=None)
con.execute("PRAGMA journal_mode=WAL")
con.execute("PRAGMA wal_autocheckpoint=0")
type_id = con.execute("SELECT itemTypeID FROM itemTypes WHERE typeName = 'book'").fetchone()[0]
title_id = con.execute("SELECT fieldID FROM fields WHERE fieldName = 'title'").fetchone()[0]
for it in items:
    # One transaction per item: several commit frames in the WAL.
    con.execute("BEGIN")
    cur = con.execute("INSERT INTO items (itemTypeID, libraryID, key) VALUES (?, 1, ?)", (type_id, it["key"]))
    iid = cur.lastrowid
    vid = con.execute("INSERT INTO itemDataValues (value) VALUES (?)", (it["title"],)).lastrowid
    con.execute("INSERT INTO itemData VALUES (?, ?, ?)", (iid, title_id, vid))
    con.execute("COMMIT")
# An uncommitted transaction's pages may reach the WAL too (a large one spills): never read.
con.execute("BEGIN")
con.execute("INSERT INTO items (itemTypeID, libraryID, key) VALUES (?, 1, 'UNCMMTED')", (type_id,))
print("ready", flush=True)
sys.stdin.read()
con.execute("ROLLBACK")
