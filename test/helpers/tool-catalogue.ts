/**
 * A large, realistic tool catalogue for tool-search tests: `services × toolsPerServer` tools with
 * names in each service's own convention (snake_case, camelCase, kebab-case), one-paragraph
 * descriptions and full input schemas (ids, fields with types, enums, arrays, a nested filter),
 * drawn by a seeded generator so every run sees the same catalogue.
 */
import type { JsonObject } from '../../src/index.js';
import { seededRandom } from './seeded-random.js';

export interface CatalogueTool {
  server: string;
  /** The tool's name on its server. */
  name: string;
  description: string;
  inputSchema: JsonObject;
  /** The words a person would use to ask for it (`create a new issue in GitHub`). */
  task: string;
}

type Style = 'snake' | 'camel' | 'kebab';

const SERVICES: { server: string; label: string; scope: string; nouns: string[]; style: Style }[] =
  [
    {
      server: 'github',
      label: 'GitHub',
      scope: 'repository',
      nouns: ['issue', 'pull request', 'release', 'branch', 'workflow run', 'gist'],
      style: 'snake',
    },
    {
      server: 'gitlab',
      label: 'GitLab',
      scope: 'project',
      nouns: ['issue', 'merge request', 'pipeline', 'tag', 'wiki page', 'snippet'],
      style: 'snake',
    },
    {
      server: 'jira',
      label: 'Jira',
      scope: 'project_key',
      nouns: ['issue', 'sprint', 'epic', 'board', 'worklog', 'component'],
      style: 'camel',
    },
    {
      server: 'linear',
      label: 'Linear',
      scope: 'team',
      nouns: ['issue', 'cycle', 'project', 'label', 'roadmap', 'comment'],
      style: 'camel',
    },
    {
      server: 'slack',
      label: 'Slack',
      scope: 'workspace',
      nouns: ['message', 'channel', 'reminder', 'user group', 'bookmark', 'emoji'],
      style: 'snake',
    },
    {
      server: 'gmail',
      label: 'Gmail',
      scope: 'mailbox',
      nouns: ['email', 'draft', 'label', 'filter', 'thread', 'attachment'],
      style: 'snake',
    },
    {
      server: 'calendar',
      label: 'Google Calendar',
      scope: 'account',
      nouns: ['event', 'calendar', 'attendee', 'reminder', 'room', 'availability window'],
      style: 'camel',
    },
    {
      server: 'drive',
      label: 'Google Drive',
      scope: 'drive_id',
      nouns: ['file', 'folder', 'permission', 'revision', 'shortcut', 'shared drive'],
      style: 'camel',
    },
    {
      server: 'notion',
      label: 'Notion',
      scope: 'workspace',
      nouns: ['page', 'database', 'block', 'comment', 'template', 'property'],
      style: 'kebab',
    },
    {
      server: 'confluence',
      label: 'Confluence',
      scope: 'space_key',
      nouns: ['page', 'space', 'attachment', 'label', 'blog post', 'macro'],
      style: 'snake',
    },
    {
      server: 'postgres',
      label: 'PostgreSQL',
      scope: 'database',
      nouns: ['table', 'row', 'index', 'view', 'role', 'schema'],
      style: 'snake',
    },
    {
      server: 'redis',
      label: 'Redis',
      scope: 'instance',
      nouns: ['key', 'hash', 'stream', 'list', 'channel', 'snapshot'],
      style: 'kebab',
    },
    {
      server: 's3',
      label: 'Amazon S3',
      scope: 'bucket',
      nouns: [
        'object',
        'bucket',
        'multipart upload',
        'lifecycle rule',
        'presigned url',
        'object tag',
      ],
      style: 'camel',
    },
    {
      server: 'stripe',
      label: 'Stripe',
      scope: 'account',
      nouns: ['customer', 'invoice', 'payment', 'subscription', 'refund', 'coupon'],
      style: 'snake',
    },
    {
      server: 'salesforce',
      label: 'Salesforce',
      scope: 'org',
      nouns: ['lead', 'opportunity', 'account', 'contact', 'case', 'campaign'],
      style: 'camel',
    },
    {
      server: 'zendesk',
      label: 'Zendesk',
      scope: 'subdomain',
      nouns: ['ticket', 'macro', 'agent', 'satisfaction rating', 'article', 'trigger'],
      style: 'snake',
    },
    {
      server: 'k8s',
      label: 'Kubernetes',
      scope: 'namespace',
      nouns: ['pod', 'deployment', 'service', 'config map', 'secret', 'cron job'],
      style: 'kebab',
    },
    {
      server: 'datadog',
      label: 'Datadog',
      scope: 'site',
      nouns: ['monitor', 'dashboard', 'metric', 'incident', 'log query', 'synthetic test'],
      style: 'camel',
    },
    {
      server: 'figma',
      label: 'Figma',
      scope: 'file_key',
      nouns: ['frame', 'component', 'comment', 'style', 'version', 'export'],
      style: 'kebab',
    },
    {
      server: 'spotify',
      label: 'Spotify',
      scope: 'market',
      nouns: ['playlist', 'track', 'album', 'queue item', 'podcast episode', 'artist'],
      style: 'snake',
    },
  ];

