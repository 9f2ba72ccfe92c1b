import { type AuthMethod, type ClientCapabilities, RequestError } from '@agentclientprotocol/sdk';
import { deftHome } from '#infra/platform/home';
import { FileSecretStore } from '#infra/settings/secrets';
import { ProviderSettings } from '#runtime/commands/settings-commands';
import type { CoreSettings } from './workspaces';

/** The provider Deft already knows: its settings file, its key store, `DEFT_*` and the flags `deft acp` was started with. */
export const SETTINGS_METHOD = 'deft-settings';
/** An interactive setup the editor runs in a terminal (`deft acp --setup`), for clients that can. */
export const SETUP_METHOD = 'deft-setup';

/**
 * How a client can get Deft a model provider. Deft keeps no account: "authenticating" is having a provider (base URL,
 * model, and a key where the server needs one). The editor either starts `deft acp --setup` in a terminal, which asks
 * for them and saves them as the window's Settings do, or asks Deft to read its settings again after the user set it
 * up elsewhere (the Deft window, `~/.deft/settings.json`, or `DEFT_BASE_URL`/`DEFT_MODEL`/`DEFT_API_KEY` in the
 * agent's environment, which is where an editor that holds a key passes it).
 */
export function authMethods(client: ClientCapabilities): AuthMethod[] {
  const methods: AuthMethod[] = [
    {
      id: SETTINGS_METHOD,
      name: 'Use Deft’s model provider',
      description:
        'The provider set up in Deft (its Settings, ~/.deft/settings.json) or in this agent’s environment (DEFT_BASE_URL, DEFT_MODEL, DEFT_API_KEY).',
    },
  ];
  if (client.auth?.terminal)
    methods.push({
      id: SETUP_METHOD,
      type: 'terminal',
      name: 'Set up a model provider',
      description: 'Asks for the server’s base URL, the model and its API key in a terminal, tests them and saves them for Deft.',
      args: ['--setup'],
    });
  return methods;
}

/** The provider settings `deft acp` resolves for its sessions (the same home, key store and overrides as their cores). */
export function providerSettings(settings: CoreSettings): ProviderSettings {
  const home = settings.coreOptions?.home ?? deftHome(settings.env);
  return new ProviderSettings({
    home,
    secrets: settings.coreOptions?.secrets ?? FileSecretStore.inHome(home),
    overrides: settings.providerOverrides,
    emit: () => {},
  });
}

const NOT_SET_UP =
  'No model provider is set up for Deft. Authenticate with "Set up a model provider", or set one up in the Deft window ' +
  '(Settings → Model provider) or with DEFT_BASE_URL and DEFT_MODEL (and DEFT_API_KEY) in the agent’s environment, then authenticate again.';

/** Throws ACP's `auth_required` when no provider is known: sessions cannot be created or prompted without one. */
export async function requireProvider(settings: CoreSettings): Promise<void> {
  if (!(await providerSettings(settings).config())) throw RequestError.authRequired(undefined, NOT_SET_UP);
}

/** `authenticate`: the settings method succeeds once a provider is known; the terminal method is the client's to run. */
export async function authenticate(settings: CoreSettings, client: ClientCapabilities, methodId: string): Promise<void> {
  if (!authMethods(client).some((m) => m.id === methodId))
    throw RequestError.invalidParams(undefined, `Unknown authentication method ${JSON.stringify(methodId)}: the methods are those initialize listed.`);
  if (methodId === SETUP_METHOD)
    throw RequestError.invalidParams(undefined, `"${SETUP_METHOD}" runs in a terminal (deft acp --setup); authenticate with "${SETTINGS_METHOD}" after it.`);
  await requireProvider(settings);
}
