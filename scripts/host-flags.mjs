// V8 flags the web host runs with (`npm start` without Electron, `npm run web`, and the e2e and bench hosts).
//
// A long-lived host reads logs of tens of MiB in bursts (a 20,000-message session is about 100 MiB). Reading one
// grows V8's young generation to its largest (two 16 MiB semi-spaces by default) and the host keeps that committed
// for as long as it runs: about 20 MiB of RSS the session does not hold. With 4 MiB semi-spaces opening it costs
// the same CPU (`npm run bench session-open`) and the host stays within 30 MiB of a small session (issue 36).
export const WEB_HOST_NODE_FLAGS = ['--max-semi-space-size=4'];
