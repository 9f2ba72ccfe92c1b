import type { ResolvedCall } from '#contract/calls';

/** What a host adds to the rules for its run (`deft run --allowed-tools / --disallowed-tools`); never written to a file. */
export interface ApprovalsOptions {
  /** Rules approved in advance for the run, as "approve for session" approves them (never more: deny rules, protected paths and the hard walls still hold). */
  allow?: readonly string[];
  /** Deny rules for the run, on top of the settings' own. */
  deny?: readonly string[];
  /** Where the rules came from, named in the model's refusal ("in --disallowed-tools"). */
  origin?: { allow: string; deny: string };
  /**
   * Answers, in the user's place, what the mode and rules leave to the user (deft run --permission-prompt-tool): an
   * allow is an "approve once", never more. Not asked about protected paths or commands Deft cannot place (those
   * are approved by a person, one call at a time): headless, those are refused.
   */
  approver?: (call: ResolvedCall) => Promise<{ allowed: true } | { allowed: false; message: string }>;
  /** Told of every call refused (by a rule, the mode, or a rejected approval). */
  onDenied?: (call: ResolvedCall, message: string) => void;
}
