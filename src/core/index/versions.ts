/**
 * Bump LEXICAL_VERSION whenever tokenisation or `lexicalTerms` change: indexes
 * store lexical terms, and an index built with other terms is rebuilt.
 */
export const LEXICAL_VERSION = 'lex-2';