const VERBS: { verb: string; summary: string; task: string }[] = [
  {
    verb: 'create',
    summary: 'Create a new {noun} in {label}.',
    task: 'create a new {noun} in {label}',
  },
  {
    verb: 'get',
    summary: 'Get one {noun} from {label} by its id, with every field.',
    task: 'get the {noun} with id 42 from {label}',
  },
  {
    verb: 'list',
    summary: 'List the {noun}s in a {label} {scope}, newest first, a page at a time.',
    task: 'list every {noun} in {label}',
  },
  {
    verb: 'update',
    summary: 'Update fields of an existing {noun} in {label}; omitted fields are kept.',
    task: 'update the fields of {noun} 42 in {label}',
  },
  {
    verb: 'delete',
    summary: 'Delete a {noun} from {label} permanently. This cannot be undone.',
    task: 'delete {noun} 42 from {label}',
  },
  {
    verb: 'search',
    summary: 'Search {label} {noun}s by free text and filters.',
    task: 'search {label} {noun}s for "outage"',
  },
  {
    verb: 'archive',
    summary: 'Archive a {noun} in {label}: hidden from lists, kept for audit.',
    task: 'archive {noun} 42 in {label}',
  },
  {
    verb: 'export',
    summary: 'Export {noun}s from {label} as CSV, JSON or PDF.',
    task: 'export the {noun}s of {label} as csv',
  },
  {
    verb: 'share',
    summary: 'Share a {noun} in {label} with a person, by email, with a role.',
    task: 'share {noun} 42 in {label} with ana@example.com',
  },
  {
    verb: 'restore',
    summary: 'Restore an archived or deleted {noun} in {label}.',
    task: 'restore the deleted {noun} 42 in {label}',
  },
];

const FIELDS: Record<string, JsonObject> = {
  title: { type: 'string', description: 'A short title, shown in lists.', maxLength: 256 },
  name: { type: 'string', description: 'The display name.' },
  description: { type: 'string', description: 'Longer text; Markdown is rendered.' },
  status: {
    type: 'string',
    enum: ['open', 'in_progress', 'blocked', 'done'],
    description: 'The workflow state.',
  },
  priority: {
    type: 'string',
    enum: ['low', 'normal', 'high', 'urgent'],
    description: 'How urgent it is.',
  },
  owner: { type: 'string', description: 'The user id of the owner.' },
  due_date: { type: 'string', format: 'date', description: 'The due date (YYYY-MM-DD).' },
  tags: { type: 'array', items: { type: 'string' }, description: 'Free-form tags.', maxItems: 20 },
  visibility: {
    type: 'string',
    enum: ['private', 'team', 'public'],
    description: 'Who can see it.',
  },
  amount: { type: 'number', minimum: 0, description: 'An amount in the smallest currency unit.' },
  region: { type: 'string', description: 'The region it lives in, for example eu-west-1.' },
  notes: { type: 'string', description: 'Internal notes, never shown to customers.' },
};

const words = (text: string) => text.split(/[^a-zA-Z0-9]+/).filter(Boolean);

