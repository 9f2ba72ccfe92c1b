import { createRequire } from 'node:module';
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

let yaml: typeof YamlPackage | undefined;
export function yamlPackage(): typeof YamlPackage {
  yaml ??= load('yaml') as typeof YamlPackage;
  return yaml;
}

export interface AjvClasses {
  Ajv: typeof AjvPackage.Ajv;
  Ajv2019: typeof Ajv2019Package.Ajv2019;
  Ajv2020: typeof Ajv2020Package.Ajv2020;
}
let ajv: AjvClasses | undefined;
export function ajvClasses(): AjvClasses {
  ajv ??= {
    Ajv: (load('ajv') as typeof AjvPackage).Ajv,
    Ajv2019: (load('ajv/dist/2019.js') as typeof Ajv2019Package).Ajv2019,
    Ajv2020: (load('ajv/dist/2020.js') as typeof Ajv2020Package).Ajv2020,
  };
  return ajv;
}

let formats: ((ajv: AjvPackage.Ajv) => void) | undefined;
/** ajv-formats' plugin (format keywords: date-time, email, uri…). */
export function ajvFormats(): (ajv: AjvPackage.Ajv) => void {
  formats ??= (load('ajv-formats') as { default: (ajv: AjvPackage.Ajv) => void }).default;
  return formats;
}

let re2Class: typeof Re2Package.RE2JS | undefined;
/** re2js: linear-time regular expressions, for the `pattern` keywords of schemas Deft did not write. */
export function re2(): typeof Re2Package.RE2JS {
  re2Class ??= (load('re2js') as typeof Re2Package).RE2JS;
  return re2Class;
}

let diff: typeof DiffPackage | undefined;
/** jsdiff, for the first diff a session shows or applies. */
export function diffPackage(): typeof DiffPackage {
  diff ??= load('diff') as typeof DiffPackage;
  return diff;
}

let ipaddr: typeof IpaddrPackage | undefined;
/** ipaddr.js, for the first address a fetch or the sandbox's proxy judges. */
export function ipaddrPackage(): typeof IpaddrPackage {
  ipaddr ??= load('ipaddr.js') as typeof IpaddrPackage;
  return ipaddr;
}

let fuzzysort: typeof FuzzysortPackage | undefined;
/** fuzzysort, for the first file index (@-mentions, Glob's suggestions). */
export function fuzzysortPackage(): typeof FuzzysortPackage {
  fuzzysort ??= load('fuzzysort') as typeof FuzzysortPackage;
  return fuzzysort;
}

let cron: typeof CronerPackage.Cron | undefined;
/** croner's Cron, for the first schedule read. */
export function cronClass(): typeof CronerPackage.Cron {
  cron ??= (load('croner') as typeof CronerPackage).Cron;
  return cron;
}

let picomatch: typeof PicomatchPackage | undefined;
/** picomatch, for the first glob matched (permission rules, ignore files, language servers' file patterns). */
export function picomatchPackage(): typeof PicomatchPackage {
  picomatch ??= load('picomatch') as typeof PicomatchPackage;
  return picomatch;
}
