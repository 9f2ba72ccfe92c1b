import { type KeyboardEvent, useId, useRef } from 'react';
import { Dialog } from '../../components/Dialog';
import { Icon } from '../../components/Icon';
import { useUi } from '../../stores/ui';
import { settingsPages } from './pages';
import './settings.css';

const FIRST_FIELD = '.settings-page input:not([type="checkbox"]):not([type="radio"]), .settings-page select, .settings-page textarea';

/**
 * Settings: a navigation list of pages (tabs, vertical) beside the page shown. Arrow keys move between
 * pages, Home and End jump; each page is its own component (pages.ts).
 */
export function SettingsDialog() {
  const pageId = useUi((s) => s.settingsPage);
  const close = () => useUi.getState().openSettings(false);
  const current = settingsPages.find((p) => p.id === pageId) ?? settingsPages[0]!;
  const base = useId();
  const tabs = useRef<Array<HTMLButtonElement | null>>([]);
  const show = (index: number) => {
    const page = settingsPages[(index + settingsPages.length) % settingsPages.length]!;
    useUi.getState().openSettings(true, page.id);
    tabs.current[settingsPages.indexOf(page)]?.focus();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const index = settingsPages.indexOf(current);
    const moves: Record<string, number> = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: settingsPages.length - 1 };
    const target = moves[e.key];
    if (target === undefined) return;
    e.preventDefault();
    show(target);
  };
  const { Page } = current;
  return (
    // Ctrl+, lands in the page's first field, ready to type (the page list is a Shift+Tab away); a page without fields focuses Close.
    <Dialog title="Settings" onClose={close} className="settings-dialog" initialFocus={FIRST_FIELD}>
      <div className="settings-layout">
        <div className="settings-nav" role="tablist" aria-label="Settings pages" aria-orientation="vertical" onKeyDown={onKeyDown}>
          {settingsPages.map((page, i) => (
            <button
              key={page.id}
              ref={(el) => {
                tabs.current[i] = el;
              }}
              id={`${base}-tab-${page.id}`}
              type="button"
              role="tab"
              aria-selected={page === current}
              aria-controls={`${base}-panel`}
              tabIndex={page === current ? 0 : -1}
              className="settings-tab"
              onClick={() => show(i)}
            >
              <Icon name={page.icon} size={15} /> {page.label}
            </button>
          ))}
        </div>
        <section className="settings-page" role="tabpanel" tabIndex={0} id={`${base}-panel`} aria-labelledby={`${base}-tab-${current.id}`}>
          <h3 className="settings-page-title">{current.label}</h3>
          <Page key={current.id} />
        </section>
      </div>
    </Dialog>
  );
}
