"""Edits a test Zotero database the way a hostile or damaged library would look (issue 35).

Usage: python3 edit_library.py <zotero.sqlite> < edits.json (a list of edits, on stdin: they can be large)
  {"attach": {"key": K, "path": P, "parent": KEY or null}}  a PDF attachment item (any key, any path)
  {"title": {"item": KEY, "value": V}}                       the item's title set to V
  {"title_chars": {"item": KEY, "char": C, "count": N}}      the item's title set to C repeated N times
  {"creators": {"item": KEY, "count": N, "chars": M}}        N more authors, each name M characters long
  {"tags": {"item": KEY, "count": N, "chars": M}}            N more tags of M characters
  {"collections": {"item": KEY, "depth": D, "chars": M, "count": N}}
      a chain of D nested collections with names of M characters, and the item in N collections of it
  {"extra": {"item": KEY, "value": V}}                        the item's Extra field set to V
"""
import json
import sqlite3
import sys

db, edits = sys.argv[1], json.load(sys.stdin)
con = sqlite3.connect(db)
q = lambda sql, *a: con.execute(sql, a).fetchone()[0]
item_id = lambda key: q("SELECT itemID FROM items WHERE key = ?", key)


def set_field(key, field, value):
    iid, fid = item_id(key), q("SELECT fieldID FROM fields WHERE fieldName = ?", field)
    vid = con.execute("INSERT INTO itemDataValues (value) VALUES (?)", (value,)).lastrowid
    con.execute("INSERT OR REPLACE INTO itemData VALUES (?, ?, ?)", (iid, fid, vid))


for e in edits:
    if "attach" in e:
        a = e["attach"]
        t = q("SELECT itemTypeID FROM itemTypes WHERE typeName = 'attachment'")
        iid = con.execute("INSERT INTO items (itemTypeID, libraryID, key) VALUES (?, 1, ?)", (t, a["key"])).lastrowid
        parent = item_id(a["parent"]) if a.get("parent") else None
        con.execute("INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) VALUES (?, ?, 0, 'application/pdf', ?)", (iid, parent, a["path"]))
    if "title" in e:
        set_field(e["title"]["item"], "title", e["title"]["value"])
    if "title_chars" in e:
        t = e["title_chars"]
        set_field(t["item"], "title", t["char"] * t["count"])
    if "extra" in e:
        set_field(e["extra"]["item"], "extra", e["extra"]["value"])
    if "creators" in e:
        c = e["creators"]
        iid, ct = item_id(c["item"]), q("SELECT creatorTypeID FROM creatorTypes WHERE creatorType = 'author'")
        for n in range(c["count"]):
            cid = con.execute("INSERT INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, 0)", ("F" * c["chars"], f"L{n}" + "l" * c["chars"])).lastrowid
            con.execute("INSERT INTO itemCreators VALUES (?, ?, ?, ?)", (iid, cid, ct, 1000 + n))
    if "tags" in e:
        t = e["tags"]
        iid = item_id(t["item"])
        for n in range(t["count"]):
            tid = con.execute("INSERT INTO tags (name) VALUES (?)", (f"t{n}" + "x" * t["chars"],)).lastrowid
            con.execute("INSERT INTO itemTags VALUES (?, ?, 0)", (iid, tid))
    if "collections" in e:
        c = e["collections"]
        iid, parent = item_id(c["item"]), None
        alphabet = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"
        for n in range(c["depth"]):
            key = "Q" + "".join(alphabet[(n // 33 ** i) % 33] for i in range(7))
            parent = con.execute("INSERT INTO collections (collectionName, parentCollectionID, libraryID, key) VALUES (?, ?, 1, ?)", (f"c{n}" + "n" * c["chars"], parent, key)).lastrowid
            if n >= c["depth"] - c["count"]:
                con.execute("INSERT INTO collectionItems VALUES (?, ?, 0)", (parent, iid))
con.commit()
con.close()
