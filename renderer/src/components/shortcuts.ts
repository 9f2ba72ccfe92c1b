/** One keyboard shortcut: the keys (Mod is Ctrl, or ⌘ on macOS) and what they do. */
export interface Shortcut {
  keys: string[];
  action: string;
}

/** Every shortcut of the window, grouped as a person looks for them (Settings → Keyboard shortcuts shows this list). */
export const SHORTCUTS: ReadonlyArray<{ group: string; items: readonly Shortcut[] }> = [
  {
    group: 'Window',
    items: [
      { keys: ['Mod', 'N'], action: 'New session (in a browser: use New session)' },
      { keys: ['Mod', 'L'], action: 'Go to the message box' },
      { keys: ['Mod', ','], action: 'Settings' },
      { keys: ['Mod', 'Shift', 'K'], action: 'Skill gallery' },
      { keys: ['Mod', '`'], action: 'Tasks panel' },
      { keys: ['Esc'], action: 'Close the open dialog or pane' },
    ],
  },
  {
    group: 'Message box',
    items: [
      { keys: ['Enter'], action: 'Send' },
      { keys: ['Shift', 'Enter'], action: 'New line' },
      { keys: ['Esc'], action: 'Stop the running turn' },
      { keys: ['↑'], action: 'Earlier prompt of this session (in an empty box, or while going through them)' },
      { keys: ['↓'], action: 'Later prompt' },
      { keys: ['@'], action: 'Mention a workspace file' },
      { keys: ['/'], action: 'Commands and skills' },
      { keys: ['Tab'], action: 'Complete the highlighted file or command' },
    ],
  },
];

/** Mod as this platform writes it. */
export function modKey(): string {
  return typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘' : 'Ctrl';
}
