import { extname } from 'node:path';

/** What the first bytes (and, failing that, the extension) say a file is. */
export type FileKind = { kind: 'text' } | { kind: 'image'; format: ImageFormat } | { kind: 'video'; format: string } | { kind: 'binary'; format: string };

/** Image formats Deft recognises; only the first four ever reach a model. */
export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp' | 'tiff' | 'ico' | 'avif' | 'heic' | 'svg' | 'psd';

export const MODEL_IMAGE_FORMATS: ReadonlySet<ImageFormat> = new Set(['png', 'jpeg', 'gif', 'webp']);

export const IMAGE_MIME: Record<ImageFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
  ico: 'image/x-icon',
  avif: 'image/avif',
  heic: 'image/heic',
  svg: 'image/svg+xml',
  psd: 'image/vnd.adobe.photoshop',
};

/** How many bytes `sniff` looks at. */
export const SNIFF_BYTES = 512;

const IMAGE_EXTENSIONS: Record<string, ImageFormat> = {
  '.png': 'png',
  '.jpg': 'jpeg',
  '.jpeg': 'jpeg',
  '.gif': 'gif',
  '.webp': 'webp',
  '.bmp': 'bmp',
  '.tif': 'tiff',
  '.tiff': 'tiff',
  '.ico': 'ico',
  '.avif': 'avif',
  '.heic': 'heic',
  '.heif': 'heic',
  '.psd': 'psd',
};

const VIDEO_EXTENSIONS = new Set(['.mp4', '.m4v', '.mov', '.webm', '.mkv', '.avi', '.wmv', '.flv', '.mpg', '.mpeg', '.3gp', '.ogv']);

const BINARY_EXTENSIONS = new Set([
  '.pdf',
  '.doc',
  '.docx',
  '.xls',
  '.xlsx',
  '.ppt',
  '.pptx',
  '.odt',
  '.ods',
  '.odp',
  '.pages',
  '.numbers',
  '.key',
  '.zip',
  '.gz',
  '.tgz',
  '.bz2',
  '.xz',
  '.zst',
  '.7z',
  '.rar',
  '.tar',
  '.jar',
  '.war',
  '.apk',
  '.ipa',
  '.dmg',
  '.iso',
  '.mp3',
  '.wav',
  '.flac',
  '.ogg',
  '.oga',
  '.m4a',
  '.aac',
  '.opus',
  '.wma',
  '.ttf',
  '.otf',
  '.woff',
  '.woff2',
  '.eot',
  '.exe',
  '.dll',
  '.so',
  '.dylib',
  '.o',
  '.a',
  '.lib',
  '.obj',
  '.bin',
  '.class',
  '.pyc',
  '.pyo',
  '.wasm',
  '.node',
  '.sqlite',
  '.sqlite3',
  '.db',
  '.mdb',
  '.parquet',
  '.avro',
  '.npy',
  '.npz',
  '.pkl',
  '.pickle',
  '.h5',
  '.onnx',
  '.pt',
  '.safetensors',
]);

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((b, i) => bytes[offset + i] === b);
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, Math.min(end, bytes.length)));
}

