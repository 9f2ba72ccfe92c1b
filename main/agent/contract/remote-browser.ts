import type { CommandHandlers } from './commands';
import { CommandError } from './errors';

/**
 * *Open remote folder…*: the host's side of the window's dialog (main/host/remote-browse.ts). It outlives any one
 * core (opening a folder can replace the core), so hosts build it once and hand it to each core they make.
 */
export type RemoteBrowser = Pick<
  CommandHandlers,
  'listRemoteHosts' | 'connectRemoteHost' | 'listRemoteFolder' | 'openRemoteWorkspace' | 'closeRemoteHost' | 'cancelRemoteConnect'
>;

/** A host without the dialog (the CLI, ACP): each command answers `unsupported`, saying what to use instead. */
export const noRemoteBrowser: RemoteBrowser = (() => {
  const refuse = async (): Promise<never> => {
    throw new CommandError('unsupported', 'Opening a remote folder from here is not offered: start Deft with --remote HOST:/path instead.');
  };
  return {
    listRemoteHosts: refuse,
    connectRemoteHost: refuse,
    listRemoteFolder: refuse,
    openRemoteWorkspace: refuse,
    closeRemoteHost: refuse,
    cancelRemoteConnect: refuse,
  };
})();
