/**
 * The object key of an upload URL on the service's own content host (`contentBase`, e.g.
 * `https://cdn.example.com/cdn`), or null for any other URL. The host is compared as hosts are, not
 * as text: any case, a trailing dot (`cdn.example.com.`) and the scheme's default port written out
 * (`:443`) are the same host, so the account's own upload is recognised however its URL is written
 * and never fetched from the outside as if it were a stranger's.
 */
export function ownUploadKey(contentBase: string, value: string): string | null {
  let url: URL;
  let base: URL;
  try {
    url = new URL(value);
    base = new URL(contentBase);
  } catch {
    return null;
  }
  const host = (u: URL) => u.hostname.toLowerCase().replace(/\.$/, '');
  const port = (u: URL) => u.port || (u.protocol === 'https:' ? '443' : u.protocol === 'http:' ? '80' : '');
  if (url.protocol !== base.protocol || host(url) !== host(base) || port(url) !== port(base)) return null;
  if (url.username || url.password || url.search || url.hash) return null;
  const prefix = `${base.pathname.replace(/\/+$/, '')}/`;
  if (!url.pathname.startsWith(prefix)) return null;
  return url.pathname.slice(prefix.length);
}
