import type { AgentConnection, ClientCapabilities, RequestPermissionOutcome, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import type { ApprovalAnswer, QuestionAnswer, SessionEvent, SessionEventOf } from '#protocol';
import { approvalAnswer, approvalRequest } from './permissions';
import { askByPermissions, formAnswers, questionsForm } from './questions';

// Deft's approvals and questions put to the editor. Each request sent is kept (by Deft's request id) until answered, so
// that Deft settling it elsewhere, a cancel, a close or asking again withdraws it. A client that errs, declines or sends
// something not offered approves nothing.

/** The reason a request is withdrawn when it is to be asked again (its first asking answers nothing). */
const AGAIN = Symbol('ask again');

type Pending = SessionEventOf<'approval.requested'> | SessionEventOf<'question.asked'>;

export interface AskingSession {
  readonly id: string;
  /** The workspace folder (diff paths and locations are made absolute with it). */
  readonly cwd: string;
  /** Requests sent to the client and not answered yet, by Deft's request id. */
  readonly asking: Map<string, AbortController>;
}

export interface AskingContext<S extends AskingSession> {
  client(): AgentConnection['client'] | null;
  capabilities(): ClientCapabilities;
  answerApproval(session: S, requestId: string, answer: ApprovalAnswer): Promise<unknown>;
  answerQuestion(session: S, requestId: string, answers: QuestionAnswer[], dismissed: boolean): Promise<unknown>;
}

export function createAsking<S extends AskingSession>(context: AskingContext<S>) {
  /** One request to the client, withdrawn when its controller aborts: null when it failed or was withdrawn, AGAIN when withdrawn to be asked anew. */
  const request = async <T>(
    session: AskingSession,
    requestId: string,
    send: (client: AgentConnection['client'], signal: AbortSignal) => Promise<T>,
  ): Promise<T | null | typeof AGAIN> => {
    const client = context.client();
    if (!client) return null;
    const controller = new AbortController();
    session.asking.set(requestId, controller);
    try {
      return await send(client, controller.signal);
    } catch {
      return controller.signal.reason === AGAIN ? AGAIN : null; // declined, errored or withdrawn: nothing is approved
    } finally {
      if (session.asking.get(requestId) === controller) session.asking.delete(requestId);
    }
  };

  const permission = (session: AskingSession, requestId: string, params: RequestPermissionRequest): Promise<RequestPermissionOutcome | null | typeof AGAIN> =>
    request(session, requestId, async (client, signal) => {
      const response = await client.request('session/request_permission', params, { cancellationSignal: signal, stopWaitingOnCancel: true });
      return response.outcome;
    });

  const askApproval = async (session: S, event: SessionEventOf<'approval.requested'>) => {
    const outcome = await permission(session, event.requestId, approvalRequest(session.id, event, session.cwd));
    if (outcome === AGAIN) return;
    await context.answerApproval(session, event.requestId, approvalAnswer(event, outcome)).catch(() => {});
  };

  const askQuestions = async (session: S, event: SessionEventOf<'question.asked'>) => {
    let answers: QuestionAnswer[] | null = [];
    if (context.capabilities().elicitation?.form) {
      const response = await request(session, event.requestId, (client, signal) =>
        client.request('elicitation/create', questionsForm(session.id, event.callId, event.questions), {
          cancellationSignal: signal,
          stopWaitingOnCancel: true,
        }),
      );
      if (response === AGAIN) return;
      answers = formAnswers(event.questions, response);
    } else {
      for (const question of event.questions) {
        let again = false;
        const answer = await askByPermissions(question, async (make) => {
          const outcome = await permission(session, event.requestId, make(session.id, event.callId));
          again ||= outcome === AGAIN;
          return outcome === AGAIN ? null : outcome;
        });
        if (again) return;
        if (!answer) {
          answers = null;
          break;
        }
        answers.push(answer);
      }
    }
    await context.answerQuestion(session, event.requestId, answers ?? [], answers === null).catch(() => {});
  };

  return {
    ask(session: S, event: Pending) {
      if (event.type === 'approval.requested') void askApproval(session, event);
      else void askQuestions(session, event);
    },
    /** Deft settled the request (or the turn stopped): the client's dialog is withdrawn. */
    settled(session: AskingSession, requestId: string) {
      session.asking.get(requestId)?.abort();
    },
    /**
     * Asks again what is still pending at the end of `events` (a loaded session whose turn waits): a request still out
     * is withdrawn first, without answering it.
     */
    askAgain(session: S, events: readonly SessionEvent[]) {
      for (const event of pendingRequests(events)) {
        session.asking.get(event.requestId)?.abort(AGAIN);
        this.ask(session, event);
      }
    },
  };
}

/** Approvals and questions pending at the end of `events`: nothing answered them and their turn did not end. */
export function pendingRequests(events: readonly SessionEvent[]): Pending[] {
  const done = new Set<string>();
  const ended = new Set<string>();
  const pending: Pending[] = [];
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === 'turn.ended') ended.add(event.turnId);
    else if (event.type === 'approval.resolved' || event.type === 'question.answered') done.add(`${event.type}:${event.requestId}`);
    else if (event.type === 'approval.requested' || event.type === 'question.asked') {
      const key = `${event.type === 'approval.requested' ? 'approval.resolved' : 'question.answered'}:${event.requestId}`;
      if (!done.has(key) && !ended.has(event.turnId)) pending.unshift(event);
      done.add(key);
    }
  }
  return pending;
}
