/**
 * Loads data for a page through the SDK and keeps the error for display: `{ data, error, loading,
 * reload }`. A reload keeps the old data on screen until the new answer arrives; an answer that
 * arrives after a newer load started is dropped, so fast filter changes never show stale data.
 */
import { useCallback, useEffect, useRef, useState, type DependencyList } from 'react';

/** The state of one load. */
export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): Promise<void>;
}

/** Calls `load` now, whenever one of `deps` changes, and on every `reload()`. */
export function useLoader<T>(load: () => Promise<T>, deps: DependencyList = []): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const loadRef = useRef(load);
  loadRef.current = load;
  const latest = useRef(0);
  const reload = useCallback(async () => {
    const ticket = ++latest.current;
    setLoading(true);
    try {
      const loaded = await loadRef.current();
      if (ticket !== latest.current) return;
      setData(loaded);
      setError(null);
    } catch (caught) {
      if (ticket !== latest.current) return;
      setError(caught);
    } finally {
      if (ticket === latest.current) setLoading(false);
    }
  }, []);
  useEffect(() => {
    void reload();
    // The caller's deps decide when to load again.
  }, [reload, ...deps]);
  return { data, error, loading, reload };
}
