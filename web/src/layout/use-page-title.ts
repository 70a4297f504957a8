/** The document title of a page: "API keys · svc", so each page (and each browser tab) says where it is. */
import { useEffect } from 'react';

/** Sets `document.title` to `<title> · svc` while the calling page is shown. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · svc`;
  }, [title]);
}
