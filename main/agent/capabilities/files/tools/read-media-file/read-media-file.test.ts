import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContentPart } from '#contract/model';
import { type FileToolKit, fileToolKit } from '#test-support/file-tools';

let kit: FileToolKit;
beforeEach(async () => {
  kit = await fileToolKit({ imageInput: true });
});
afterEach(async () => {
  await kit.dispose();
});

/** Hard-to-compress pixels (blocky noise: cheap to make, still large once encoded). */
const noise = (width: number, height: number) =>
  sharp({
    create: { width: Math.ceil(width / 4), height: Math.ceil(height / 4), channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
  }).resize(width, height, { kernel: 'nearest' });
const flat = (width: number, height: number) => sharp({ create: { width, height, channels: 4, background: { r: 40, g: 90, b: 200, alpha: 1 } } });

function imagePart(output: string | ContentPart[]): { mimeType: string; data: Buffer } {
  const parts = output as ContentPart[];
  const image = parts.find((p) => p.type === 'image');
  if (!image || image.type !== 'image') throw new Error('no image part');
  return { mimeType: image.mimeType, data: Buffer.from(image.data, 'base64') };
}

describe('ReadMediaFile', () => {
  it('sends a small image untouched, wrapped in an <image> tag, with a note and a preview', async () => {
    const png = await flat(120, 80).png().toBuffer();
    await kit.put('ui/button.png', png);
    const { result, execution } = await kit.call('ReadMediaFile', { path: 'ui/button.png' });
    const parts = result.output as ContentPart[];
    expect(parts[0]).toEqual({ type: 'text', text: '<image path="ui/button.png">' });
    expect(parts[2]).toEqual({ type: 'text', text: '</image>' });
    expect(imagePart(parts)).toEqual({ mimeType: 'image/png', data: png });
    expect(result.note).toMatch(/^<system>Image ui\/button\.png: PNG, \d+ B, 120×80 px\. Delivered untouched\./);
    expect(result.display).toMatchObject({
      kind: 'image',
      path: 'ui/button.png',
      mimeType: 'image/png',
      width: 120,
      height: 80,
      caption: expect.stringContaining('120×80 PNG · sent original'),
    });
    expect((result.display as { dataUrl: string }).dataUrl).toMatch(/^data:image\/webp;base64,/);
    expect(execution!.readOnly).toBe(true);
    expect(execution!.approvalRule).toMatch(/^ReadMediaFile\(.*ui\/button\.png\)$/);
  });

  it('downsamples a large image to 2,000 px and 256 KiB, and says how to map coordinates', async () => {
    await kit.put('photo.jpg', await noise(3000, 2000).jpeg({ quality: 90 }).toBuffer());
    const { result } = await kit.call('ReadMediaFile', { path: 'photo.jpg' });
    const { mimeType, data } = imagePart(result.output);
    expect(mimeType).toBe('image/jpeg');
    expect(data.length).toBeLessThanOrEqual(256 * 1024);
    const meta = await sharp(data).metadata();
    expect(Math.max(meta.width, meta.height)).toBeLessThanOrEqual(2000);
    expect(result.note).toMatch(/Delivered downsampled to \d+×\d+ \(JPEG quality \d+, [\d.]+ KiB\) to fit 2000 px and 256 KiB\./);
    expect(result.note).toMatch(/multiply by \d\.\d{3} for original pixels/);
  });

  it('never scales a PNG screenshot below 1,000 px', async () => {
    await kit.put('shot.png', await noise(2400, 1400).png().toBuffer());
    const { result } = await kit.call('ReadMediaFile', { path: 'shot.png' });
    const meta = await sharp(imagePart(result.output).data).metadata();
    expect(Math.max(meta.width, meta.height)).toBeGreaterThanOrEqual(1000);
  });

  it('crops a region given in original pixels, and refuses one outside the image', async () => {
    await kit.put('big.png', await flat(3000, 2000).png().toBuffer());
    const { result } = await kit.call('ReadMediaFile', { path: 'big.png', region: { x: 100, y: 200, width: 300, height: 150 } });
    const meta = await sharp(imagePart(result.output).data).metadata();
    expect([meta.width, meta.height]).toEqual([300, 150]);
    expect(result.note).toContain('Delivered a crop: 300×150');
    const outside = await kit.call('ReadMediaFile', { path: 'big.png', region: { x: 2900, y: 0, width: 200, height: 10 } });
    expect(outside.text).toBe(
      'The region (x 2900, y 0, 200×10) reaches outside big.png, which is 3000×2000 px. Give a region inside the image, in original pixels.',
    );
    expect((await kit.call('ReadMediaFile', { path: 'big.png', region: { x: 0, y: 0, width: 0, height: 1 } })).text).toMatch(/must be >= 1/);
  });

  it('sends full resolution up to 3.75 MiB and refuses more, pointing to region', async () => {
    const small = await noise(800, 600).jpeg({ quality: 90 }).toBuffer();
    await kit.put('small.jpg', small);
    const { result } = await kit.call('ReadMediaFile', { path: 'small.jpg', full_resolution: true });
    expect(imagePart(result.output).data).toEqual(small);
    await kit.put('huge.png', await flat(2400, 2000).png({ compressionLevel: 0 }).toBuffer());
    const refused = await kit.call('ReadMediaFile', { path: 'huge.png', full_resolution: true });
    expect(refused.text).toMatch(
      /^huge\.png is [\d.]+ MiB, over the 3\.8 MiB limit for full resolution\. Read a region of it \(in original pixels, 2400×2000\) instead/,
    );
  });

  it('turns EXIF-rotated photos upright and reports upright dimensions', async () => {
    await kit.put('rotated.jpg', await noise(400, 200).jpeg().withMetadata({ orientation: 6 }).toBuffer());
    const { result } = await kit.call('ReadMediaFile', { path: 'rotated.jpg' });
    const meta = await sharp(imagePart(result.output).data).metadata();
    expect([meta.width, meta.height]).toEqual([200, 400]);
    expect(result.note).toContain('200×400 px');
  });

  it('refuses other formats with a conversion hint, and non-images with the right pointer', async () => {
    await kit.put('scan.tiff', await flat(10, 10).tiff().toBuffer());
    expect((await kit.call('ReadMediaFile', { path: 'scan.tiff' })).text).toMatch(
      /^scan\.tiff is a TIFF image; only PNG, JPEG, GIF and WebP can be shown to the model\. Convert a copy first, e\.g\. `/,
    );
    await kit.put('logo.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>');
    expect((await kit.call('ReadMediaFile', { path: 'logo.svg' })).text).toMatch(/is an SVG .* Read it as text, or rasterize a copy/);
    await kit.put('notes.txt', 'hello\n');
    expect((await kit.call('ReadMediaFile', { path: 'notes.txt' })).text).toBe('notes.txt is a text file, not an image. Use Read to see it.');
    await kit.put('clip.webm', Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 1, 2, 3]));
    expect((await kit.call('ReadMediaFile', { path: 'clip.webm' })).text).toMatch(/is a video .* Extract still frames/);
    await kit.put('empty.png', '');
    expect((await kit.call('ReadMediaFile', { path: 'empty.png' })).text).toBe('empty.png is empty (0 bytes), so there is no image to show.');
    await kit.put('broken.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]));
    expect((await kit.call('ReadMediaFile', { path: 'broken.png' })).text).toMatch(/^broken\.png could not be decoded as an image/);
    expect((await kit.call('ReadMediaFile', { path: '.env' })).text).toMatch(/sensitive file/);
  });

  it('refuses a damaged image whose header still reads, whether it would be sent untouched or scaled', async () => {
    const small = await noise(200, 150).png().toBuffer();
    const large = await noise(2400, 1600).jpeg().toBuffer();
    await kit.put('cut-small.png', small.subarray(0, Math.floor(small.length / 2)));
    await kit.put('cut-large.jpg', large.subarray(0, Math.floor(large.length / 2)));
    for (const path of ['cut-small.png', 'cut-large.jpg']) {
      const { result } = await kit.call('ReadMediaFile', { path });
      expect(result.isError).toBe(true);
      expect(result.output).toMatch(new RegExp(`^${path.replace('.', '\\.')} could not be decoded as an image \\(.+\\)\\. It may be damaged or truncated`));
    }
  });

  it('is refused clearly when the model has no image input', async () => {
    const textOnly = await fileToolKit({ imageInput: false });
    try {
      await textOnly.put('a.png', await flat(4, 4).png().toBuffer());
      const { result } = await textOnly.call('ReadMediaFile', { path: 'a.png' });
      expect(result.isError).toBe(true);
      expect(result.output).toMatch(/^The configured model does not accept image input.*This model accepts images/);
    } finally {
      await textOnly.dispose();
    }
  });
});
