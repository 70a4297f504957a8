/** Runs a submit action with a busy flag and keeps its error for display. */
import { useCallback, useState } from 'react';

export function useSubmit<Args extends unknown[]>(action: (...args: Args) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(
    async (...args: Args) => {
      setBusy(true);
      setError(null);
      try {
        await action(...args);
      } catch (caught) {
        setError(caught);
      } finally {
        setBusy(false);
      }
    },
    [action],
  );
  return { busy, error, run, reset: () => setError(null) };
}

const perform = (work: () => Promise<void>) => work();

/** Runs whatever work `run` is handed (a table row's buttons), keeping the last failure for display. */
export function useAction() {
  return useSubmit(perform);
}