function styled(style: Style, parts: string[]): string {
  const lower = parts.map((p) => p.toLowerCase());
  if (style === 'snake') return lower.join('_');
  if (style === 'kebab') return lower.join('-');
  return lower.map((p, i) => (i === 0 ? p : p[0]!.toUpperCase() + p.slice(1))).join('');
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? '');
}

/** The seeded catalogue: `servers` services (at most 20) of `toolsPerServer` tools (at most 60). */
export function toolCatalogue(seed: number, servers = 20, toolsPerServer = 50): CatalogueTool[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const tools: CatalogueTool[] = [];
  for (const service of SERVICES.slice(0, servers)) {
    const combos = service.nouns.flatMap((noun) => VERBS.map((verb) => ({ noun, verb })));
    for (let i = combos.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [combos[i], combos[j]] = [combos[j]!, combos[i]!];
    }
    for (const { noun, verb } of combos.slice(0, toolsPerServer)) {
      const values = { noun, label: service.label, scope: service.scope.replace(/_/g, ' ') };
      const id = `${styled('snake', words(noun))}_id`;
      const properties: JsonObject = {
        [service.scope]: {
          type: 'string',
          description: `The ${service.label} ${values.scope} to work in.`,
        },
      };
      const required = [service.scope];
      const fields = Object.keys(FIELDS)
        .filter(() => random() < 0.35)
        .slice(0, 5);
      switch (verb.verb) {
        case 'create':
        case 'update':
          if (verb.verb === 'update') required.push(id);
          if (verb.verb === 'update')
            properties[id] = { type: 'string', description: `The ${noun}'s id.` };
          for (const field of fields.length > 0 ? fields : ['title'])
            properties[field] = FIELDS[field]!;
          if (verb.verb === 'create') required.push(fields[0] ?? 'title');
          break;
        case 'list':
        case 'search':
        case 'export':
          if (verb.verb === 'search') {
            properties.query = { type: 'string', description: 'Words to look for.' };
            required.push('query');
          }
          properties.filter = {
            type: 'object',
            description: 'Only items matching every given condition.',
            properties: {
              status: FIELDS.status!,
              created_after: { type: 'string', format: 'date-time' },
              created_before: { type: 'string', format: 'date-time' },
              owner: FIELDS.owner!,
            },
            additionalProperties: false,
          };
          if (verb.verb === 'export') {
            properties.format = {
              type: 'string',
              enum: ['csv', 'json', 'pdf'],
              description: 'The file format.',
            };
            required.push('format');
          } else {
            properties.limit = {
              type: 'integer',
              minimum: 1,
              maximum: 100,
              default: 25,
              description: 'Items per page.',
            };
            properties.cursor = {
              type: 'string',
              description: 'The cursor of the next page, from the previous one.',
            };
            properties.sort = {
              type: 'string',
              enum: ['created', 'updated', pick(['name', 'priority', 'due_date'])],
            };
          }
          break;
        case 'share':
          properties[id] = { type: 'string', description: `The ${noun}'s id.` };
          properties.email = {
            type: 'string',
            format: 'email',
            description: 'Who to share it with.',
          };
          properties.role = {
            type: 'string',
            enum: ['viewer', 'commenter', 'editor'],
            default: 'viewer',
          };
          properties.notify = { type: 'boolean', description: 'Send them an email about it.' };
          required.push(id, 'email');
          break;
        default:
          properties[id] = { type: 'string', description: `The ${noun}'s id.` };
          required.push(id);
          if (verb.verb === 'delete')
            properties.force = {
              type: 'boolean',
              description: 'Delete even when other items refer to it.',
            };
          if (verb.verb === 'archive')
            properties.reason = { type: 'string', description: 'Why, for the audit log.' };
      }
      tools.push({
        server: service.server,
        name: styled(service.style, [verb.verb, ...words(noun)]),
        description: `${fill(verb.summary, values)} ${pick([
          'Requires a token with write scope.',
          'Rate limited to 100 calls a minute.',
          'Returns the item as JSON.',
          'Works on archived items too.',
          '',
        ])}`.trim(),
        inputSchema: {
          type: 'object',
          properties,
          required: [...new Set(required)],
          additionalProperties: false,
        },
        task: fill(verb.task, values),
      });
    }
  }
  return tools;
}
