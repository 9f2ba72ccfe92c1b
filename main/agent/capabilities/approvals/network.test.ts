import { describe, expect, it } from 'vitest';
import type { CoreContext, SessionHandle } from '#contract/capability';
import { networkApprovals } from './network';
import type { ApprovalDesk, ApprovalRequest } from './requests';

// A network question says which machine's network it is about: a remote workspace's sandboxed command connects from there.

function asked(): { desk: ApprovalDesk; requests: ApprovalRequest[] } {
  const requests: ApprovalRequest[] = [];
  const desk = {
    rules: { files: { local: '.deft/settings.local.json' } },
    requestApproval: async (_session: SessionHandle, request: ApprovalRequest) => {
      requests.push(request);
      return { decision: 'reject' as const };
    },
  } as unknown as ApprovalDesk;
  return { desk, requests };
}

const session = { state: () => ({ get: () => [], set: () => {} }) } as unknown as SessionHandle;
const core = { host: { canAsk: true } } as unknown as CoreContext;

describe('network questions', () => {
  it('name the remote machine a connection would leave from, and nothing for this one', async () => {
    const { desk, requests } = asked();
    const approvals = networkApprovals(core, desk);
    const signal = new AbortController().signal;
    await approvals.authorizeConnection(session, { host: '127.0.0.1', port: 8080, label: 'curl', machine: 'me@build:2222' }, signal);
    await approvals.authorizeConnection(session, { host: 'example.com', port: 443, label: 'curl' }, signal);
    expect(requests[0]).toMatchObject({
      description: 'Connect to 127.0.0.1:8080 from me@build:2222',
      reason: expect.stringContaining("on me@build:2222 wants to reach 127.0.0.1:8080 from that machine's network"),
    });
    expect(requests[1]).toMatchObject({ description: 'Connect to example.com:443', reason: expect.not.stringContaining('machine') });
  });
});
