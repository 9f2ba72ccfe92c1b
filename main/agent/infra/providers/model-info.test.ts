import { describe, expect, it } from 'vitest';
import { modelInfoFrom, modelInfosFrom } from './model-info';

describe('what a model list says a model reads', () => {
  it('reads the places servers put it, and nothing when they say nothing', () => {
    expect(modelInfoFrom({ id: 'a', input_modalities: ['text', 'image'] })).toEqual({ id: 'a', imageInput: true });
    expect(modelInfoFrom({ id: 'b', architecture: { input_modalities: ['text'] } })).toEqual({ id: 'b', imageInput: false });
    expect(modelInfoFrom({ id: 'c', modalities: { input: ['image', 'text'] } })).toEqual({ id: 'c', imageInput: true });
    expect(modelInfoFrom({ id: 'kimi', supports_image_in: true })).toEqual({ id: 'kimi', imageInput: true });
    expect(modelInfoFrom({ name: 'llava', capabilities: ['completion', 'vision'] })).toEqual({ id: 'llava', imageInput: true });
    expect(modelInfoFrom({ id: 'd', capabilities: { vision: false } })).toEqual({ id: 'd', imageInput: false });
    expect(modelInfoFrom({ id: 'e', capabilities: { image_input: { supported: true } } })).toEqual({ id: 'e', imageInput: true });
    expect(modelInfoFrom({ id: 'f', object: 'model' })).toEqual({ id: 'f' });
    expect(modelInfoFrom({ id: 'g', input_modalities: 'image' })).toEqual({ id: 'g' });
    expect(modelInfoFrom(null)).toBeNull();
    expect(modelInfoFrom({ object: 'model' })).toBeNull();
  });

  it('takes the entries of `data` or `models`, skipping what is not an entry', () => {
    expect(modelInfosFrom({ data: [{ id: 'a' }, 3, { id: 'b', supports_image_in: false }] })).toEqual([{ id: 'a' }, { id: 'b', imageInput: false }]);
    expect(modelInfosFrom({ models: [{ name: 'x' }] })).toEqual([{ id: 'x' }]);
    expect(modelInfosFrom('nope')).toEqual([]);
  });
});
