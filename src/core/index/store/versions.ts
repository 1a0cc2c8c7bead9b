/**
 * Bump LEXICAL_VERSION whenever tokenisation or `lexicalTerms` change: indexes
 * store lexical terms, and an index built with other terms is rebuilt.
 */
export const LEXICAL_VERSION = 'lex-2';

/**
 * Bump READER_VERSION when PDF reading learns to read files it skipped before (damaged
 * files repaired, OCR, new encodings): a file skipped by an older reader is tried again
 * even though it has not changed.
 */
export const READER_VERSION = 2;

/**
 * Bump POSTINGS_VERSION when the layout of a shard's postings file (postingsFile.ts)
 * changes: a file of another version is ignored (the shard is read from its JSON,
 * slower) and the next indexing run rewrites it from the JSON shard, without
 * re-reading any PDF.
 */
export const POSTINGS_VERSION = 1;
