/**
 * Preloaded into a child process (`node --import <this file>`): every read of a file whose name
 * ends in SLOW_READ_SUFFIX (default zotero.sqlite) waits SLOW_READ_MS (default 2000) first, so a
 * test can stop the process while Zotero's database is being copied. Reads only are slowed:
 * Node's FileHandle.read, which confinedFiles uses for every chunk.
 */
import fs from 'node:fs';

const suffix = process.env.SLOW_READ_SUFFIX ?? 'zotero.sqlite';
const ms = Number(process.env.SLOW_READ_MS ?? 2000);
const slow = new WeakSet();
const open = fs.promises.open;
fs.promises.open = async function (file, ...rest) {
  const handle = await open.call(fs.promises, file, ...rest);
  if (String(file).endsWith(suffix)) slow.add(handle);
  return handle;
};
const probe = await open.call(fs.promises, process.execPath, 'r');
const proto = Object.getPrototypeOf(probe);
await probe.close();
const read = proto.read;
proto.read = async function (...args) {
  if (slow.has(this)) await new Promise((r) => setTimeout(r, ms));
  return read.apply(this, args);
};
