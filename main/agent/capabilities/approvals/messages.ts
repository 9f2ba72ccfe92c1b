import type { PermissionMode } from '#protocol';
import type { ResolvedCall } from '#contract/calls';
import type { RuleFilePaths } from './rule-files';

export const MODE_SUMMARY: Record<PermissionMode, string> = {
  ask: 'read-only tools run; file edits, shell commands and everything else wait for the user to approve them',
  'accept-edits': 'read-only tools and Write/Edit inside the workspace run without asking; shell commands and everything else wait for approval',
  yolo: 'every call runs without asking, except what a deny rule forbids and writes to protected paths (.git/, Deft settings, secrets)',
};

export function rejectionMessage(call: ResolvedCall, feedback: string | undefined): string {
  const base = `The user rejected this ${call.name} call, so it did not run.`;
  const text = feedback?.trim();
  if (text) return `${base} Their feedback: "${text}". Adjust your approach to it before trying again.`;
  return `${base} Do not retry it as it is; if you are unsure what they want, ask them.`;
}

export function cancelledMessage(call: ResolvedCall): string {
  return `The user stopped the turn before answering the approval for this ${call.name} call, so it did not run. Do not retry it unless the user asks.`;
}

/** A headless run (nobody to ask) refuses the call and names the rule that would allow it. */
export function headlessDenial(call: ResolvedCall, reason: string, rememberable: boolean, files: RuleFilePaths, exactOnly = false, runFlag?: string): string {
  const head = `${call.name} needs approval (${reason.replace(/\.$/, '')}) and this run is headless, so nobody can approve it: it did not run.`;
  if (!rememberable) return `${head} Protected paths always need approval, so this cannot run headless; do it from the Deft window instead.`;
  const rule = call.execution.approvalRule;
  const mode = call.policy.approval === 'edit' ? 'accept-edits (or yolo)' : 'yolo';
  const allow = `${head} To allow it, add the rule "${rule}" to "permissions.allow" in ${files.project} (or ${files.user})${runFlag ? `, rerun with ${runFlag} '${rule}'` : ''}`;
  return exactOnly ? `${allow}.` : `${allow}, or rerun with --permission-mode ${mode}.`;
}
