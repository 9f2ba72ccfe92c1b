import { z } from 'zod';
import { toolInputDisplaySchema } from './display';
import { goalSchemas } from './goals';
import { builtOnce } from '../helpers/built-once';

// Approvals: permission modes and rules, approval requests, questions to the user, plan mode.

/**
 * How much the agent may do without asking. Built on its own (every turn reads the session's mode), the rest of the
 * file with approvalSchemas.
 */
export const permissionModeSchema = builtOnce(() => z.enum(['ask', 'accept-edits', 'yolo']));

/** The schemas of this file, built on first use (approvalSchemas): a run that validates none of them (the CLI's text turn) never builds them. */
const buildApprovalSchemas = () => {
  const { GoalMode } = goalSchemas();
  const PermissionMode = permissionModeSchema();
  /** Where a permission rule comes from. */
  const RuleSource = z.enum(['user', 'project', 'local']);
  /** One rule as loaded from a settings file. */
  const PermissionRuleInfo = z.object({
    decision: z.enum(['allow', 'ask', 'deny']),
    pattern: z.string(),
    source: RuleSource,
    file: z.string(),
    /** An allow rule of an untrusted folder's own file: listed, but not used until the folder is trusted. */
    ignored: z.boolean().optional(),
  });
  /** A rule (or a whole file) that could not be used, with the reason. */
  const RuleProblem = z.object({ file: z.string(), rule: z.string().optional(), message: z.string() });
  /** Every rule in force and every problem found, from the three settings files. */
  const PermissionRules = z.object({
    rules: z.array(PermissionRuleInfo),
    problems: z.array(RuleProblem),
    files: z.object({ user: z.string(), project: z.string(), local: z.string() }),
    /** Until the user trusts the workspace, its own settings files cannot widen permissions; `ignored` says what is not used. */
    trust: z.object({ trusted: z.boolean(), ignored: z.array(z.string()) }),
    /** The default mode in force and the file it comes from (absent: none is set, so ask). */
    defaultMode: z.object({ mode: PermissionMode, source: RuleSource }).optional(),
  });
  /** What an approval request is about: a tool call, a plan to review, a goal to start, or a sandboxed command's connection. */
  const ApprovalKind = z.enum(['tool', 'plan_review', 'goal_start', 'network']);
  /** The user's answer to an approval request. */
  const ApprovalAnswer = z.discriminatedUnion('decision', [
    /**
     * Run it. `scope` 'session' remembers the call's rule for this session; 'always' writes it to
     * .deft/settings.local.json. `rules` replaces the call's own rule with ones the user edited (each must
     * parse, name the same tool, and together they must cover this call).
     */
    z
      .object({
        decision: z.literal('approve'),
        scope: z.enum(['once', 'session', 'always']).default('once'),
        selectedLabel: z.string().max(200).optional(),
        rules: z.array(z.string().trim().min(1).max(4_096)).min(1).max(20).optional(),
        /** Goal start only: how the goal's turns run (absent: usual). */
        goalMode: GoalMode.optional(),
      })
      .strict(),
    /** Do not run it; the feedback reaches the model. */
    z.object({ decision: z.literal('reject'), feedback: z.string().max(20_000).optional() }).strict(),
    /** Plan review only: keep planning with this feedback. */
    z.object({ decision: z.literal('revise'), feedback: z.string().trim().min(1, 'Say what to change in the plan.').max(20_000) }).strict(),
  ]);
  /** How an approval request ended. */
  const ApprovalOutcome = z.enum(['approved', 'rejected', 'revise', 'cancelled']);
  /** One question put to the user (AskUserQuestion). */
  const Question = z.object({
    question: z.string(),
    header: z.string(),
    options: z.array(z.object({ label: z.string(), description: z.string() })),
    multiSelect: z.boolean(),
  });
  /** The user's answer to one question: chosen labels and/or an "Other" text. */
  const QuestionAnswer = z
    .object({
      question: z.string().max(2_000),
      selected: z.array(z.string().max(200)).max(4).default([]),
      other: z.string().max(10_000).optional(),
    })
    .strict();
  /** Plan mode of a session. */
  const PlanState = z.object({ active: z.boolean(), planId: z.string().optional(), path: z.string().optional() });
  /** A permission rule to add to or remove from one settings file (Settings → Permissions). */
  const RuleEdit = z
    .object({
      action: z.enum(['add', 'remove']),
      source: RuleSource,
      decision: z.enum(['allow', 'ask', 'deny']),
      rule: z.string().trim().min(1).max(4_096),
    })
    .strict();
  /** A folder in ~/.deft/trust.json: trusted whole, or only with the allow rules the user approved in Deft. */
  const TrustedFolder = z.object({ path: z.string(), trusted: z.boolean(), approvedRules: z.array(z.string()), current: z.boolean() });
  /** What the user allowed for one session only ("Allow for session"): tool rules and network hosts. */
  const SessionGrants = z.object({ rules: z.array(z.string()), domains: z.array(z.string()) });
  /** One grant to take back: the next call it covered asks again. */
  const GrantRevoke = z
    .object({
      sessionId: z.string().min(1),
      kind: z.enum(['rule', 'domain']),
      value: z.string().min(1).max(4_096),
    })
    .strict();
  return {
    PermissionMode,
    RuleSource,
    PermissionRuleInfo,
    RuleProblem,
    PermissionRules,
    ApprovalKind,
    ApprovalAnswer,
    ApprovalOutcome,
    Question,
    QuestionAnswer,
    PlanState,
    RuleEdit,
    TrustedFolder,
    SessionGrants,
    GrantRevoke,
  };
};
export type ApprovalSchemas = ReturnType<typeof buildApprovalSchemas>;
export const approvalSchemas: () => ApprovalSchemas = builtOnce(buildApprovalSchemas);

