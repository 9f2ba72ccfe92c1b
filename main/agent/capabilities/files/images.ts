import type { Metadata, Sharp } from 'sharp';
import { loadSharp, loadedSharp } from './sharp';
import { ToolInputError } from '#contract/tool';
import { type FileKind, IMAGE_MIME, type ImageFormat, MODEL_IMAGE_FORMATS } from './file-type';
import { formatBytes } from '#protocol/helpers/units';

/** Limits for images sent to the model (env overrides: DEFT_IMAGE_MAX_EDGE_PX, DEFT_IMAGE_READ_BYTE_BUDGET). */
export interface ImageLimits {
  maxEdge: number;
  readBudget: number;
  fullBudget: number;
  maxFileBytes: number;
  maxPixels: number;
}

function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}

export function imageLimits(): ImageLimits {
  return {
    maxEdge: envNumber('DEFT_IMAGE_MAX_EDGE_PX', 2000),
    readBudget: envNumber('DEFT_IMAGE_READ_BYTE_BUDGET', 256 * 1024),
    fullBudget: 3.75 * 1024 * 1024,
    maxFileBytes: 100 * 1024 * 1024,
    maxPixels: 100_000_000,
  };
}

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface DeliveredImage {
  data: Buffer;
  mimeType: string;
  width: number;
  height: number;
  original: { format: ImageFormat; bytes: number; width: number; height: number; animated: boolean };
  mode: 'untouched' | 'downsampled' | 'crop' | 'full';
  /** How it was encoded, e.g. "JPEG quality 80". */
  encoding: string;
}

const EDGE_LADDER = [2000, 1000, 768, 512, 384, 256];
const QUALITY_LADDER = [80, 60, 40, 20];
/** Screenshots (PNG) stay legible: never scaled below this edge. */
const PNG_MIN_EDGE = 1000;

function conversionCommand(from: string): string {
  if (process.platform === 'darwin') return `\`sips -s format png "${from}" --out converted.png\``;
  if (process.platform === 'win32') return `\`magick "${from}" converted.png\` (ImageMagick), or open it in Paint and save as PNG`;
  return `\`magick "${from}" converted.png\` (ImageMagick; \`convert\` on older versions)`;
}

/** Why a file cannot be shown to the model as an image, and what to do instead. */
export function notModelImageMessage(display: string, kind: FileKind): string {
  if (kind.kind === 'image' && kind.format === 'svg') {
    return `${display} is an SVG (vector graphics, which is text): Read it as text, or rasterize a copy (e.g. \`rsvg-convert -o converted.png "${display}"\`) and open that with ReadMediaFile.`;
  }
  if (kind.kind === 'image') {
    return `${display} is a ${kind.format.toUpperCase()} image; only PNG, JPEG, GIF and WebP can be shown to the model. Convert a copy first, e.g. ${conversionCommand(display)}, then open converted.png with ReadMediaFile.`;
  }
  if (kind.kind === 'video') {
    return `${display} is a video (${kind.format}); Deft shows the model images only. Extract still frames (e.g. \`ffmpeg -i "${display}" -vf fps=1 frame_%03d.png\`) and open them with ReadMediaFile.`;
  }
  if (kind.kind === 'text') return `${display} is a text file, not an image. Use Read to see it.`;
  return `${display} is not an image (it is ${kind.format}).`;
}

interface Decoded {
  meta: Metadata;
  width: number;
  height: number;
  animated: boolean;
}

async function decode(bytes: Buffer, display: string, limits: ImageLimits): Promise<Decoded> {
  const sharp = await loadSharp();
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: limits.maxPixels }).metadata();
  } catch (error) {
    throw new ToolInputError(`${display} could not be decoded as an image (${(error as Error).message}). It may be damaged or truncated.`);
  }
  if (!meta.width || !meta.height) throw new ToolInputError(`${display} has no readable dimensions; it may be damaged.`);
  if (meta.width * meta.height > limits.maxPixels) {
    throw new ToolInputError(
      `${display} is ${meta.width}×${meta.height} px, over the ${limits.maxPixels / 1e6} megapixel limit for decoding. Make a smaller copy first.`,
    );
  }
  // EXIF orientations 5–8 swap width and height once the image is turned upright.
  const turned = (meta.orientation ?? 1) >= 5;
  return { meta, width: turned ? meta.height : meta.width, height: turned ? meta.width : meta.height, animated: (meta.pages ?? 1) > 1 };
}

