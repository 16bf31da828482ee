import { useEffect, useState } from 'preact/hooks';
import { onRunsChanged } from './api.js';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  /** Bumped each time new data arrived. */
  version: number;
}

/**
 * Loads `load()` when `deps` change, and again when a result file among `liveKeys` changes
 * (any file when `liveKeys` is 'any'). Keeps showing the last data while reloading.
 */
export function useData<T>(
  load: () => Promise<T>,
  deps: unknown[],
  liveKeys: string[] | 'any' | 'none',
): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ data: undefined, error: undefined, version: 0 });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (liveKeys === 'none') return;
    let waiting = false;
    return onRunsChanged((keys) => {
      if (waiting || (liveKeys !== 'any' && !keys.some((key) => liveKeys.includes(key)))) return;
      // Changes come in bursts while an eval writes: one reload per burst.
      waiting = true;
      setTimeout(() => {
        waiting = false;
        setTick((value) => value + 1);
      }, 300);
    });
  }, [JSON.stringify(liveKeys)]);
  useEffect(() => {
    let current = true;
    load().then(
      (data) =>
        current && setState((old) => ({ data, error: undefined, version: old.version + 1 })),
      (error: Error) => current && setState((old) => ({ ...old, error: error.message })),
    );
    return () => {
      current = false;
    };
  }, [...deps, tick]);
  return state;
}
