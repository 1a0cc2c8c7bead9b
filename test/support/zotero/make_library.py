"""Builds a Zotero data directory for the tests from Zotero's own schema SQL and schema.json.

Usage: python3 make_library.py '<json options>'
  out: the data directory to create (zotero.sqlite, storage/)
  ref: the folder holding userdata.sql, system.sql, triggers.sql, schema.json
  items: how many filler items (no PDF) besides the named ones
  pdfs: {name: path} of small PDFs to attach
  linkedDir: folder where linked files are put (absolute links)
  baseDir: the linked-attachment base directory (for attachments: paths)
  schemaVersion: the userdata version written (default: the SQL's own)
Prints a JSON summary (keys of the named items) on stdout.
"""
import json
import os
import random
import shutil
import sqlite3
import string
import sys

opts = json.loads(sys.argv[1])
out, ref = opts["out"], opts["ref"]
os.makedirs(os.path.join(out, "storage"), exist_ok=True)
db_path = os.path.join(out, "zotero.sqlite")
if os.path.exists(db_path):
    os.remove(db_path)
rng = random.Random(24)


def read(name):
    with open(os.path.join(ref, name), encoding="utf-8") as f:
        return f.read()


userdata = read("userdata.sql")
version = int(userdata.splitlines()[0].lstrip("- ").strip())
con = sqlite3.connect(db_path)
con.execute("PRAGMA journal_mode=WAL")  # as Zotero keeps it: the file header says WAL
con.executescript(read("system.sql"))
con.executescript(userdata)
con.executescript(read("triggers.sql"))
cur = con.cursor()
cur.executemany("INSERT INTO version VALUES (?, ?)", [("userdata", opts.get("schemaVersion", version)), ("system", 1), ("triggers", 1), ("compatibility", 7)])

# The global schema, as Zotero loads it at start-up.
schema = json.loads(read("schema.json"))
type_ids, field_ids, creator_ids = {}, {}, {}
for t in schema["itemTypes"]:
    type_ids[t["itemType"]] = len(type_ids) + 1
    for f in t["fields"]:
        for name in (f["field"], f.get("baseField")):
            if name and name not in field_ids:
                field_ids[name] = len(field_ids) + 1
    for c in t["creatorTypes"]:
        if c["creatorType"] not in creator_ids:
            creator_ids[c["creatorType"]] = len(creator_ids) + 1
for name, i in type_ids.items():
    cur.execute("INSERT INTO itemTypes VALUES (?, ?, NULL, 1)", (i, name))
    cur.execute("INSERT INTO itemTypesCombined VALUES (?, ?, 1, 0)", (i, name))
for name, i in field_ids.items():
    cur.execute("INSERT INTO fields VALUES (?, ?, NULL)", (i, name))
    cur.execute("INSERT INTO fieldsCombined VALUES (?, ?, NULL, NULL, 0)", (i, name))
for name, i in creator_ids.items():
    cur.execute("INSERT INTO creatorTypes VALUES (?, ?)", (i, name))
for t in schema["itemTypes"]:
    for n, f in enumerate(t["fields"]):
        cur.execute("INSERT INTO itemTypeFields VALUES (?, ?, NULL, ?)", (type_ids[t["itemType"]], field_ids[f["field"]], n))
        cur.execute("INSERT INTO itemTypeFieldsCombined VALUES (?, ?, NULL, ?)", (type_ids[t["itemType"]], field_ids[f["field"]], n))
        if f.get("baseField"):
            row = (type_ids[t["itemType"]], field_ids[f["baseField"]], field_ids[f["field"]])
            cur.execute("INSERT INTO baseFieldMappings VALUES (?, ?, ?)", row)
            cur.execute("INSERT INTO baseFieldMappingsCombined VALUES (?, ?, ?)", row)

cur.execute("INSERT INTO libraries (libraryID, type, editable, filesEditable, version) VALUES (1, 'user', 1, 1, 5000)")
cur.execute("INSERT INTO libraries (libraryID, type, editable, filesEditable, version) VALUES (2, 'group', 1, 1, 77)")
cur.execute("INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (3, 'feed', 0, 0)")
cur.execute("INSERT INTO groups VALUES (4242, 2, 'Lab Group', '', 77)")

item_id = [0]
used_keys = set()


def new_key():
    while True:
        k = "".join(rng.choice("23456789ABCDEFGHIJKLMNPQRSTUVWXYZ") for _ in range(8))
        if k not in used_keys:
            used_keys.add(k)
            return k


value_ids = {}


def value_id(v):
    if v not in value_ids:
        value_ids[v] = len(value_ids) + 1
        cur.execute("INSERT INTO itemDataValues VALUES (?, ?, NULL)", (value_ids[v], v))
    return value_ids[v]


creator_rows = {}


def creator_id(first, last, mode=0):
    k = (first, last, mode)
    if k not in creator_rows:
        creator_rows[k] = len(creator_rows) + 1
        cur.execute("INSERT INTO creators (creatorID, firstName, lastName, fieldMode) VALUES (?, ?, ?, ?)", (creator_rows[k], first, last, mode))
    return creator_rows[k]


