import { z } from 'zod';
import { SNIFF_BYTES, sniff } from '../../file-type';
import { deliverImage, deliveryNote, imageLimits, notModelImageMessage, previewDataUrl } from '../../images';
import { asToolError, existingFile, guard, pathRules } from '../../tool-support';
import { formatBytes } from '#protocol/helpers/units';
import { type Tool, type ToolResult, ToolInputError, access, defineTool } from '#contract/tool';
import description from './read-media-file.md?raw';
import { toolInput, type SchemaOf } from '#contract/tool-input';

const input = toolInput('ReadMediaFile', () =>
  z.object({
    path: z.string().describe('The image file: relative to the workspace, or absolute.'),
    region: z
      .object({
        x: z.number().int().min(0),
        y: z.number().int().min(0),
        width: z.number().int().min(1),
        height: z.number().int().min(1),
      })
      .optional()
      .describe('Only this part of the image, in original pixels (left, top, width, height).'),
    full_resolution: z.boolean().optional().describe('Send the image unscaled (up to 3.75 MiB). Default false.'),
  }),
);

export const NO_IMAGE_INPUT =
  'The configured model does not accept image input, so ReadMediaFile cannot show it images. If the model does support images, turn on "This model accepts images" in Settings → Model provider; otherwise ask the user to describe the image.';

export function readMediaFileTool(): Tool<SchemaOf<typeof input>> {
  return defineTool({
    name: 'ReadMediaFile',
    policy: { approval: 'rules', mainAgentOnly: false },
    description,
    input,
    async resolveExecution(args, env) {
      if (!env.capabilities.imageInput) throw new ToolInputError(NO_IMAGE_INPUT);
      const path = await guard(env, args.path, 'read');
      const detail = args.region
        ? `region ${args.region.x},${args.region.y} ${args.region.width}×${args.region.height}`
        : args.full_resolution
          ? 'full resolution'
          : undefined;
      return {
        accesses: access.readFile(path.real),
        description: `View ${path.display}${detail ? ` (${detail})` : ''}`,
        display: { kind: 'file_io', operation: 'media', path: path.display, ...(detail ? { detail } : {}) },
        ...pathRules('ReadMediaFile', path),
        readOnly: true,
        execute: () =>
          asToolError(async (): Promise<ToolResult> => {
            const limits = imageLimits();
            const stats = await existingFile(env.environment, path, 'Check the path; Glob finds files by name (e.g. "*.png").');
            if (stats.size === 0) throw new ToolInputError(`${path.display} is empty (0 bytes), so there is no image to show.`);
            if (stats.size > limits.maxFileBytes)
              throw new ToolInputError(
                `${path.display} is ${formatBytes(stats.size)}, over the ${formatBytes(limits.maxFileBytes)} limit. Make a smaller copy first.`,
              );
            const bytes = await env.environment.readBytes(path.real);
            const kind = sniff(bytes.subarray(0, SNIFF_BYTES), path.real);
            if (kind.kind !== 'image') throw new ToolInputError(notModelImageMessage(path.display, kind));
            let image: Awaited<ReturnType<typeof deliverImage>>;
            let preview: Awaited<ReturnType<typeof previewDataUrl>>;
            try {
              image = await deliverImage(
                bytes,
                kind.format,
                path.display,
                { ...(args.region ? { region: args.region } : {}), ...(args.full_resolution ? { fullResolution: true } : {}) },
                limits,
              );
              // Decodes the whole image (the header alone was checked so far), so a damaged file never reaches the model.
              preview = await previewDataUrl(image.data);
            } catch (error) {
              if (error instanceof ToolInputError) throw error;
              throw new ToolInputError(
                `${path.display} could not be decoded as an image (${(error as Error).message}). It may be damaged or truncated; ask the user for an intact copy.`,
              );
            }
            const mode = image.mode === 'untouched' ? 'original' : image.mode;
            return {
              output: [
                { type: 'text', text: `<image path="${path.display}">` },
                { type: 'image', mimeType: image.mimeType, data: image.data.toString('base64') },
                { type: 'text', text: '</image>' },
              ],
              note: deliveryNote(path.display, image, limits),
              display: {
                kind: 'image',
                path: path.display,
                mimeType: image.mimeType,
                dataUrl: preview.dataUrl,
                width: image.original.width,
                height: image.original.height,
                caption: `${image.original.width}×${image.original.height} ${image.original.format.toUpperCase()} · sent ${mode}${image.mode === 'untouched' ? '' : ` as ${image.width}×${image.height}`} (${formatBytes(image.data.length)})`,
              },
            };
          }),
      };
    },
  });
}
