import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { core } from './core';

// The component tests' setup: `window.deft` is the real bridge over the stand-in core, set before the
// renderer's bridge module reads it. Each test starts with no rendered tree and no recorded commands.
window.deft = core.bridge;

afterEach(() => {
  cleanup();
  core.reset();
  localStorage.clear();
});
