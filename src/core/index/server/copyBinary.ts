/**
 * Rows sent with PostgreSQL's binary COPY (issue 37: publication throughput). Vectors go as
 * pgvector's binary form (what `vector_recv` reads: dimensions, an unused int16, big-endian
 * float4s), so neither side formats or parses decimal text — writing 15k vectors as text cost the
 * publisher more than a second, and the server as much to parse them — and the floats arrive
 * exactly as stored. Texts go as their UTF-8 bytes, with no escaping. One COPY per table per shard
 * replaces a statement per PDF. The format: https://www.postgresql.org/docs/current/sql-copy.html.
 */
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

export type CopyColumn = 'text' | 'int4' | 'bool' | 'jsonb' | 'vector';
export type CopyValue = string | number | boolean | Float32Array | null;

/** "PGCOPY\n\377\r\n\0", then flags and the header extension's length (both 0). */
const HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
const TRAILER = Buffer.from([0xff, 0xff]);

/** A table's rows in COPY's binary format, built in chunks (a shard of 20k passages is tens of MB). */
export class CopyRows {
  private readonly chunks: Buffer[] = [HEADER];
  private chunk = Buffer.allocUnsafe(1 << 20);
  private at = 0;
  count = 0;

  constructor(private readonly columns: readonly CopyColumn[]) {}

  private room(n: number): void {
    if (this.at + n <= this.chunk.length) return;
    this.chunks.push(this.chunk.subarray(0, this.at));
    this.chunk = Buffer.allocUnsafe(Math.max(1 << 20, n));
    this.at = 0;
  }

  add(values: readonly CopyValue[]): void {
    if (values.length !== this.columns.length) throw new Error(`a COPY row of ${values.length} values for ${this.columns.length} columns`);
    this.room(2);
    this.at = this.chunk.writeInt16BE(values.length, this.at);
    values.forEach((v, i) => this.field(this.columns[i], v));
    this.count++;
  }

  private field(kind: CopyColumn, v: CopyValue): void {
    if (v === null) {
      this.room(4);
      this.at = this.chunk.writeInt32BE(-1, this.at);
      return;
    }
    switch (kind) {
      case 'text': {
        const s = String(v);
        const n = Buffer.byteLength(s);
        this.room(4 + n);
        this.at = this.chunk.writeInt32BE(n, this.at);
        this.at += this.chunk.write(s, this.at, 'utf8');
        return;
      }
      case 'jsonb': {
        // jsonb's binary form: a version byte (1), then the JSON text.
        const s = String(v);
        const n = Buffer.byteLength(s);
        this.room(5 + n);
        this.at = this.chunk.writeInt32BE(n + 1, this.at);
        this.at = this.chunk.writeUInt8(1, this.at);
        this.at += this.chunk.write(s, this.at, 'utf8');
        return;
      }
      case 'int4':
        this.room(8);
        this.at = this.chunk.writeInt32BE(4, this.at);
        this.at = this.chunk.writeInt32BE(Number(v), this.at);
        return;
      case 'bool':
        this.room(5);
        this.at = this.chunk.writeInt32BE(1, this.at);
        this.at = this.chunk.writeUInt8(v ? 1 : 0, this.at);
        return;
      case 'vector': {
        if (!(v instanceof Float32Array)) throw new Error('a vector column takes a Float32Array');
        const n = v.length;
        this.room(8 + 4 * n);
        this.at = this.chunk.writeInt32BE(4 + 4 * n, this.at);
        this.at = this.chunk.writeInt16BE(n, this.at);
        this.at = this.chunk.writeInt16BE(0, this.at);
        for (let k = 0; k < n; k++) this.at = this.chunk.writeFloatBE(v[k], this.at);
        return;
      }
    }
  }

  /** The whole COPY data: header, rows, trailer. */
  data(): Buffer[] {
    return [...this.chunks, this.chunk.subarray(0, this.at), TRAILER];
  }
}

/**
 * Runs `COPY table (columns) FROM STDIN (FORMAT binary)` with `rows`; resolves when the server
 * has taken them all (within the caller's transaction: a failure leaves nothing).
 */
export function copyIn(client: pg.Client, table: string, columns: readonly string[], rows: CopyRows): Promise<number> {
  if (!rows.count) return Promise.resolve(0);
  return new Promise((resolve, reject) => {
    const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN (FORMAT binary)`));
    stream.on('error', reject);
    stream.on('finish', () => resolve(rows.count));
    for (const b of rows.data()) stream.write(b);
    stream.end();
  });
}
