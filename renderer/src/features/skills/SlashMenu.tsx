import { type KeyboardEvent, type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { refreshSkills } from '../../actions/skills';
import { OverridesBuiltinBadge, SourceBadge } from './SkillBadges';
import { type SlashCommand, matchCommands, parseSlashCommand, slashCommands, slashQuery } from './slash';
import { useSkills } from '../../stores/skills';
import './skills.css';

const MENU_ID = 'slash-menu';

export interface SlashMenu {
  /** The popup (null when closed). */
  menu: ReactNode;
  /** A one-line hint while arguments are typed after a known command. */
  hint: ReactNode;
  /** Handles the key when the menu is open; returns whether it did. */
  onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>): boolean;
  /** The skill and arguments when the text is a skill command. */
  parse(text: string): ReturnType<typeof parseSlashCommand>;
  /** ARIA wiring for the textbox. */
  inputProps: Record<string, string | boolean | undefined>;
}

/** A command the composer itself runs (/plan, /compact…): listed before the skills, with its own badge. */
export interface OwnCommand {
  command: string;
  argumentHint?: string;
  description: string;
  /** Where it comes from, when not the composer itself (an MCP server's prompt). */
  badge?: string;
}

type MenuItem = { own: OwnCommand; skill?: undefined } | (SlashCommand & { own?: undefined });

/**
 * Slash-command autocomplete for the composer: typing `/` lists the composer's own commands, then the
 * skills users can run (`/skill:<name>`, or `/<name>` for built-ins and sub-skills). Arrow keys move,
 * Enter or Tab completes (Enter on a complete command sends it), Escape closes; text after the command
 * becomes the arguments.
 */
export function useSlashMenu(text: string, setText: (text: string) => void, own: readonly OwnCommand[] = []): SlashMenu {
  const catalog = useSkills((s) => s.catalog);
  // A skill named like one of the composer's commands stays reachable as /skill:<name>.
  const commands = useMemo(() => slashCommands(catalog?.skills ?? []).filter((c) => !own.some((o) => o.command === c.command)), [catalog, own]);
  const query = slashQuery(text);
  const items = useMemo((): MenuItem[] => {
    if (query === null) return [];
    const mine = own.filter((o) => o.command.startsWith(query)).map((o) => ({ own: o }));
    return [...mine, ...matchCommands(commands, query)];
  }, [commands, own, query]);
  const [selection, setSelection] = useState({ query: '', index: 0 });
  const [dismissed, setDismissed] = useState<string | null>(null);
  const active = selection.query === query ? Math.min(selection.index, Math.max(0, items.length - 1)) : 0;
  const open = query !== null && dismissed !== text && items.length > 0;
  const listRef = useRef<HTMLUListElement>(null);

  useEffect(() => {
    if (!useSkills.getState().catalog) void refreshSkills();
  }, []);
  useEffect(() => {
    listRef.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [active, open]);

  const commandOf = (item: MenuItem) => (item.own ? item.own.command : item.command);
  const choose = (item: MenuItem) => setText(`/${commandOf(item)} `);
  const move = (delta: number) => setSelection({ query: query ?? '', index: (active + delta + items.length) % items.length });

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open) return false;
    const item = items[active];
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      move(e.key === 'ArrowDown' ? 1 : -1);
      return true;
    }
    if (e.key === 'Tab' && item) {
      e.preventDefault();
      choose(item);
      return true;
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing && item) {
      if (query === commandOf(item)) return false;
      e.preventDefault();
      choose(item);
      return true;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      setDismissed(text);
      return true;
    }
    return false;
  };

  const menu = open ? (
    <ul className="slash-menu" role="listbox" tabIndex={-1} id={MENU_ID} aria-label="Commands and skills" ref={listRef}>
      {items.map((item, i) => (
        <li
          key={item.own ? `own:${item.own.command}` : item.command}
          id={`${MENU_ID}-${i}`}
          role="option"
          aria-selected={i === active}
          className={`slash-item${i === active ? ' slash-item-active' : ''}`}
          onMouseDown={(e) => {
            e.preventDefault();
            choose(item);
          }}
          onMouseMove={() => i !== active && setSelection({ query: query ?? '', index: i })}
        >
          <span className="slash-command">/{commandOf(item)}</span>
          {(item.own ?? item.skill).argumentHint ? <span className="slash-arg-hint">{(item.own ?? item.skill).argumentHint}</span> : null}
          <span className="slash-description">{(item.own ?? item.skill).description}</span>
          {item.own ? (
            <span className={`skill-badge ${item.own.badge ? 'skill-source-mcp' : 'skill-source-command'}`}>{item.own.badge ?? 'Command'}</span>
          ) : (
            <>
              <SourceBadge source={item.skill.source} />
              <OverridesBuiltinBadge skill={item.skill} />
            </>
          )}
        </li>
      ))}
    </ul>
  ) : null;

  const parsed = query === null && text.startsWith('/') ? parseSlashCommand(text, commands) : null;
  const hint = parsed ? (
    <div className="slash-hint" aria-live="polite">
      Enter runs the skill <strong>{parsed.skill.name}</strong>
      {parsed.skill.argumentHint ? (
        <>
          {' '}
          · arguments: <code>{parsed.skill.argumentHint}</code>
        </>
      ) : null}
    </div>
  ) : null;

  return {
    menu,
    hint,
    onKeyDown,
    parse: (t) => parseSlashCommand(t, commands),
    inputProps: {
      'aria-autocomplete': 'list',
      'aria-controls': open ? MENU_ID : undefined,
      'aria-activedescendant': open ? `${MENU_ID}-${active}` : undefined,
    },
  };
}
