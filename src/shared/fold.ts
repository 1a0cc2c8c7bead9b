/**
 * The one accent folding: letters split from their combining accents
 * (U+0300–U+036F), accents dropped, lower case ("Élysée" → "elysee"). The
 * engine's terms, the panel's highlights and the PDF viewer's passage search all
 * fold through it, so "societe" meets "Société" everywhere alike. (Changing it
 * changes the engine's terms: bump LEXICAL_VERSION and the embedded model.)
 */
export function foldAccents(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}