function pipeline(bytes: Buffer, limits: ImageLimits) {
  return loadedSharp()(bytes, { limitInputPixels: limits.maxPixels, animated: false }).rotate();
}

type Encoded = { data: Buffer; width: number; height: number; mimeType: string; encoding: string };

/**
 * Try each edge (largest first), and at each edge PNG (when asked) then lossy qualities from high to
 * low, until one fits the budget. The source is decoded once, at the largest edge.
 */
async function encodeLadder(make: () => Sharp, edges: number[], budget: number, alpha: boolean, tryPng: boolean): Promise<Encoded | null> {
  const top = edges[0]!;
  const base = await make().resize({ width: top, height: top, fit: 'inside', withoutEnlargement: true }).raw().toBuffer({ resolveWithObject: true });
  const raw = { width: base.info.width, height: base.info.height, channels: base.info.channels };
  for (const edge of edges) {
    const resized = () => loadedSharp()(base.data, { raw }).resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true });
    if (tryPng) {
      const { data, info } = await resized().png({ compressionLevel: 9, adaptiveFiltering: true }).toBuffer({ resolveWithObject: true });
      if (data.length <= budget) return { data, width: info.width, height: info.height, mimeType: 'image/png', encoding: 'PNG' };
    }
    for (const quality of QUALITY_LADDER) {
      const encoder = alpha ? resized().webp({ quality }) : resized().jpeg({ quality });
      const { data, info } = await encoder.toBuffer({ resolveWithObject: true });
      if (data.length <= budget) {
        return {
          data,
          width: info.width,
          height: info.height,
          mimeType: alpha ? 'image/webp' : 'image/jpeg',
          encoding: `${alpha ? 'WebP' : 'JPEG'} quality ${quality}`,
        };
      }
    }
  }
  return null;
}

/**
 * Prepare an image file's bytes for the model: untouched when it already fits, otherwise scaled to
 * the edge limit and re-encoded down a quality ladder until it fits the byte budget; a region is
 * cropped in original pixels; full resolution passes the original bytes when they fit.
 */
