import { memo, useState } from 'react';
import type { ToolInputDisplay, ToolResultDisplay } from '#protocol';
import { Icon } from '../../components/Icon';
import { ToolHeader } from '../tools/ToolHeader';
import type { ToolItem } from '../../stores/transcript';
import { HookBadge } from '../hooks/HookBadge';
import { Markdown } from '../conversation/Markdown';
import { ExternalLink, hostOf } from './ExternalLink';
import { formatBytes } from '#protocol/helpers/units';
import './web.css';

type UrlContent = Extract<ToolResultDisplay, { kind: 'url_content' }>;

function StatusChip({ status }: { status: number }) {
  return <span className={`web-chip ${status < 300 ? 'chip-ok' : status < 400 ? 'chip-bg' : 'chip-bad'}`}>HTTP {status}</span>;
}

/** FetchURL: the page's title and host, status, size, whether main text was extracted; its Markdown behind the header. */
export const UrlCard = memo(function UrlCard({ item }: { item: ToolItem }) {
  const input = item.display as Extract<ToolInputDisplay, { kind: 'url_fetch' }>;
  const page: UrlContent | undefined = item.result?.display?.kind === 'url_content' ? item.result.display : undefined;
  const url = page?.url ?? input.url;
  const [open, setOpen] = useState(false);
  const failed = item.status === 'error';
  const canOpen = Boolean(page?.preview) || (failed && Boolean(item.result?.output));
  return (
    <section className={`tool-card web-card tool-${item.status}`} role="group" aria-label={`${item.name} tool call`}>
      <ToolHeader
        item={item}
        icon="globe"
        tool={item.name}
        subject={
          <>
            <span className="web-title">{page?.title ?? url}</span> <span className="web-host">{hostOf(url)}</span>
          </>
        }
        subjectText={page?.title ?? url}
        meta={
          page ? (
            <>
              <StatusChip status={page.status} />
              {page.bytes !== undefined ? <span>{formatBytes(page.bytes)}</span> : null}
              {page.extracted ? <span className="web-chip">main text</span> : null}
            </>
          ) : null
        }
        expanded={open}
        onToggle={canOpen ? () => setOpen(!open) : undefined}
        trailing={
          <ExternalLink href={url} className="web-open" label={`Open ${hostOf(url)} in your browser`}>
            <Icon name="external" size={14} />
          </ExternalLink>
        }
      />
      {failed && !open ? <p className="web-error">{firstLine(item.result?.output ?? '')}</p> : null}
      {open ? (
        <div className="tool-body">
          {failed ? <pre className="tool-output tool-output-error">{item.result?.output}</pre> : null}
          {!failed && page?.preview ? (
            <div className="web-preview" aria-label="Page preview">
              <Markdown text={page.preview} linkImages />
              {page.previewTruncated ? <p className="form-note">The preview stops here; the model read the whole page (up to its limits).</p> : null}
            </div>
          ) : null}
        </div>
      ) : null}
      <HookBadge hooks={item.hooks} />
    </section>
  );
});

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 240 ? `${line.slice(0, 240)}…` : line;
}
