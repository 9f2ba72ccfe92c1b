import type { ComponentType } from 'react';
import type { IconName } from '../../components/Icon';
import { AgentTypes } from '../agents/AgentTypes';
import { CheckpointSettings } from '../checkpoints/CheckpointSettings';
import { CodeIntelligenceSettings } from '../code/CodeIntelligenceSettings';
import { HooksSettings } from '../hooks/HooksSettings';
import { McpServers } from '../mcp/McpServers';
import { PluginsPage } from '../plugins/PluginsPage';
import { MemoryPage } from '../memory/MemoryPage';
import { WebSettings } from '../web/WebSettings';
import { AppearancePage } from './pages/AppearancePage';
import { DataPage } from './pages/DataPage';
import { NotificationsPage } from './pages/NotificationsPage';
import { PermissionsPage } from './pages/PermissionsPage';
import { PricesPage } from './pages/PricesPage';
import { ProviderPage } from './pages/ProviderPage';
import { SandboxPage } from './pages/SandboxPage';
import { ShortcutsPage } from './pages/ShortcutsPage';

/** One page of Settings: an entry in the navigation list and the component it shows. */
export interface SettingsPage {
  id: string;
  label: string;
  icon: IconName;
  /** The page body; the page's heading is the navigation entry's label. */
  Page: ComponentType;
}

/**
 * The Settings pages, in the order of the navigation list. Adding a page is one entry here (an id, a
 * label, an icon from components/Icon, and the component that renders the page body).
 */
export const settingsPages: readonly SettingsPage[] = [
  { id: 'provider', label: 'Model provider', icon: 'model', Page: ProviderPage },
  { id: 'permissions', label: 'Permissions', icon: 'shield', Page: PermissionsPage },
  { id: 'sandbox', label: 'Sandbox', icon: 'box', Page: SandboxPage },
  { id: 'memory', label: 'Memory', icon: 'file', Page: MemoryPage },
  { id: 'mcp', label: 'MCP servers', icon: 'plug', Page: McpServers },
  { id: 'hooks', label: 'Hooks', icon: 'terminal', Page: HooksSettings },
  { id: 'plugins', label: 'Plugins', icon: 'package', Page: PluginsPage },
  { id: 'code', label: 'Code intelligence', icon: 'code', Page: CodeIntelligenceSettings },
  { id: 'agents', label: 'Sub-agent types', icon: 'agent', Page: AgentTypes },
  { id: 'web', label: 'Web', icon: 'globe', Page: WebSettings },
  { id: 'checkpoints', label: 'Checkpoints', icon: 'undo', Page: CheckpointSettings },
  { id: 'appearance', label: 'Appearance', icon: 'palette', Page: AppearancePage },
  { id: 'notifications', label: 'Notifications', icon: 'bell', Page: NotificationsPage },
  { id: 'prices', label: 'Model prices', icon: 'dollar', Page: PricesPage },
  { id: 'shortcuts', label: 'Keyboard shortcuts', icon: 'keyboard', Page: ShortcutsPage },
  { id: 'data', label: 'Data', icon: 'database', Page: DataPage },
];
