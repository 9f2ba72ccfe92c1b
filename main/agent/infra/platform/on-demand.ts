import { createRequire } from 'node:module';
import { builtOnce } from '#protocol/helpers/built-once';
import type * as YamlPackage from 'yaml';
import type * as AjvPackage from 'ajv';
import type * as Ajv2019Package from 'ajv/dist/2019.js';
import type * as Ajv2020Package from 'ajv/dist/2020.js';
import type * as Re2Package from 're2js';
import type * as DiffPackage from 'diff';
import type IpaddrPackage from 'ipaddr.js';
import type FuzzysortPackage from 'fuzzysort';
import type * as CronerPackage from 'croner';
import type PicomatchPackage from 'picomatch';

/**
 * Packages loaded the first time they are used, not when Deft starts: a one-shot text turn never parses YAML
 * beyond simple frontmatter, checks a JSON schema, matches a glob, judges an IP address, ranks file names or
 * reads a cron expression, and loading them costs more than the rest of its work (bench/cold-start.bench.ts).
 * Loaded with require, so synchronously where they are needed (croner by its CommonJS build).
 */
const load = createRequire(import.meta.url);

export const yamlPackage: () => typeof YamlPackage = builtOnce(() => load('yaml') as typeof YamlPackage);

/** Ajv's class for each draft, each loaded with its first schema of that draft (a draft's module brings its meta-schemas). */
export const ajvClass = {
  'draft-07': builtOnce(() => (load('ajv') as typeof AjvPackage).Ajv),
  '2019-09': builtOnce(() => (load('ajv/dist/2019.js') as typeof Ajv2019Package).Ajv2019),
  '2020-12': builtOnce(() => (load('ajv/dist/2020.js') as typeof Ajv2020Package).Ajv2020),
};

export interface AjvClasses {
  Ajv: typeof AjvPackage.Ajv;
  Ajv2019: typeof Ajv2019Package.Ajv2019;
  Ajv2020: typeof Ajv2020Package.Ajv2020;
}
export const ajvClasses: () => AjvClasses = () => ({ Ajv: ajvClass['draft-07'](), Ajv2019: ajvClass['2019-09'](), Ajv2020: ajvClass['2020-12']() });

/** ajv-formats' plugin (format keywords: date-time, email, uri…). */
export const ajvFormats: () => (ajv: AjvPackage.Ajv) => void = builtOnce(() => (load('ajv-formats') as { default: (ajv: AjvPackage.Ajv) => void }).default);

/** re2js: linear-time regular expressions, for the `pattern` keywords of schemas Deft did not write. */
export const re2: () => typeof Re2Package.RE2JS = builtOnce(() => (load('re2js') as typeof Re2Package).RE2JS);

/** jsdiff, for the first diff a session shows or applies. */
export const diffPackage: () => typeof DiffPackage = builtOnce(() => load('diff') as typeof DiffPackage);

/** ipaddr.js, for the first address a fetch or the sandbox's proxy judges. */
export const ipaddrPackage: () => typeof IpaddrPackage = builtOnce(() => load('ipaddr.js') as typeof IpaddrPackage);

/** fuzzysort, for the first file index (@-mentions, Glob's suggestions). */
export const fuzzysortPackage: () => typeof FuzzysortPackage = builtOnce(() => load('fuzzysort') as typeof FuzzysortPackage);

/** croner's Cron, for the first schedule read. */
export const cronClass: () => typeof CronerPackage.Cron = builtOnce(() => (load('croner') as typeof CronerPackage).Cron);

/** picomatch, for the first glob matched (permission rules, ignore files, language servers' file patterns). */
export const picomatchPackage: () => typeof PicomatchPackage = builtOnce(() => load('picomatch') as typeof PicomatchPackage);
