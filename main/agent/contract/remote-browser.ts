import type { CommandHandlers } from './commands';

/**
 * *Open remote folder…*: the host's side of the window's dialog (main/host/remote-browse.ts). It outlives any one
 * core (opening a folder can replace the core), so hosts build it once and hand it to each core they make.
 */
export type RemoteBrowser = Pick<CommandHandlers, 'listRemoteHosts' | 'connectRemoteHost' | 'listRemoteFolder' | 'openRemoteWorkspace' | 'closeRemoteHost'>;
