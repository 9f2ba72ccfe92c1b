import { ensureBuild } from '../scripts/ensure-build.mjs';

/** The specs drive the built app (web host and Electron alike). */
export default function globalSetup(): void {
  ensureBuild((message) => console.log(message));
}