// The types of the schemas above (each documented at its schema).
export type PermissionMode = z.infer<ApprovalSchemas['PermissionMode']>;
export type RuleSource = z.infer<ApprovalSchemas['RuleSource']>;
export type PermissionRuleInfo = z.infer<ApprovalSchemas['PermissionRuleInfo']>;
export type RuleProblem = z.infer<ApprovalSchemas['RuleProblem']>;
export type PermissionRules = z.infer<ApprovalSchemas['PermissionRules']>;
export type ApprovalKind = z.infer<ApprovalSchemas['ApprovalKind']>;
export type ApprovalAnswer = z.infer<ApprovalSchemas['ApprovalAnswer']>;
export type Question = z.infer<ApprovalSchemas['Question']>;
export type QuestionAnswer = z.infer<ApprovalSchemas['QuestionAnswer']>;
export type PlanState = z.infer<ApprovalSchemas['PlanState']>;
export type RuleEdit = z.infer<ApprovalSchemas['RuleEdit']>;
export type TrustedFolder = z.infer<ApprovalSchemas['TrustedFolder']>;
export type SessionGrants = z.infer<ApprovalSchemas['SessionGrants']>;
export type GrantRevoke = z.infer<ApprovalSchemas['GrantRevoke']>;

/** Shapes of the approval events, shared by events.ts (built with its schema, on first use). */
export const approvalEventShapes = () => {
  const { PermissionMode, ApprovalKind, ApprovalOutcome, Question, PlanState } = approvalSchemas();
  return {
    /** The session's permission mode changed (the model is told at its next step). */
    'permission.mode.changed': {
      mode: PermissionMode,
      previous: PermissionMode,
      /** Why, when the user did not switch it: a goal started to run without asking, or stopped. */
      reason: z.string().optional(),
    },
    /** A call waits for the user's approval; `display` is what it will do. */
    'approval.requested': {
      turnId: z.string(),
      requestId: z.string(),
      kind: ApprovalKind,
      callId: z.string().optional(),
      toolName: z.string(),
      description: z.string(),
      display: toolInputDisplaySchema(),
      /** Why it asks (the rule, the mode, a protected path). */
      reason: z.string(),
      /** The rule "approve for session" / "always allow" would store; absent when the call may only be approved once. */
      approvalRule: z.string().optional(),
      /** What that rule covers in words when it is wider than this call (e.g. a web host): the buttons name it. */
      approvalScope: z.string().optional(),
      /** Broader rules worth remembering instead (e.g. `Bash(npm test:*)` for `npm test -- --watch`), for the user to edit. */
      suggestedRules: z.array(z.string()).optional(),
      /** The sub-agent whose call this is (absent for the session's own agent). */
      agent: z.object({ agentId: z.string(), type: z.string(), description: z.string() }).optional(),
    },
    /** An approval request was answered, cancelled, or settled by a rule the user just added. */
    'approval.resolved': {
      requestId: z.string(),
      outcome: ApprovalOutcome,
      scope: z.enum(['once', 'session', 'always']).optional(),
      feedback: z.string().optional(),
      selectedLabel: z.string().optional(),
    },
    /** The model asks the user questions (AskUserQuestion). */
    'question.asked': { turnId: z.string(), requestId: z.string(), callId: z.string(), questions: z.array(Question) },
    /** The questions were answered or dismissed (or the turn stopped). */
    'question.answered': { requestId: z.string(), answers: z.record(z.string(), z.string()), dismissed: z.boolean() },
    /** Plan mode turned on or off. */
    'plan.mode.changed': { plan: PlanState },
  } as const;
};
