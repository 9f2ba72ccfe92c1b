/** Every keyboard shortcut of the window, by where it works: the shortcuts sheet (Ctrl+/) and Settings list these. */
export interface Shortcut {
  keys: string[];
  does: string;
}

export interface ShortcutGroup {
  title: string;
  shortcuts: Shortcut[];
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
/** The modifier as this system names it: ⌘ on a Mac, Ctrl elsewhere. */
export const MOD = isMac ? '⌘' : 'Ctrl';

export const SHORTCUT_GROUPS: ShortcutGroup[] = [
  {
    title: 'Window',
    shortcuts: [
      { keys: [MOD, 'N'], does: 'New session (in a browser: use New session)' },
      { keys: [MOD, 'B'], does: 'Show or hide the sidebar' },
      { keys: [MOD, ','], does: 'Settings' },
      { keys: [MOD, 'Shift', 'K'], does: 'Skill gallery' },
      { keys: [MOD, '`'], does: 'Tasks panel' },
      { keys: [MOD, '/'], does: 'This list of shortcuts' },
      { keys: ['Esc'], does: 'Close the open dialog, panel or drawer' },
    ],
  },
  {
    title: 'Message box',
    shortcuts: [
      { keys: [MOD, 'L'], does: 'Go to the message box' },
      { keys: ['Enter'], does: 'Send' },
      { keys: ['Shift', 'Enter'], does: 'New line' },
      { keys: ['Esc'], does: 'Stop the running turn' },
      { keys: ['↑'], does: 'Earlier prompt of this session (in an empty box, or while going through them)' },
      { keys: ['↓'], does: 'Later prompt' },
      { keys: ['@'], does: 'Mention a workspace file' },
      { keys: ['/'], does: 'Commands and skills (/plan, /compact, /undo, /rewind, /changes, /model)' },
      { keys: ['Tab'], does: 'Complete the highlighted file or command' },
    ],
  },
  {
    title: 'While an approval has the focus',
    shortcuts: [
      { keys: ['Y'], does: 'Approve once (a plan: approve)' },
      { keys: ['A'], does: 'Approve for this session' },
      { keys: ['Shift', 'A'], does: 'Always allow: the rule to save, to edit first' },
      { keys: ['N'], does: 'Reject (with the feedback written, if any)' },
      { keys: ['R'], does: 'A plan: revise with the feedback' },
    ],
  },
];