def add_item(item_type, fields=None, creators=(), library=1, key=None):
    item_id[0] += 1
    iid = item_id[0]
    key = key or new_key()
    cur.execute("INSERT INTO items (itemID, itemTypeID, libraryID, key, dateModified) VALUES (?, ?, ?, ?, '2026-01-02 03:04:05')", (iid, type_ids[item_type], library, key))
    for name, v in (fields or {}).items():
        cur.execute("INSERT INTO itemData VALUES (?, ?, ?)", (iid, field_ids[name], value_id(v)))
    for n, (first, last, ctype) in enumerate(creators):
        mode = 1 if first is None else 0
        cur.execute("INSERT INTO itemCreators VALUES (?, ?, ?, ?)", (iid, creator_id(first or "", last, mode), creator_ids[ctype], n))
    return iid, key


def add_attachment(parent, link_mode, stored_path, library=1, content_type="application/pdf", title="Full Text PDF"):
    iid, key = add_item("attachment", {"title": title}, library=library)
    cur.execute("INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) VALUES (?, ?, ?, ?, ?)", (iid, parent, link_mode, content_type, stored_path))
    return iid, key


def store_file(key, src, name):
    folder = os.path.join(out, "storage", key)
    os.makedirs(folder, exist_ok=True)
    shutil.copyfile(src, os.path.join(folder, name))


tag_ids = {}


def tag(iid, name):
    if name not in tag_ids:
        tag_ids[name] = len(tag_ids) + 1
        cur.execute("INSERT INTO tags VALUES (?, ?, NULL)", (tag_ids[name], name))
    cur.execute("INSERT INTO itemTags VALUES (?, ?, 0)", (iid, tag_ids[name]))


coll_ids = {}


def collection(path, library=1):
    parent = None
    parts = path.split("/")
    for n in range(len(parts)):
        sub = "/".join(parts[: n + 1])
        if (library, sub) not in coll_ids:
            cid = len(coll_ids) + 1
            cur.execute("INSERT INTO collections (collectionID, collectionName, parentCollectionID, libraryID, key) VALUES (?, ?, ?, ?, ?)", (cid, parts[n], parent, library, new_key()))
            coll_ids[(library, sub)] = cid
        parent = coll_ids[(library, sub)]
    return parent


def in_collection(iid, path, library=1):
    cur.execute("INSERT INTO collectionItems VALUES (?, ?, 0)", (collection(path, library), iid))


pdfs = opts.get("pdfs", {})
summary = {"items": {}, "attachments": {}, "annotations": []}

# Named items (the CLI test searches them), each with what it tests.
named = [
    # name, type, title, date, creators, citationKey, collections, pdf, how stored
    ("commune", "book", "The Paris Commune of 1871", "1871-00-00 1871", [("Prosper-Olivier", "Lissagaray", "author")], "lissagaray1876", ["Thesis/Chapter 1"], "commune-paris-1871.pdf", "stored"),
    ("exode", "journalArticle", "Rural Exodus and the Making of Cities", "1962-05-01 1962-05-01", [("Louis", "Chevalier", "author")], None, ["Thesis/Chapter 1", "Reading"], "exode-rural.pdf", "stored"),
    ("railway", "journalArticle", "Railway Time and the Standardisation of Clocks", "1990", [("Wolfgang", "Schivelbusch", "author")], None, ["Thesis/Chapter 2"], "railway-time.pdf", "linked"),
    ("hanse", "bookSection", "The Kontore of the Hanseatic League", "1964", [("Philippe", "Dollinger", "author")], "dollinger1964", ["Reading"], "hanse-kontore.pdf", "relative"),
    ("grain", "journalArticle", "The Grain Trade in the Eighteenth Century", "1971", [("Steven", "Kaplan", "author")], "kaplan1971", ["Thesis/Chapter 2"], "grain-trade.pdf", "trashed"),
    ("iceage", "book", "The Little Ice Age", "2000", [(None, "Intergovernmental Panel on Climate", "author")], None, [], "little-ice-age.pdf", "group"),
    ("maximum", "journalArticle", "The Maximum of 1793", "1793", [("Albert", "Mathiez", "author")], None, ["Thesis/Chapter 2"], "maximum-1793.pdf", "missing"),
    ("nopdf", "book", "Printing and the Reformation Without Files", "1979", [("Elizabeth", "Eisenstein", "author")], None, ["Thesis"], None, None),
]
for name, itype, title, date, creators, citekey, colls, pdf, how in named:
    library = 2 if how == "group" else 1
    fields = {"title": title, "date": date, "DOI": f"10.1234/{name}"}
    if citekey:
        fields["citationKey"] = citekey
    iid, key = add_item(itype, fields, creators, library=library)
    for c in colls:
        in_collection(iid, c, library)
    tag(iid, "history")
    summary["items"][name] = key
    if pdf and pdf in pdfs:
        src = pdfs[pdf]
        if how in ("stored", "trashed", "group"):
            aid, akey = add_attachment(iid, 0, f"storage:{pdf}", library=library)
            store_file(akey, src, pdf)
            summary["attachments"][name] = os.path.join(out, "storage", akey, pdf)
        elif how == "linked":
            os.makedirs(opts["linkedDir"], exist_ok=True)
            dest = os.path.join(opts["linkedDir"], pdf)
            shutil.copyfile(src, dest)
            aid, akey = add_attachment(iid, 2, dest)
            summary["attachments"][name] = dest
        elif how == "relative":
            os.makedirs(os.path.join(opts["baseDir"], "papers"), exist_ok=True)
            dest = os.path.join(opts["baseDir"], "papers", pdf)
            shutil.copyfile(src, dest)
            aid, akey = add_attachment(iid, 2, f"attachments:papers/{pdf}")
            summary["attachments"][name] = dest
        elif how == "missing":
            aid, akey = add_attachment(iid, 0, f"storage:{pdf}")
            summary["attachments"][name] = os.path.join(out, "storage", akey, pdf)
        if how == "trashed":
            cur.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (iid,))
        if name == "commune":
            # A second PDF of the same item, and a highlight on the first.
            aid2, akey2 = add_attachment(iid, 0, "storage:supplement.pdf", title="Supplement")
            store_file(akey2, pdfs.get("annales-longue-duree.pdf", src), "supplement.pdf")
            summary["attachments"]["commune2"] = os.path.join(out, "storage", akey2, "supplement.pdf")
            nid, nkey = add_item("annotation")
            cur.execute(
                "INSERT INTO itemAnnotations (itemID, parentItemID, type, text, comment, color, pageLabel, sortIndex, position, isExternal) VALUES (?, ?, 1, ?, ?, '#ffd400', '12', '00000|000000|00000', ?, 0)",
                (nid, aid, "les électeurs parisiens désignent un conseil municipal", "key passage", json.dumps({"pageIndex": 0, "rects": [[10, 10, 100, 20]]})),
            )
            uid, ukey = add_item("annotation")
            cur.execute(
                "INSERT INTO itemAnnotations (itemID, parentItemID, type, text, comment, color, pageLabel, sortIndex, position, isExternal) VALUES (?, ?, 5, ?, NULL, '#2ea8e5', '13', '00001|000000|00000', ?, 0)",
                (uid, aid, "underlined words", json.dumps({"pageIndex": 1, "rects": []})),
            )
            summary["annotations"] = [nkey, ukey]
        # A note beside it: never an item of its own.
        nid, _ = add_item("note")
        cur.execute("INSERT INTO itemNotes VALUES (?, ?, 'a note', 'a note')", (nid, iid))

