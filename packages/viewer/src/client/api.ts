import type {
  CaseResponse,
  CompareResponse,
  RunResponse,
  RunsResponse,
  RunTextResponse,
} from '../shared/api-types.js';

/**
 * A static export (`agentv view --export`) holds the API's answers in scripts beside the page:
 * `data/index.js` maps each API path to the script holding it, which hands it to `__agentvData`.
 */
interface ExportedData {
  files: Record<string, string>;
  loaded: Map<string, unknown>;
}

declare global {
  interface Window {
    AGENTV_EXPORT?: Record<string, string>;
    __agentvData?: (path: string, value: unknown) => void;
  }
}

const exported: ExportedData | undefined =
  window.AGENTV_EXPORT === undefined
    ? undefined
    : { files: window.AGENTV_EXPORT, loaded: new Map() };
if (exported !== undefined) {
  window.__agentvData = (path, value) => exported.loaded.set(path, value);
}

/** True in a static export: no server, no live updates, only what was exported. */
export const isStatic = exported !== undefined;

const scripts = new Map<string, Promise<void>>();

function loadScript(src: string): Promise<void> {
  let loading = scripts.get(src);
  if (loading === undefined) {
    loading = new Promise<void>((resolve, reject) => {
      const script = document.createElement('script');
      script.src = src;
      script.onload = () => resolve();
      script.onerror = () => reject(new Error(`could not load ${src}`));
      document.head.append(script);
    });
    scripts.set(src, loading);
  }
  return loading;
}

/** GETs an API path (`/api/runs`, `/api/run?key=…`); throws an Error with the server's message. */
export async function getJson<T>(path: string): Promise<T> {
  if (exported !== undefined) {
    const file = exported.files[path];
    if (file === undefined) throw new Error('this page is not part of the export');
    await loadScript(file);
    if (!exported.loaded.has(path)) throw new Error(`${file} did not hold ${path}`);
    return exported.loaded.get(path) as T;
  }
  const response = await fetch(path, { headers: { Accept: 'application/json' } });
  const body = (await response.json()) as T & { error?: string; hint?: string };
  if (!response.ok) {
    throw new Error(
      body.hint ? `${body.error} (${body.hint})` : (body.error ?? response.statusText),
    );
  }
  return body;
}

const query = (params: Record<string, string | number | null | undefined>) =>
  Object.entries(params)
    .filter(([, value]) => value !== undefined && value !== null && value !== '')
    .map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`)
    .join('&');

export const api = {
  runs: () => getJson<RunsResponse>('/api/runs'),
  run: (key: string) => getJson<RunResponse>(`/api/run?${query({ key })}`),
  runText: (key: string) => getJson<RunTextResponse>(`/api/run-text?${query({ key })}`),
  case: (key: string, line: number) => getJson<CaseResponse>(`/api/case?${query({ key, line })}`),
  compare: (base: string, next: string, baseTarget?: string | null, newTarget?: string | null) =>
    getJson<CompareResponse>(`/api/compare?${query({ base, new: next, baseTarget, newTarget })}`),
};

type Listener = (keys: string[]) => void;
const listeners = new Set<Listener>();
let source: EventSource | undefined;

/** Calls `listener` with the run keys whose files changed; returns the unsubscribe. */
export function onRunsChanged(listener: Listener): () => void {
  if (isStatic) return () => {};
  if (source === undefined) {
    source = new EventSource('/api/events');
    source.addEventListener('change', (event) => {
      const { keys } = JSON.parse((event as MessageEvent<string>).data) as { keys: string[] };
      for (const each of listeners) each(keys);
    });
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}
