import { useState } from 'react';
import type { HookInfo, HookRef, HookTestResult } from '#protocol';
import { setHookDisabled, testHook } from '../../actions/settings-pages';
import { useSessions } from '../../stores/sessions';

const SOURCE_TEXT: Record<HookInfo['source'], string> = { user: 'Your settings', project: 'Project settings', local: 'Local settings' };

function refOf(hook: HookInfo): HookRef | null {
  if (hook.group === undefined || hook.index === undefined) return null;
  return { source: hook.source, event: hook.event, group: hook.group, index: hook.index, command: hook.command };
}

function TestResult({ result }: { result: HookTestResult }) {
  const exit = result.timedOut ? 'timed out' : result.exitCode === null ? 'did not exit' : `exit code ${result.exitCode}`;
  return (
    <div className="hook-test" role="status" aria-label="Test result">
      <div className="hook-test-head">
        <strong>{exit}</strong> · decision: <strong>{result.decision === 'none' ? 'none (it had no say)' : result.decision}</strong>
        {result.sandboxed ? ' · sandboxed' : ''}
      </div>
      {result.failure ? <p className="hook-test-line">It {result.failure}.</p> : null}
      {result.message && result.decision !== 'none' ? <p className="hook-test-line">{result.message}</p> : null}
      <details>
        <summary>stdout, stderr and the sample event</summary>
        <div className="hook-test-streams">
          <span>stdout</span>
          <pre>{result.stdout || '(empty)'}</pre>
          <span>stderr</span>
          <pre>{result.stderr || '(empty)'}</pre>
          <span>stdin (sample event)</span>
          <pre>{result.input}</pre>
        </div>
      </details>
    </div>
  );
}

/** One hook in Settings → Hooks: where it comes from, on or off, and Test (runs it now with a sample event). */
export function HookRow({ hook, trusted }: { hook: HookInfo; trusted: boolean }) {
  const sessionId = useSessions((s) => s.currentId);
  const [busy, setBusy] = useState<'toggle' | 'test' | null>(null);
  const [result, setResult] = useState<HookTestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ref = refOf(hook);
  const mayRun = hook.source === 'user' || trusted;
  const name = `${hook.event} hook ${hook.command.split('\n')[0]}`;
  const toggle = async () => {
    if (!ref) return;
    setBusy('toggle');
    const done = await setHookDisabled(ref, !hook.disabled);
    setError(done.ok ? null : done.message);
    setBusy(null);
  };
  const test = async () => {
    if (!ref || !sessionId) return;
    setBusy('test');
    setResult(null);
    const done = await testHook(ref, sessionId);
    if (done.ok) setResult(done.value);
    setError(done.ok ? null : done.message);
    setBusy(null);
  };
  return (
    <li className={`list-card${hook.active && !hook.disabled ? '' : ' hook-inactive'}`}>
      <div className="list-card-head">
        <span className="hook-event">{hook.event}</span>
        {hook.matcher ? <code className="hook-matcher">{hook.matcher}</code> : null}
        <span className="mcp-badge">{SOURCE_TEXT[hook.source]}</span>
        {hook.disabled ? (
          <span className="hook-state">Turned off</span>
        ) : !hook.active ? (
          <span className="hook-state">Not run: this folder is not trusted</span>
        ) : null}
        {ref ? (
          <span className="hook-actions">
            <button
              type="button"
              className="button button-small"
              disabled={busy !== null || (!hook.disabled ? false : !mayRun)}
              aria-label={`${hook.disabled ? 'Turn on' : 'Turn off'} ${name}`}
              onClick={() => void toggle()}
            >
              {hook.disabled ? 'Turn on' : 'Turn off'}
            </button>
            <button
              type="button"
              className="button button-small"
              disabled={busy !== null || !mayRun || !sessionId}
              title={!mayRun ? 'Trust this folder to run its hooks' : !sessionId ? 'Open a session to test hooks in its sandbox' : undefined}
              aria-label={`Test ${name}`}
              onClick={() => void test()}
            >
              {busy === 'test' ? 'Testing…' : 'Test'}
            </button>
          </span>
        ) : null}
      </div>
      <code className="hook-command">{hook.command}</code>
      <div className="hook-meta">
        {hook.file} · timeout {hook.timeoutSec} s{hook.sandboxed ? ' · sandboxed' : ''}
      </div>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {result ? <TestResult result={result} /> : null}
    </li>
  );
}
