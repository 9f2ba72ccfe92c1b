import type SharpFactory from 'sharp';

// sharp is a native library that takes longer to load than the rest of a run that reads no image: it is
// loaded with the first image.

let loaded: typeof SharpFactory | undefined;

export async function loadSharp(): Promise<typeof SharpFactory> {
  loaded ??= (await import('sharp')).default;
  return loaded;
}

/** sharp, once `loadSharp` has loaded it (every image path decodes the image first). */
export function loadedSharp(): typeof SharpFactory {
  if (!loaded) throw new Error('sharp is used before it was loaded.');
  return loaded;
}
