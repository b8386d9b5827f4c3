/**
 * The words of a text as a search index sees them: names split at every convention a tool name
 * uses (`snake_case`, `camelCase`, `PascalCase`, `kebab-case`, `dot.path`, `HTTPServer`), Latin
 * accents folded (`café` is `cafe`), compatibility forms folded (`ｆｉｌｅ` is `file`), lower-cased,
 * the commonest English function words dropped, and English plurals reduced to the singular
 * (`issues` is `issue`, `boxes` is `box`). Scripts written without spaces (Han, Hiragana,
 * Katakana, Thai) give one term per character, so a query still meets a description in them.
 * Pure and deterministic: the same text gives the same terms on every machine (no locale).
 */

/** The longest term kept; a longer run of letters is cut to this many characters. */
export const MAX_TERM_CHARS = 64;

const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'can',
  'for',
  'from',
  'i',
  'in',
  'into',
  'is',
  'it',
  'its',
  'me',
  'my',
  'of',
  'on',
  'or',
  'please',
  'that',
  'the',
  'this',
  'to',
  'with',
  'you',
  'your',
]);

/** A lower case letter or digit followed by an upper case letter: `createIssue`. */
const LOWER_UPPER = /([\p{Ll}\p{N}])(\p{Lu})/gu;
/** An upper case run followed by a capitalised word: `HTTPServer`. */
const UPPER_WORD = /(\p{Lu})(\p{Lu}\p{Ll})/gu;
/** Characters of scripts written without spaces between words: one term each. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/gu;
/** Combining accents on a Latin letter (after NFKD); other scripts keep theirs (`й` is a letter). */
const LATIN_ACCENTS = /(\p{Script=Latin})[\u0300-\u036f]+/gu;
const WORD = /[\p{L}\p{N}]+/gu;

/**
 * The terms of `text`, in order (repeats kept), at most `maxTerms` of them. The caller bounds the
 * text's length; the work is linear in it.
 */
export function searchTerms(text: string, maxTerms = Number.POSITIVE_INFINITY): string[] {
  const split = text
    .replace(LOWER_UPPER, '$1 $2')
    .replace(UPPER_WORD, '$1 $2')
    .normalize('NFKD')
    .replace(LATIN_ACCENTS, '$1')
    .normalize('NFC')
    .toLowerCase()
    .replace(UNSPACED, ' $& ');
  const terms: string[] = [];
  for (const match of split.matchAll(WORD)) {
    if (terms.length >= maxTerms) break;
    const word = match[0];
    if (STOP_WORDS.has(word)) continue;
    terms.push(singular(Array.from(word).slice(0, MAX_TERM_CHARS).join('')));
  }
  return terms;
}

/** An English plural as its singular; anything else unchanged (a light, predictable stemmer). */
function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(?:ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !/(?:ss|us|is)$/.test(word))
    return word.slice(0, -1);
  return word;
}
