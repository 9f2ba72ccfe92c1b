import { Dialog } from '../../components/Dialog';
import { useSettings } from '../../stores/settings';
import { useUi } from '../../stores/ui';
import { AgentTypes } from '../agents/AgentTypes';
import { CheckpointSettings } from '../checkpoints/CheckpointSettings';
import { McpServers } from '../mcp/McpServers';
import { WebSettings } from '../web/WebSettings';
import { ProviderForm } from './ProviderForm';
import { useProviderForm } from './use-provider-form';

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
      <h3 className="section-title">Model provider</h3>
      <ProviderForm form={form} current={settings?.provider ?? null} />
      <p className="form-note">API keys are stored {storage}.</p>
      <McpServers />
      <WebSettings />
      <CheckpointSettings />
      <AgentTypes />
    </Dialog>
  );
}
