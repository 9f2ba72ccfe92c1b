/**
 * `make`, called the first time the returned function is, and its value kept: what a run that never asks for it
 * (the CLI's text turn) should not pay for at start — schemas, packages.
 */
export function builtOnce<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}
