import { randomBytes } from 'node:crypto';
import type { SwarmProgress } from '#protocol';
import type { SessionHandle } from '#contract/capability';
import type { Subagent } from '#contract/subagents';
import type { ToolResult, ToolRunContext } from '#contract/tool';
import type { Isolation, IsolatedTree } from './isolation';
import type { AgentOutcome } from './runner';
import type { AgentsService } from './service';
import { runScheduled, swarmMaxConcurrency } from './swarm-scheduler';
import type { AgentType } from './types/builtin';

/** One item of a swarm: its prompt, and the sub-agent it resumes (if any). */
export interface SwarmEntry {
  item: string;
  prompt: string;
  existing?: Subagent;
}

type ItemState = 'queued' | 'running' | 'completed' | 'failed' | 'aborted';

interface ItemRun {
  entry: SwarmEntry;
  state: ItemState;
  agent?: Subagent;
  outcome?: AgentOutcome;
  /** Its worktree (isolation "worktree"): made at its first launch, kept across rate-limit retries. */
  tree?: IsolatedTree;
  /** What its result says of its worktree. */
  worktree?: string[];
}

/** The report stays within what a tool result may hold (the rest of each answer is in the sub-agent's log). */
const REPORT_CHARS = 40_000;
const attr = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/\n/g, ' ');
/** An answer cannot close its element early and fake another item's result. */
const body = (value: string) => value.replace(/<(\/?)(subagent|agent_swarm_result|summary|resume_hint)\b/gi, '&lt;$1$2');

/** Run a swarm to the end (or until it is stopped) and report every item. */
export async function runSwarm(options: {
  session: SessionHandle;
  service: AgentsService;
  type: AgentType;
  entries: SwarmEntry[];
  description: string;
  ctx: ToolRunContext;
  isolation?: Isolation;
}): Promise<ToolResult> {
  const { session, service, type, entries, ctx } = options;
  const swarmId = `swarm-${[...randomBytes(8)].map((b) => (b % 36).toString(36)).join('')}`;
  const controller = new AbortController();
  const signal = AbortSignal.any([ctx.signal, controller.signal]);
  const forget = service.live.add(session.id, swarmId, controller);
  const runs: ItemRun[] = entries.map((entry) => ({ entry, state: 'queued' }));
  let concurrency = 0;
  const progress = (): SwarmProgress => {
    const count = (state: ItemState) => runs.filter((r) => r.state === state).length;
    return {
      total: runs.length,
      queued: count('queued'),
      running: count('running'),
      completed: count('completed'),
      failed: count('failed'),
      aborted: count('aborted'),
      concurrency,
    };
  };
  let last = '';
  const announce = () => {
    const now = progress();
    const key = JSON.stringify(now);
    if (key === last) return;
    last = key;
    session.emit({ type: 'swarm.updated', swarmId, callId: ctx.callId, description: options.description, progress: now });
    ctx.onUpdate({ kind: 'progress', text: `${now.completed + now.failed}/${now.total} done, ${now.running} running` });
  };
  try {
    await runScheduled({
      jobs: runs,
      maxConcurrency: swarmMaxConcurrency(runs.length),
      limits: service.swarmLimits,
      signal,
      onChange: (state) => {
        concurrency = state.concurrency;
        announce();
      },
      giveUp: (run) => {
        run.state = 'failed';
      },
      launch: async (run, attempt) => {
        const itemType = run.entry.existing ? (service.type(run.entry.existing.type) ?? type) : type;
        try {
          run.agent ??= run.entry.existing ?? (await session.subagents.create({ type: itemType.name, description: run.entry.item.slice(0, 100) }));
        } catch (error) {
          run.state = 'failed';
          run.outcome = { status: 'failed', text: '', error: { code: 'internal', message: (error as Error).message } };
          return { kind: 'done' };
        }
        if (options.isolation && !run.tree) {
          const isolated = await service.isolate(options.isolation, run.entry.item.slice(0, 60), session.id);
          if ('refused' in isolated) {
            run.state = 'failed';
            run.outcome = { status: 'failed', text: '', error: { code: 'invalid_request', message: isolated.refused } };
            return { kind: 'done' };
          }
          if (isolated.tree) run.tree = isolated.tree;
        }
        run.state = 'running';
        announce();
        const outcome = await service.run({
          session,
          agent: run.agent,
          type: itemType,
          // After a rate limit cut its turn short, it carries on from where it was.
          prompt: attempt === 1 ? run.entry.prompt : null,
          signal,
          placement: { callId: ctx.callId, swarmId, item: run.entry.item },
          failFastOnRateLimit: true,
          ...(run.tree ? { tree: run.tree } : {}),
        });
        run.outcome = outcome;
        if (outcome.rateLimited && !signal.aborted) {
          run.state = 'queued';
          return { kind: 'rate_limited' };
        }
        run.state = outcome.status === 'completed' ? 'completed' : outcome.status === 'cancelled' ? 'aborted' : 'failed';
        run.worktree = await service.settle(run.tree ?? null, run.agent, run.entry.item.slice(0, 100));
        return { kind: 'done' };
      },
    });
  } finally {
    forget();
  }
  for (const run of runs) if (run.state === 'queued' || run.state === 'running') run.state = 'aborted';
  announce();
  return { output: swarmReport(runs), isError: runs.every((r) => r.state !== 'completed'), display: { kind: 'generic', summary: summaryLine(progress()) } };
}

function summaryLine(p: SwarmProgress): string {
  return `completed: ${p.completed}, failed: ${p.failed}, aborted: ${p.aborted}`;
}

function swarmReport(runs: readonly ItemRun[]): string {
  const count = (state: ItemState) => runs.filter((r) => r.state === state).length;
  const lines = ['<agent_swarm_result>', `<summary>completed: ${count('completed')}, failed: ${count('failed')}, aborted: ${count('aborted')}</summary>`];
  const unfinished = runs.filter((r) => r.state !== 'completed' && r.agent);
  if (unfinished.length) {
    lines.push(
      `<resume_hint>${unfinished.length} sub-agent${unfinished.length === 1 ? '' : 's'} did not complete. To continue them with what they already did, call AgentSwarm with resume_agent_ids mapping each agent_id to its next prompt (e.g. {"${unfinished[0]!.agent!.id}": "Finish the task"}).</resume_hint>`,
    );
  }
  const perItem = Math.max(300, Math.floor(REPORT_CHARS / Math.max(1, runs.length)));
  for (const run of runs) {
    const text = run.outcome?.text ?? '';
    const outcome =
      run.state === 'completed'
        ? text
        : [run.outcome?.error?.message ?? (run.state === 'aborted' ? 'Stopped before it finished.' : 'It failed.'), text].filter(Boolean).join('\n');
    const capped =
      outcome.length > perItem ? `${outcome.slice(0, perItem)}\n[… cut here; resume ${run.agent?.id ?? 'it'} with Agent to ask for the rest]` : outcome;
    const item = run.entry.item.length > 200 ? `${run.entry.item.slice(0, 199)}…` : run.entry.item;
    const tree = run.worktree?.length ? `${body(run.worktree.join('\n'))}\n\n` : '';
    lines.push(`<subagent agent_id="${run.agent?.id ?? ''}" item="${attr(item)}" state="${run.state}">${tree}${body(capped)}</subagent>`);
  }
  lines.push('</agent_swarm_result>');
  return lines.join('\n');
}
