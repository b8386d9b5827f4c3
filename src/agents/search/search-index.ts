/**
 * A small lexical index: BM25 over documents made of weighted fields (BM25F: a term's frequency
 * and a document's length are summed over its fields, each times the field's weight), so a word
 * in a tool's name counts for more than the same word in its description. Built once, read many
 * times; no I/O.
 *
 * Bounded: each field keeps at most `maxFieldTerms` terms, a query at most `maxQueryTerms`
 * distinct terms of its first `maxQueryChars` characters, so memory is linear in the number of
 * documents and a search costs at most `maxQueryTerms` posting-list walks, whatever is asked.
 * Deterministic: equal scores are ordered by document index, and the arithmetic is the same on
 * every run.
 */
import { searchTerms } from './search-terms.js';

/** One field of a document: its text and how much a word in it counts. */
export interface SearchField {
  text: string;
  /** A positive multiplier of the field's term frequencies (1 for plain text). */
  weight: number;
}

/** How an index is built and searched. */
export interface SearchIndexOptions {
  /** BM25 term-frequency saturation (default 1.2). */
  k1?: number;
  /** BM25 length normalisation, 0 (none) to 1 (full) (default 0.75). */
  b?: number;
  /** Terms kept per field (default 512). */
  maxFieldTerms?: number;
  /** Characters of a query read (default 1,000). */
  maxQueryChars?: number;
  /** Distinct terms of a query used (default 32). */
  maxQueryTerms?: number;
}

/** A document that matched: its index in the list the index was built from, and its score. */
export interface SearchHit {
  index: number;
  score: number;
}

const DEFAULTS = {
  k1: 1.2,
  b: 0.75,
  maxFieldTerms: 512,
  maxQueryChars: 1_000,
  maxQueryTerms: 32,
} as const;

/** BM25F over a fixed list of documents (see the module comment). */
export class SearchIndex {
  readonly size: number;
  readonly #postings = new Map<string, { docs: number[]; frequencies: number[] }>();
  readonly #lengths: Float64Array;
  readonly #averageLength: number;
  readonly #options: Required<SearchIndexOptions>;

  constructor(documents: readonly (readonly SearchField[])[], options: SearchIndexOptions = {}) {
    this.#options = { ...DEFAULTS, ...options };
    this.size = documents.length;
    this.#lengths = new Float64Array(documents.length);
    let total = 0;
    documents.forEach((fields, doc) => {
      const frequencies = new Map<string, number>();
      let length = 0;
      for (const field of fields) {
        if (!(field.weight > 0)) continue;
        for (const term of searchTerms(field.text, this.#options.maxFieldTerms)) {
          frequencies.set(term, (frequencies.get(term) ?? 0) + field.weight);
          length += field.weight;
        }
      }
      for (const [term, frequency] of frequencies) {
        let posting = this.#postings.get(term);
        if (posting === undefined)
          this.#postings.set(term, (posting = { docs: [], frequencies: [] }));
        posting.docs.push(doc);
        posting.frequencies.push(frequency);
      }
      this.#lengths[doc] = length;
      total += length;
    });
    this.#averageLength = documents.length === 0 || total === 0 ? 1 : total / documents.length;
  }

  /**
   * The documents matching `query`, best first, at most `limit` of them; only documents sharing
   * at least one term with the query match (an empty query, or one of stop words only, matches
   * nothing).
   */
  search(query: string, limit: number): SearchHit[] {
    const { k1, b, maxQueryChars, maxQueryTerms } = this.#options;
    if (!(limit > 0) || this.size === 0) return [];
    const terms: string[] = [];
    for (const term of searchTerms(query.slice(0, maxQueryChars))) {
      if (!terms.includes(term)) terms.push(term);
      if (terms.length >= maxQueryTerms) break;
    }
    const scores = new Float64Array(this.size);
    const matched: number[] = [];
    for (const term of terms) {
      const posting = this.#postings.get(term);
      if (posting === undefined) continue;
      const count = posting.docs.length;
      const idf = Math.log(1 + (this.size - count + 0.5) / (count + 0.5));
      for (let i = 0; i < count; i++) {
        const doc = posting.docs[i]!;
        const frequency = posting.frequencies[i]!;
        const norm = k1 * (1 - b + (b * this.#lengths[doc]!) / this.#averageLength);
        if (scores[doc] === 0) matched.push(doc);
        scores[doc] = scores[doc]! + (idf * frequency * (k1 + 1)) / (frequency + norm);
      }
    }
    return matched
      .map((index) => ({ index, score: scores[index]! }))
      .sort((x, y) => y.score - x.score || x.index - y.index)
      .slice(0, Math.floor(limit));
  }
}
