// `import { query } from 'deft/sdk'`: see query.ts and docs/cli.md.
export { type InputError, type Query, type QueryMessage, type QueryOptions, type QueryResult, query } from './query';
