/**
 * The stress suite's table (issue 14 asks for one): each case records how many
 * times it was tried and what happened; the table is printed at the end of the
 * run and written to test-results/stress.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';

export interface CaseResult {
  tried: number;
  crashes: number;
  dataLost: number;
  note: string;
}

const rows: Array<[string, CaseResult]> = [];

export function record(name: string, r: CaseResult): void {
  rows.push([name, r]);
}

export function table(): string {
  const lines = ['| case | times tried | crashes | data lost | what the user sees / figures |', '|---|---|---|---|---|'];
  for (const [name, r] of rows) lines.push(`| ${name} | ${r.tried} | ${r.crashes} | ${r.dataLost} | ${r.note.replace(/\|/g, '\\|')} |`);
  return lines.join('\n');
}

export const mochaHooks = {
  afterAll() {
    if (!rows.length) return;
    const t = table();
    console.log('\n' + t);
    mkdirSync('test-results', { recursive: true });
    writeFileSync('test-results/stress.md', t + '\n');
  },
};
