import { describe, expect, it } from 'vitest';
import { SearchIndex, type SearchField } from './search-index.js';

/** A document with a name (weight 3) and a description (weight 1). */
const doc = (name: string, description = ''): SearchField[] => [
  { text: name, weight: 3 },
  { text: description, weight: 1 },
];

const catalogue = [
  doc('github_create_issue', 'Create a new issue in a GitHub repository.'),
  doc('github_list_issues', 'List the issues of a GitHub repository, newest first.'),
  doc('jira_create_issue', 'Create a Jira issue in a project.'),
  doc('slack_post_message', 'Post a message to a Slack channel.'),
  doc('calendar_create_event', 'Create a calendar event; attendees get an invitation.'),
  doc('fs_read_file', 'Read a file from disk and return its text.'),
];

const names = (index: SearchIndex, query: string, limit = 10) =>
  index.search(query, limit).map((hit) => hit.index);

describe('SearchIndex', () => {
  it('ranks by the words a query shares with each document, rarer words counting more', () => {
    const index = new SearchIndex(catalogue);
    expect(names(index, 'create github issue')[0]).toBe(0);
    expect(names(index, 'createJiraIssue')[0]).toBe(2);
    expect(names(index, 'send a message on slack')).toEqual([3]);
    expect(names(index, 'list issues')[0]).toBe(1);
    // "issue" is in three documents, "calendar" in one: the rare word decides.
    expect(names(index, 'calendar issue')[0]).toBe(4);
    expect(names(index, 'read file contents')).toEqual([5]);
  });

  it('counts a word in a heavier field for more than the same word in a lighter one', () => {
    const index = new SearchIndex([
      doc('tool_one', 'Works with an invoice.'),
      doc('invoice_tool', 'Works with a thing.'),
    ]);
    expect(names(index, 'invoice')).toEqual([1, 0]);
    const hits = index.search('invoice', 2);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it('orders equal scores by document index, and is the same on every run', () => {
    const index = new SearchIndex([
      doc('beta_tool', 'same'),
      doc('alpha_tool', 'same'),
      doc('c', 'other'),
    ]);
    const hits = index.search('same', 10);
    expect(hits.map((hit) => hit.index)).toEqual([0, 1]);
    expect(hits[0]!.score).toBe(hits[1]!.score);
    expect(new SearchIndex(catalogue).search('create issue event', 10)).toEqual(
      new SearchIndex(catalogue).search('create issue event', 10),
    );
  });

  it('matches nothing for an empty query, stop words, unknown words or a limit under one', () => {
    const index = new SearchIndex(catalogue);
    expect(index.search('', 10)).toEqual([]);
    expect(index.search('   ', 10)).toEqual([]);
    expect(index.search('the of and', 10)).toEqual([]);
    expect(index.search('xylophone', 10)).toEqual([]);
    expect(index.search('issue', 0)).toEqual([]);
    expect(index.search('issue', Number.NaN)).toEqual([]);
    expect(new SearchIndex([]).search('issue', 10)).toEqual([]);
    expect(names(index, 'issue', 2)).toHaveLength(2);
  });

  it('reads only the start of a huge query, and only its first distinct terms', () => {
    const index = new SearchIndex(catalogue, { maxQueryChars: 1_000, maxQueryTerms: 4 });
    const huge = `calendar ${'filler '.repeat(200_000)} slack`;
    expect(names(index, huge)).toEqual([4]);
    const many = `${Array.from({ length: 500 }, (_, i) => `w${i}`).join(' ')} slack`;
    expect(names(index, many.slice(0, 900))).toEqual([]);
    expect(names(index, 'w1 w1 w1 w1 w1 slack')).toEqual([3]);
  });

  it('matches across scripts and accents', () => {
    const index = new SearchIndex([
      doc('téléverser_fichier', 'Téléverse un fichier'),
      doc('search_jp', 'ファイルを検索します'),
      doc('upload_ko', '파일 업로드'),
    ]);
    expect(names(index, 'televerser')).toEqual([0]);
    expect(names(index, '検索')).toEqual([1]);
    expect(names(index, '업로드')).toEqual([2]);
  });

  it('bounds what it keeps of each field', () => {
    const index = new SearchIndex(
      [doc('a', `${'padding '.repeat(100)} needle`), doc('b', 'needle')],
      { maxFieldTerms: 50 },
    );
    expect(names(index, 'needle')).toEqual([1]);
  });
});
