/**
 * A process that reads a Zotero data directory with the database reader and nothing else (no
 * signal listener of its own): `node --import tsx test/support/zotero/readInChild.ts <dataDir>`.
 * Prints "read N" when done.
 */
import { ZoteroDatabaseReader } from '../../../src/core/zotero/database';

void new ZoteroDatabaseReader({ dataDir: process.argv[2] }).read().then((snap) => console.log(`read ${snap.items.length}`));
