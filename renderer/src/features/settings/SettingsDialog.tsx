import { Dialog } from '../../components/Dialog';
import { useSettings } from '../../stores/settings';
import { useUi } from '../../stores/ui';
import { NotificationSettings } from '../appearance/NotificationSettings';
import { ThemeSwitch } from '../appearance/ThemeSwitch';
import { PriceTableEditor } from '../usage/PriceTableEditor';
import { ProviderForm } from './ProviderForm';
import { useProviderForm } from './use-provider-form';

const FIRST_FIELD = '.dialog-body input:not([type="checkbox"]), .dialog-body select, .dialog-body textarea';

export function SettingsDialog() {
  const settings = useSettings((s) => s.settings);
  const workspace = useSettings((s) => s.workspace);
  const close = () => useUi.getState().openSettings(false);
  const form = useProviderForm(settings?.provider ?? null);
  const storage = settings?.secretStorage === 'safe-storage' ? 'encrypted with the system keychain' : `in a file only you can read (${workspace?.home ?? '~/.deft'}/secrets.json)`;
  return (
    <Dialog
      title="Settings"
      onClose={close}
      // Ctrl+, lands in the first field, ready to type.
      initialFocus={FIRST_FIELD}
      footer={
        <>
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
          <button type="button" className="button button-primary" disabled={form.saving} onClick={() => void form.save().then((ok) => ok && close())}>
            {form.saving ? 'Saving…' : 'Save'}
          </button>
        </>
      }
    >
      <section className="settings-section" aria-labelledby="settings-provider">
        <h3 className="section-title" id="settings-provider">
          Model provider
        </h3>
        <ProviderForm form={form} current={settings?.provider ?? null} />
        <p className="form-note">API keys are stored {storage}.</p>
      </section>
      {/* Window preferences save at once (the footer's Save is for the provider). */}
      <section className="settings-section" aria-labelledby="settings-appearance">
        <h3 className="section-title" id="settings-appearance">
          Appearance
        </h3>
        <ThemeSwitch />
      </section>
      <section className="settings-section" aria-labelledby="settings-notifications">
        <h3 className="section-title" id="settings-notifications">
          Notifications
        </h3>
        <NotificationSettings />
      </section>
      <section className="settings-section" aria-labelledby="settings-prices">
        <h3 className="section-title" id="settings-prices">
          Model prices
        </h3>
        <PriceTableEditor />
      </section>
    </Dialog>
  );
}
