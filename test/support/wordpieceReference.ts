/**
 * A plain BERT (uncased) tokenizer written from the original algorithm and vocab.txt, as a
 * second implementation to check the library tokenizer against: clean text, spaces around CJK
 * characters, lower case, accents stripped (NFD, marks removed), split on whitespace and
 * punctuation, then greedy longest-match WordPiece with "##" continuations.
 */
import { readFileSync } from 'node:fs';

export class WordPieceReference {
  private readonly vocab = new Map<string, number>();
  constructor(vocabFile: string) {
    readFileSync(vocabFile, 'utf8')
      .split('\n')
      .forEach((tok, i) => tok && !this.vocab.has(tok) && this.vocab.set(tok, i));
  }

  private id(tok: string): number {
    return this.vocab.get(tok) ?? this.vocab.get('[UNK]')!;
  }

  private static isPunct(ch: string): boolean {
    const cp = ch.codePointAt(0)!;
    if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) return true;
    return /\p{P}/u.test(ch);
  }

  private static isCjk(cp: number): boolean {
    return (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x20000 && cp <= 0x2a6df) || (cp >= 0xf900 && cp <= 0xfaff);
  }

  basicTokens(text: string): string[] {
    let clean = '';
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      if (cp === 0 || cp === 0xfffd || (/\p{C}/u.test(ch) && !/[\t\n\r]/.test(ch))) continue;
      if (/\s/u.test(ch)) clean += ' ';
      else if (WordPieceReference.isCjk(cp)) clean += ` ${ch} `;
      else clean += ch;
    }
    const out: string[] = [];
    for (const word of clean.split(' ').filter(Boolean)) {
      const folded = word
        .toLowerCase()
        .normalize('NFD')
        .replace(/\p{Mn}/gu, '');
      let cur = '';
      for (const ch of folded) {
        if (WordPieceReference.isPunct(ch)) {
          if (cur) out.push(cur);
          out.push(ch);
          cur = '';
        } else cur += ch;
      }
      if (cur) out.push(cur);
    }
    return out;
  }

  wordPiece(word: string): number[] {
    const chars = [...word];
    if (chars.length > 100) return [this.id('[UNK]')];
    const ids: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const piece = (start > 0 ? '##' : '') + chars.slice(start, end).join('');
        found = this.vocab.get(piece);
        if (found !== undefined) break;
        end--;
      }
      if (found === undefined) return [this.id('[UNK]')];
      ids.push(found);
      start = end;
    }
    return ids;
  }

  /** [CLS] tokens [SEP], the tokens cut so the whole fits maxTokens. */
  encode(text: string, maxTokens = 512): number[] {
    const body = this.basicTokens(text).flatMap((w) => this.wordPiece(w));
    return [this.id('[CLS]'), ...body.slice(0, maxTokens - 2), this.id('[SEP]')];
  }
}
