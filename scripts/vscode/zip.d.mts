// Types of zip.mjs, for the TypeScript tests.
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}
export function zipEntries(buf: Buffer): ZipEntry[];
export function zipRead(buf: Buffer, entry: ZipEntry): Buffer;
export function vsixTarget(buf: Buffer, entries?: ZipEntry[]): string;