export async function deliverImage(
  bytes: Buffer,
  format: ImageFormat,
  display: string,
  options: { region?: Region; fullResolution?: boolean },
  limits = imageLimits(),
): Promise<DeliveredImage> {
  if (!MODEL_IMAGE_FORMATS.has(format)) throw new ToolInputError(notModelImageMessage(display, { kind: 'image', format }));
  const decoded = await decode(bytes, display, limits);
  const original = { format, bytes: bytes.length, width: decoded.width, height: decoded.height, animated: decoded.animated };
  const alpha = decoded.meta.hasAlpha === true;
  const longEdge = Math.max(decoded.width, decoded.height);
  const mimeType = IMAGE_MIME[format];

  if (options.region) {
    const r = options.region;
    if (r.x + r.width > decoded.width || r.y + r.height > decoded.height) {
      throw new ToolInputError(
        `The region (x ${r.x}, y ${r.y}, ${r.width}×${r.height}) reaches outside ${display}, which is ${decoded.width}×${decoded.height} px. Give a region inside the image, in original pixels.`,
      );
    }
    const make = () => pipeline(bytes, limits).extract({ left: r.x, top: r.y, width: r.width, height: r.height });
    const edge = options.fullResolution ? Math.max(r.width, r.height) : Math.min(limits.maxEdge, Math.max(r.width, r.height));
    const encoded = await encodeLadder(make, [edge, ...EDGE_LADDER.filter((e) => e < edge)], limits.fullBudget, alpha, true);
    if (!encoded)
      throw new ToolInputError(`The region of ${display} does not fit ${formatBytes(limits.fullBudget)} even scaled down. Choose a smaller region.`);
    return { ...encoded, original, mode: 'crop' };
  }

  if (options.fullResolution) {
    if (bytes.length > limits.fullBudget) {
      throw new ToolInputError(
        `${display} is ${formatBytes(bytes.length)}, over the ${formatBytes(limits.fullBudget)} limit for full resolution. Read a region of it (in original pixels, ${decoded.width}×${decoded.height}) instead, or leave full_resolution off for a scaled view.`,
      );
    }
    const orientation = decoded.meta.orientation ?? 1;
    if (orientation === 1) return { data: bytes, mimeType, width: decoded.width, height: decoded.height, original, mode: 'full', encoding: 'original file' };
    const encoded = await encodeLadder(() => pipeline(bytes, limits), [longEdge], limits.fullBudget, alpha, format === 'png');
    if (encoded) return { ...encoded, original, mode: 'full' };
    throw new ToolInputError(`${display} does not fit ${formatBytes(limits.fullBudget)} at full resolution once turned upright. Read a region of it instead.`);
  }

  const upright = (decoded.meta.orientation ?? 1) === 1;
  if (upright && longEdge <= limits.maxEdge && bytes.length <= limits.readBudget) {
    return { data: bytes, mimeType, width: decoded.width, height: decoded.height, original, mode: 'untouched', encoding: 'original file' };
  }
  const top = Math.min(limits.maxEdge, longEdge);
  const floor = format === 'png' ? PNG_MIN_EDGE : 0;
  const edges = [top, ...EDGE_LADDER.filter((e) => e < top && e >= Math.min(floor, top))];
  const encoded = await encodeLadder(() => pipeline(bytes, limits), edges, limits.readBudget, alpha, false);
  if (!encoded) {
    throw new ToolInputError(
      `${display} (${decoded.width}×${decoded.height}) cannot be made to fit ${formatBytes(limits.readBudget)} without becoming unreadable. Read a region of it, use full_resolution (up to ${formatBytes(limits.fullBudget)}), or make a smaller copy.`,
    );
  }
  return { ...encoded, original, mode: 'downsampled' };
}

/** A small preview for the window (never sent to the model). */
export async function previewDataUrl(bytes: Buffer, edge = 640): Promise<{ dataUrl: string; width: number; height: number }> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(bytes, { limitInputPixels: 100_000_000, animated: false })
    .rotate()
    .resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true })
    .webp({ quality: 72 })
    .toBuffer({ resolveWithObject: true });
  return { dataUrl: `data:image/webp;base64,${data.toString('base64')}`, width: info.width, height: info.height };
}

/** The note that tells the model what it is looking at. */
export function deliveryNote(display: string, image: DeliveredImage, limits = imageLimits()): string {
  const o = image.original;
  const parts = [
    `Image ${display}: ${o.format.toUpperCase()}, ${formatBytes(o.bytes)}, ${o.width}×${o.height} px${o.animated ? ', animated (first frame shown unless untouched)' : ''}.`,
  ];
  const size = `${image.width}×${image.height} (${image.encoding}, ${formatBytes(image.data.length)})`;
  if (image.mode === 'untouched') parts.push('Delivered untouched.');
  else if (image.mode === 'full') parts.push(`Delivered at full resolution: ${size}.`);
  else if (image.mode === 'crop')
    parts.push(`Delivered a crop: ${size}. Coordinates in it are relative to the region; add the region's x and y for original pixels.`);
  else parts.push(`Delivered downsampled to ${size} to fit ${limits.maxEdge} px and ${formatBytes(limits.readBudget)}.`);
  if (image.mode !== 'crop' && image.width !== o.width) {
    parts.push(`Coordinates you read in it are in delivered pixels; multiply by ${(o.width / image.width).toFixed(3)} for original pixels (for region).`);
  }
  if (image.mode === 'downsampled') parts.push('For fine detail, read a region (in original pixels) or use full_resolution.');
  parts.push('If you change or regenerate this image, read it again to see the result.');
  return `<system>${parts.join(' ')}</system>`;
}
