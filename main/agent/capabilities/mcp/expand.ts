/**
 * Expand `${VAR}` and `${VAR:-default}` in a string from `env`. A variable that is unset (and has no
 * default) is reported, and expands to the empty string.
 */
export function expandVariables(text: string, env: Readonly<Record<string, string | undefined>>, missing: Set<string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    if (value === undefined) missing.add(name);
    return '';
  });
}

/** Expand variables in every string of a JSON value (keys stay as written). */
export function expandDeep<T>(value: T, env: Readonly<Record<string, string | undefined>>, missing: Set<string>): T {
  if (typeof value === 'string') return expandVariables(value, env, missing) as T;
  if (Array.isArray(value)) return value.map((v) => expandDeep(v, env, missing)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandDeep(v, env, missing)])) as T;
  }
  return value;
}
