/**
 * A file the page generated (an export collected into a Blob: a browser download of generated data
 * needs the whole file), offered as a download link that the page also follows at once. The
 * object URL is released when another file replaces it or the component goes away.
 */
import { Anchor } from '@mantine/core';
import { useEffect, useRef, useState, type ReactNode } from 'react';

interface Download {
  url: string;
  name: string;
}

/** `offer(blob, name)` makes `blob` the file offered; `link` is the link to it, or null before any. */
export function useGeneratedDownload(): { offer: (blob: Blob, name: string) => void; link: ReactNode } {
  const [download, setDownload] = useState<Download | null>(null);
  const anchor = useRef<HTMLAnchorElement>(null);
  useEffect(() => () => {
    if (download !== null) URL.revokeObjectURL(download.url);
  }, [download]);
  useEffect(() => {
    anchor.current?.click();
  }, [download]);
  const offer = (blob: Blob, name: string) => setDownload({ url: URL.createObjectURL(blob), name });
  const link =
    download === null ? null : (
      <Anchor ref={anchor} href={download.url} download={download.name} size="sm">
        Download {download.name}
      </Anchor>
    );
  return { offer, link };
}

/** A timestamp for a file name, such as `2026-11-24T05-01-02-345Z`. */
export function fileStamp(now: Date = new Date()): string {
  return now.toISOString().replace(/[:.]/g, '-');
}
