import { useEffect, useState } from 'preact/hooks';

/** The page a hash names: `#/run?key=…` → `{ page: 'run', params }`. Hash routes work in an export too. */
export interface Route {
  page: string;
  params: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const at = text.indexOf('?');
  const page = (at === -1 ? text : text.slice(0, at)) || 'history';
  return { page, params: new URLSearchParams(at === -1 ? '' : text.slice(at + 1)) };
}

export function useRoute(): Route {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => {
      setHash(location.hash);
      window.scrollTo(0, 0);
    };
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return parseRoute(hash);
}

/** A link to a page: `#/page?a=1&b=2`, values encoded. */
export function href(
  page: string,
  params: Record<string, string | number | null | undefined> = {},
): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return `#/${page}${text ? `?${text}` : ''}`;
}
