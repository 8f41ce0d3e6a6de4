// The layering of docs/architecture.md, checked by dependency-cruiser (`npm run lint:layers`,
// part of `npm run lint`): each folder of src/ imports only from the layers below it, and no
// module imports itself round a circle. Known violations, being removed, are listed in
// .dependency-cruiser-known-violations.json; a new one fails the check.

/** Top to bottom. A layer may import from any layer after it in this list, never before. */
const layers = [
  'cli',
  'index.ts',
  'embed',
  'server',
  'wire',
  'commands',
  'tools',
  'pipeline',
  'query',
  'update',
  'repl',
  'catalog',
  'txn',
  'storage',
  'auth',
  'js',
  'text',
  'geo',
  'bson',
  'log.ts',
  'limits.ts',
  'errors.ts',
];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pathOf = (layer) => `^src/${escape(layer)}${layer.endsWith('.ts') ? '$' : '/'}`;

const upward = layers.slice(1).map((layer, i) => ({
  name: `layer-${layer}`,
  comment: `${layer} is below ${layers.slice(0, i + 1).join(', ')}: it may not import them`,
  severity: 'error',
  from: { path: pathOf(layer) },
  to: { path: layers.slice(0, i + 1).map(pathOf) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A module that imports itself round a circle (types included): break the ring.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
