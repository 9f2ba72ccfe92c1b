import { useSettings } from '../../stores/settings';
import { FormStatus, ProviderForm, TestConnectionButton } from '../settings/ProviderForm';
import { useProviderForm } from '../settings/use-provider-form';
import './onboarding.css';

/** Shown until a provider is configured. The buttons stay in view at every window size (the form scrolls above them). */
export function FirstRun() {
  const workspace = useSettings((s) => s.workspace);
  const form = useProviderForm(null);
  return (
    <main className="first-run">
      <form
        className="first-run-card"
        aria-labelledby="first-run-title"
        onSubmit={(e) => {
          e.preventDefault();
          void form.save();
        }}
      >
        <div className="first-run-body">
          <div className="brand brand-large">
            <span className="brand-mark" aria-hidden="true">
              ◆
            </span>
            Deft
          </div>
          <h1 id="first-run-title">Connect a model to get started</h1>
          <p className="lede">
            Deft works on <strong title={workspace?.path}>{workspace?.name ?? 'your folder'}</strong> through tools you can watch, review and stop. Choose where
            its model runs — a hosted API or a server on this machine.
          </p>
          <ProviderForm form={form} current={null} />
        </div>
        <footer className="first-run-footer">
          <FormStatus form={form} />
          <TestConnectionButton form={form} />
          <button type="submit" className="button button-primary" disabled={form.saving}>
            {form.saving ? 'Saving…' : 'Start using Deft'}
          </button>
        </footer>
      </form>
    </main>
  );
}