# A PDF with no parent item: a top-level item of its own in Zotero.
if "printing-reformation.pdf" in pdfs:
    sid, skey = add_attachment(None, 0, "storage:printing-reformation.pdf", title="Printing and the Reformation (standalone PDF)")
    store_file(skey, pdfs["printing-reformation.pdf"], "printing-reformation.pdf")
    summary["items"]["standalone"] = skey
    summary["attachments"]["standalone"] = os.path.join(out, "storage", skey, "printing-reformation.pdf")

# A trashed collection: its items stay, the collection is not listed.
old = collection("Old Stuff")
cur.execute("INSERT INTO deletedCollections (collectionID) VALUES (?)", (old,))
in_collection(1, "Old Stuff")

# Filler: a realistic spread of types, creators, dates, collections; some trashed; no files.
words = "history trade city revolution archive climate labour empire market peasant memory war science church press nation border port".split()
first_names = ["Anne", "Marc", "Lucien", "Natalie", "Carlo", "Eric", "Joan", "Fernand", "Georges", "Emmanuel", "Émile", "Zoë"]
last_names = ["Bloch", "Febvre", "Davis", "Ginzburg", "Hobsbawm", "Scott", "Braudel", "Duby", "Le Roy Ladurie", "Müller", "Østergaard", "Smith"]
types = ["journalArticle", "book", "bookSection", "thesis", "report", "conferencePaper"]
for n in range(opts.get("items", 0)):
    title = " ".join(rng.choice(words) for _ in range(rng.randint(3, 8))).capitalize()
    year = rng.randint(1900, 2025)
    creators = [(rng.choice(first_names), rng.choice(last_names), "author") for _ in range(rng.randint(1, 3))]
    fields = {"title": title, "date": f"{year}-00-00 {year}"}
    if n % 3 == 0:
        fields["DOI"] = f"10.5555/{n}"
    if n % 10 == 0:
        fields["citationKey"] = f"filler{n}"
    iid, key = add_item(rng.choice(types), fields, creators, library=2 if n % 9 == 0 else 1)
    if n % 4 == 0:
        in_collection(iid, rng.choice(["Thesis/Chapter 1", "Thesis/Chapter 2", "Reading", "Reading/Later"]), 2 if n % 9 == 0 else 1)
    if n % 5 == 0:
        tag(iid, rng.choice(words))
    if n % 50 == 0:
        cur.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (iid,))

con.commit()
con.close()  # checkpoints: everything is in zotero.sqlite, which stays in WAL mode
summary["itemCount"] = item_id[0]
print(json.dumps(summary))
