import { fakeCore } from './fake-bridge';

/** The stand-in core behind `window.deft` in the component tests (installed by setup.ts before anything loads). */
export const core = fakeCore();
