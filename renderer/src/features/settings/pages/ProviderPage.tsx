import { useState } from 'react';
import { useSettings } from '../../../stores/settings';
import { FormStatus, ProviderForm, TestConnectionButton } from '../ProviderForm';
import { useProviderForm } from '../use-provider-form';

/** The model provider: the same form as the first run. Save tests the connection first; when that fails, Save anyway. */
export function ProviderPage() {
  const settings = useSettings((s) => s.settings);
  const workspace = useSettings((s) => s.workspace);
  const form = useProviderForm(settings?.provider ?? null);
  const [saved, setSaved] = useState(false);
  const storage =
    settings?.secretStorage === 'safe-storage'
      ? 'encrypted with the system keychain'
      : `in a file only you can read (${workspace?.home ?? '~/.deft'}/secrets.json)`;
  return (
    <form
      className="settings-form"
      onSubmit={(e) => {
        e.preventDefault();
        setSaved(false);
        void form.testAndSave().then(setSaved);
      }}
      onChange={() => setSaved(false)}
    >
      <ProviderForm form={form} current={settings?.provider ?? null} />
      <p className="form-note">API keys are stored {storage}.</p>
      <div className="settings-actions">
        {saved ? (
          <span className="settings-saved" role="status">
            Saved.
          </span>
        ) : (
          <FormStatus form={form} />
        )}
        {form.unverified ? (
          <button type="button" className="button" disabled={form.saving} onClick={() => void form.save().then(setSaved)}>
            Save anyway
          </button>
        ) : null}
        <TestConnectionButton form={form} />
        <button type="submit" className="button button-primary" disabled={form.saving}>
          {form.saving ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}
