declare module '*/scripts/chromium.mjs' {
  export function findChromium(): string | null;
  export const CHROMIUM_ARGS: string[];
}
declare module '*/scripts/electron-binary.mjs' {
  export function electronBinary(): string | null;
}
declare module '*/scripts/ensure-build.mjs' {
  export const root: string;
  export const MAIN_SOURCES: string[];
  export function ensureBuild(say?: (message: string) => void, sources?: readonly string[]): void;
  export function buildIsStale(sources?: readonly string[]): boolean;
}
declare module '*/scripts/host-flags.mjs' {
  export const WEB_HOST_NODE_FLAGS: string[];
}
