/** A provider's base URL as kept and used: without trailing slashes (`…/v1/` and `…/v1` are one endpoint). */
export function trimBaseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}
