import { describe, expect, it } from 'vitest';
import { MAX_TERM_CHARS, searchTerms } from './search-terms.js';

describe('searchTerms', () => {
  it('splits every naming convention a tool name uses', () => {
    expect(searchTerms('create_pull_request')).toEqual(['create', 'pull', 'request']);
    expect(searchTerms('createPullRequest')).toEqual(['create', 'pull', 'request']);
    expect(searchTerms('CreatePullRequest')).toEqual(['create', 'pull', 'request']);
    expect(searchTerms('create-pull-request')).toEqual(['create', 'pull', 'request']);
    expect(searchTerms('mcp__github__create_issue')).toEqual(['mcp', 'github', 'create', 'issue']);
    expect(searchTerms('files.readText')).toEqual(['file', 'read', 'text']);
    expect(searchTerms('parseHTTPResponse')).toEqual(['parse', 'http', 'response']);
    expect(searchTerms('getV2Data')).toEqual(['get', 'v2', 'data']);
    expect(searchTerms('s3_put_object base64')).toEqual(['s3', 'put', 'object', 'base64']);
  });

  it('drops function words and reduces plurals, the same way for a query and a document', () => {
    expect(searchTerms('List all the issues of a repository')).toEqual([
      'list',
      'all',
      'issue',
      'repository',
    ]);
    expect(searchTerms('boxes addresses matches files entries')).toEqual([
      'box',
      'address',
      'match',
      'file',
      'entry',
    ]);
    // Words that only look plural stay as they are.
    expect(searchTerms('status analysis class bus')).toEqual([
      'status',
      'analysis',
      'class',
      'bus',
    ]);
    expect(searchTerms('')).toEqual([]);
    expect(searchTerms('the of to and')).toEqual([]);
    expect(searchTerms('  --__..  ')).toEqual([]);
  });

  it('folds accents and compatibility forms, keeps other scripts, and splits unspaced ones', () => {
    expect(searchTerms('Café résumé naïve')).toEqual(['cafe', 'resume', 'naive']);
    expect(searchTerms('ｆｉｌｅ ＵＰＬＯＡＤ')).toEqual(['file', 'upload']);
    expect(searchTerms('Créer un problème')).toEqual(['creer', 'un', 'probleme']);
    expect(searchTerms('Загрузить файл')).toEqual(['загрузить', 'файл']);
    expect(searchTerms('파일 업로드')).toEqual(['파일', '업로드']);
    expect(searchTerms('ファイルを検索')).toEqual(['フ', 'ァ', 'イ', 'ル', 'を', '検', '索']);
    expect(searchTerms('search検索')).toEqual(['search', '検', '索']);
    // Emoji and symbols are not words; astral letters are kept whole.
    expect(searchTerms('🚀 launch 𝒳')).toEqual(['launch', 'x']);
  });

  it('is bounded: terms are cut to a maximum length, and to a maximum count', () => {
    const long = 'a'.repeat(1_000);
    expect(searchTerms(long)).toEqual(['a'.repeat(MAX_TERM_CHARS)]);
    expect(searchTerms('one two three four five', 3)).toEqual(['one', 'two', 'three']);
    const many = Array.from({ length: 10_000 }, (_, i) => `word${i}`).join(' ');
    expect(searchTerms(many, 100)).toHaveLength(100);
  });
});
