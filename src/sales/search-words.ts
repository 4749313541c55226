// The words a book is found by, and the words a search asks for, normalized alike so that an index answers the search.

/** Words longer than this are cut: a search box never needs more, and the index keys stay small. */
const MAX_WORD_LENGTH = 40;
/** More words than this in a search are refused: each one is a predicate every candidate book is checked against. */
export const MAX_SEARCH_WORDS = 8;

/**
 * The shortest last word that bounds a search's reads as a prefix: "t" starts the words of two books in three,
 * so a shorter one is only checked on the books another word finds.
 */
export const MIN_PREFIX_LENGTH = 3;

/**
 * Lower-case words of letters and digits with accents removed: "Brontë's Œuvre" gives ["bronte", "s", "oeuvre"].
 * NFKD splits an accented letter into its base and a combining mark, which is dropped; ligatures such as
 * "œ" have no decomposition and are spelled out, as a reader would type them.
 */
export function normalizedWords(text: string): string[] {
  const plain = text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/œ/g, "oe").replace(/æ/g, "ae").replace(/ß/g, "ss");
  return (plain.match(/[\p{L}\p{N}]+/gu) ?? []).map((word) => word.slice(0, MAX_WORD_LENGTH));
}

/**
 * The stored `search_words` of a book: each distinct word of its title and author once, then each distinct
 * prefix of those words from MIN_PREFIX_LENGTH letters on, marked (see `prefixKey`), so that every term of a
 * search, whole word or prefix, is one key of the multikey index: one point of the index, whose books come
 * in the order of the index's next field (a title, a year, an id), and a window reads only itself.
 */
export function searchWordsOf(book: { title: string; author: string }): string[] {
  const words = [...new Set([...normalizedWords(book.title), ...normalizedWords(book.author)])];
  const prefixes = words.flatMap((word) =>
    Array.from({ length: Math.max(0, word.length - MIN_PREFIX_LENGTH + 1) }, (_, i) => prefixKey(word.slice(0, MIN_PREFIX_LENGTH + i))),
  );
  return [...words, ...new Set(prefixes)];
}

/** The key a prefix is stored under: the prefix and a `*`, which no word holds, so that "the*" finds "theory" and "the" only "the". */
export function prefixKey(prefix: string): string {
  return `${prefix}*`;
}

/** A search as the index answers it: whole words every book must hold, and the last word typed, which a book's word need only start with. */
export interface SearchTerms {
  words: string[];
  prefix: string;
}

/** The terms of a search, or null for a blank one (no words at all), which searches nothing. */
export function searchTermsOf(search: string | null | undefined): SearchTerms | null {
  // Most browses search nothing: no text to normalize.
  if (!search) return null;
  const words = normalizedWords(search);
  const prefix = words.pop();
  return prefix === undefined ? null : { words: [...new Set(words)], prefix };
}