/** Magic bytes → kind, or null when the header proves nothing. */
function fromMagic(bytes: Uint8Array): FileKind | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { kind: 'image', format: 'png' };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { kind: 'image', format: 'jpeg' };
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') return { kind: 'image', format: 'gif' };
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return { kind: 'image', format: 'webp' };
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'AVI ') return { kind: 'video', format: 'avi' };
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WAVE') return { kind: 'binary', format: 'WAV audio' };
  if (startsWith(bytes, [0x42, 0x4d]) && bytes.length >= 26 && bytes[14]! >= 12 && bytes[14]! <= 124 && bytes[15] === 0)
    return { kind: 'image', format: 'bmp' };
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return { kind: 'image', format: 'tiff' };
  if (startsWith(bytes, [0x00, 0x00, 0x01, 0x00]) && bytes.length >= 6 && bytes[4]! > 0) return { kind: 'image', format: 'ico' };
  if (ascii(bytes, 0, 4) === '8BPS') return { kind: 'image', format: 'psd' };
  if (ascii(bytes, 4, 8) === 'ftyp') {
    const brand = ascii(bytes, 8, 12);
    if (brand === 'avif' || brand === 'avis') return { kind: 'image', format: 'avif' };
    if (['heic', 'heix', 'hevc', 'hevx', 'mif1', 'msf1'].includes(brand)) return { kind: 'image', format: 'heic' };
    if (brand.startsWith('M4A') || brand === 'M4B ') return { kind: 'binary', format: 'M4A audio' };
    return { kind: 'video', format: brand.startsWith('qt') ? 'mov' : 'mp4' };
  }
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) return { kind: 'video', format: 'webm/mkv' };
  if (ascii(bytes, 0, 5) === '%PDF-') return { kind: 'binary', format: 'PDF' };
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06])) return { kind: 'binary', format: 'ZIP archive' };
  if (startsWith(bytes, [0x1f, 0x8b])) return { kind: 'binary', format: 'gzip archive' };
  if (startsWith(bytes, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return { kind: 'binary', format: '7z archive' };
  if (ascii(bytes, 0, 4) === 'Rar!') return { kind: 'binary', format: 'RAR archive' };
  if (startsWith(bytes, [0x28, 0xb5, 0x2f, 0xfd])) return { kind: 'binary', format: 'zstd archive' };
  if (startsWith(bytes, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) return { kind: 'binary', format: 'xz archive' };
  if (startsWith(bytes, [0x7f, 0x45, 0x4c, 0x46])) return { kind: 'binary', format: 'ELF executable' };
  if (startsWith(bytes, [0xcf, 0xfa, 0xed, 0xfe]) || startsWith(bytes, [0xfe, 0xed, 0xfa, 0xcf]) || startsWith(bytes, [0xca, 0xfe, 0xba, 0xbe])) {
    return { kind: 'binary', format: 'Mach-O or Java class file' };
  }
  if (ascii(bytes, 0, 2) === 'MZ') return { kind: 'binary', format: 'Windows executable' };
  if (ascii(bytes, 0, 16) === 'SQLite format 3\0') return { kind: 'binary', format: 'SQLite database' };
  if (startsWith(bytes, [0x00, 0x61, 0x73, 0x6d])) return { kind: 'binary', format: 'WebAssembly module' };
  if (ascii(bytes, 0, 4) === 'wOFF' || ascii(bytes, 0, 4) === 'wOF2' || ascii(bytes, 0, 4) === 'OTTO') return { kind: 'binary', format: 'font' };
  if (ascii(bytes, 0, 3) === 'ID3' || startsWith(bytes, [0xff, 0xfb])) return { kind: 'binary', format: 'MP3 audio' };
  if (ascii(bytes, 0, 4) === 'fLaC') return { kind: 'binary', format: 'FLAC audio' };
  if (ascii(bytes, 0, 4) === 'OggS') return { kind: 'binary', format: 'Ogg media' };
  return null;
}

function isSvg(bytes: Uint8Array): boolean {
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes).trimStart().slice(0, 400).toLowerCase();
  return head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'));
}

/**
 * Classify a file from its first bytes and its name. Bytes win; a known binary extension, a NUL in
 * the header, or an image/video extension on a file whose bytes prove nothing count too.
 */
export function sniff(header: Uint8Array, path: string): FileKind {
  const ext = extname(path).toLowerCase();
  const magic = fromMagic(header);
  if (magic) return magic;
  if (ext === '.svg' && isSvg(header)) return { kind: 'image', format: 'svg' };
  const imageExt = IMAGE_EXTENSIONS[ext];
  if (imageExt) return { kind: 'image', format: imageExt };
  if (VIDEO_EXTENSIONS.has(ext)) return { kind: 'video', format: ext.slice(1) };
  if (BINARY_EXTENSIONS.has(ext)) return { kind: 'binary', format: `${ext.slice(1).toUpperCase()} file` };
  if (header.includes(0) && !isUtf16Bom(header)) return { kind: 'binary', format: 'binary data (NUL bytes)' };
  return { kind: 'text' };
}

/** A UTF-16 byte-order mark (Read transcodes such files). */
export function utf16Bom(header: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  if (startsWith(header, [0xff, 0xfe])) return 'utf-16le';
  if (startsWith(header, [0xfe, 0xff])) return 'utf-16be';
  return null;
}

function isUtf16Bom(header: Uint8Array): boolean {
  return utf16Bom(header) !== null;
}
