/**
 * The Mantine theme of the UI, tuned for WCAG 2.2 AA contrast (docs/web-ui.md#accessibility).
 *
 * Mantine fills buttons and badges with the primary shade of a colour and writes light variants in
 * shade 9 on shade 1; the default shade 6 is too light for white text (green 2.4:1, blue 3.6:1).
 * So the primary shade is 9, and shade 9 (and 8, the hover) of the colours the pages use is darkened
 * until white text on it, and it on its light background, reach at least 4.5:1. Dimmed text uses
 * gray 7 (8.2:1) instead of gray 6 (3.3:1).
 */
import { createTheme, DEFAULT_THEME, InputWrapper, Modal, Notification, type CSSVariablesResolver, type MantineColorsTuple } from '@mantine/core';

/** A default palette with its two darkest shades replaced. */
function darkened(name: string, shade8: string, shade9: string): MantineColorsTuple {
  const defaults = DEFAULT_THEME.colors[name];
  if (defaults === undefined) throw new Error(`Mantine has no colour ${name}`);
  const palette = [...defaults];
  palette[8] = shade8;
  palette[9] = shade9;
  return palette as unknown as MantineColorsTuple;
}

export const theme = createTheme({
  primaryColor: 'blue',
  // Transitions (dialogs, menus) are skipped for users who ask their system for less motion.
  respectReducedMotion: true,
  primaryShade: 9,
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  colors: {
    // Each shade 9 reaches ≥ 4.5:1 against white and against its own shade 1.
    green: darkened('green', '#24773a', '#237032'),
    orange: darkened('orange', '#b84a0b', '#9c3b05'),
    yellow: darkened('yellow', '#a36800', '#8a5a00'),
    teal: darkened('teal', '#087f5b', '#06694b'),
    red: darkened('red', '#c92a2a', '#b02525'),
  },
  components: {
    // Every dialog's close button says what it does.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close dialog' } } }),
    Notification: Notification.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Dismiss notification' } } }),
    // A field's error is announced when it appears (Mantine already sets aria-invalid and points
    // aria-describedby at it).
    InputWrapper: InputWrapper.extend({ defaultProps: { errorProps: { role: 'alert' } } }),
  },
});

/**
 * CSS variables Mantine derives from gray 6, moved to gray 7 for contrast; and the hover of light
 * variants (nav links, light buttons) made lighter (shade 0) rather than darker (shade 2, on which
 * shade-9 text falls to 4:1).
 */
export const cssVariablesResolver: CSSVariablesResolver = (current) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': current.colors.gray[7],
    '--mantine-color-placeholder': current.colors.gray[7],
    '--mantine-color-error': current.colors.red[9],
    ...Object.fromEntries(Object.keys(current.colors).map((name) => [`--mantine-color-${name}-light-hover`, `var(--mantine-color-${name}-0)`])),
  },
  dark: {},
});
