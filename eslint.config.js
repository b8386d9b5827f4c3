// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/, lowest first. A file may import only from its own layer or lower ones;
 * the rule below turns that into one `no-restricted-imports` entry per layer.
 */
const layers = [
  ['internal'],
  ['errors'],
  ['state'],
  ['jsonrpc'],
  ['protocol'],
  ['schema'],
  ['transport'],
  ['client', 'auth', 'postgres'],
  ['host'],
  ['config'],
  ['agents'],
  ['gateway', 'grpc', 'otel'],
  // The command line serves the gateway (`mcp-host gateway serve`): it sits above it.
  ['cli', 'testing'],
];

const layerRules = layers.flatMap((group, index) =>
  group.map((name) => {
    const forbidden = [
      ...layers.slice(index + 1).flat(),
      ...group.filter((other) => other !== name),
    ];
    return {
      files: [`src/${name}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              ...forbidden.map((other) => ({
                regex: `^\\.\\./(\\.\\./)*${other}(/|$)`,
                message: `Layering: src/${name} may not import src/${other}; imports point down only (STYLE.md).`,
              })),
              {
                regex: '^@modelcontextprotocol/',
                message: 'src/ never imports an MCP SDK (tests and benchmarks may).',
              },
            ],
          },
        ],
      },
    };
  }),
);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'bench/results/**',
      'coverage/**',
      // A docs example being run by the tests (test/helpers/doc-examples.ts).
      'test/.docs-example-*',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      // Keep disableTypeChecked's parserOptions (no project service for JS), add the globals.
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        setInterval: 'readonly',
        clearTimeout: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        performance: 'readonly',
        URL: 'readonly',
      },
    },
  },
  {
    files: ['test/**', 'bench/**', 'examples/**', 'src/**/*.test.ts', 'src/cli/**', '**/*.mjs'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['test/**', 'src/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  ...layerRules,
  {
    // Tests may reach across layers (a peer test drives the in-memory transport) and may use the
    // official SDK as a peer; the layering is about what ships.
    files: ['src/**/*.test.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
