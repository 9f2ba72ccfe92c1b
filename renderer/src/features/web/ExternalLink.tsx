import type { ReactNode } from 'react';

/** The URL if it is http(s), else undefined: nothing else may become a link. */
export function safeHref(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * A link out of Deft: it never navigates Deft's own window. In Electron a new-window request is handed to
 * the system browser (main/index.ts allows http(s) only); in the web host it opens a new tab without a
 * reference back to this page.
 */
export function ExternalLink({ href, children, className, label }: { href: string; children: ReactNode; className?: string; label?: string }) {
  const safe = safeHref(href);
  if (!safe) return <span className={className}>{children}</span>;
  return (
    <a href={safe} target="_blank" rel="noopener noreferrer" className={className} aria-label={label} title={safe}>
      {children}
    </a>
  );
}
