/**
 * Keeps the focused control clear of the fixed header (WCAG 2.2, 2.4.11 Focus Not Obscured). The
 * document's `scroll-padding-top` (app.css) makes scrolls into view stop below the header, but a
 * browser does not scroll at all when the newly focused element is inside the viewport — only
 * under the header. So when the focus lands on an element the header covers, it is scrolled into
 * view, which honours the padding.
 */
import { useEffect } from 'react';

/** Watches focus moves in the document while the calling component (the app shell) is shown. */
export function useFocusClearOfHeader(): void {
  useEffect(() => {
    const onFocus = (event: FocusEvent) => {
      const target = event.target;
      const header = document.querySelector('header');
      if (!(target instanceof HTMLElement) || header === null || header.contains(target)) return;
      // Dialogs sit above the header (and scroll inside themselves).
      if (target.closest('[role="dialog"]') !== null) return;
      if (target.getBoundingClientRect().top < header.getBoundingClientRect().bottom) target.scrollIntoView({ block: 'nearest' });
    };
    document.addEventListener('focusin', onFocus);
    return () => document.removeEventListener('focusin', onFocus);
  }, []);
}
