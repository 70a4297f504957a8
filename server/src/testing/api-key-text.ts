/**
 * The text of API keys as tests see it: the documented format, written out here independently of
 * the server's own generator, and a way to damage one character of a key.
 */

/** The 62 symbols of an API key's random part and checksum. */
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A current-format API key: `sk-svc-`, 43 random base62 characters (group 1), then a 6-character
 * base62 checksum (group 2).
 */
export const API_KEY_FORMAT = /^sk-svc-([0-9A-Za-z]{43})([0-9A-Za-z]{6})$/;

/** `text` with the character at `index` replaced by the next base62 character (a non-base62 one becomes `0`). */
export function withCharacterChanged(text: string, index: number): string {
  const original = text[index] as string;
  const replacement = BASE62[(BASE62.indexOf(original) + 1) % BASE62.length] as string;
  return text.slice(0, index) + replacement + text.slice(index + 1);
}
