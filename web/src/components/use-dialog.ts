/**
 * Which dialog a page shows, with focus handed back: the control that opened a dialog (a row's
 * button, "Create key") gets the focus again when the dialog closes — also when one dialog replaces
 * another on the way (create → shown once), and when the dialog was unmounted rather than closed,
 * which Mantine's own focus return does not cover. If the opener is gone (its row was deleted), the
 * focus stays where the browser puts it.
 */
import { useCallback, useRef, useState } from 'react';

/**
 * `useState` for a page's dialog that returns focus to the opener on close.
 *
 * @example
 * const [dialog, setDialog] = useDialog<{ kind: 'create' } | { kind: 'delete'; key: ApiKey }>();
 * <Button onClick={() => setDialog({ kind: 'create' })}>Create key</Button>
 */
export function useDialog<D>(): [D | null, (next: D | null) => void] {
  const [dialog, setDialog] = useState<D | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const open = useRef(false);
  const set = useCallback((next: D | null) => {
    if (next !== null && !open.current) opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    open.current = next !== null;
    setDialog(next);
    if (next === null) {
      const target = opener.current;
      opener.current = null;
      // After React has removed the dialog and Mantine has released its focus trap.
      window.requestAnimationFrame(() => {
        if (target?.isConnected === true) target.focus();
      });
    }
  }, []);
  return [dialog, set];
}
