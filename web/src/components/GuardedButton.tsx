/**
 * A button for an action the server may refuse. With a `refusal` the button stays focusable but does
 * nothing, and says why: in a tooltip on hover and focus, and to screen readers through
 * `aria-describedby`.
 */
import { Button, Tooltip, VisuallyHidden, type ButtonProps } from '@mantine/core';
import { useId } from '@mantine/hooks';
import type { MouseEventHandler, ReactNode } from 'react';

export interface GuardedButtonProps extends ButtonProps {
  /** Why the action is not allowed, or null when it is. */
  refusal: string | null;
  onClick: MouseEventHandler<HTMLButtonElement>;
  children: ReactNode;
}

export function GuardedButton({ refusal, onClick, children, ...props }: GuardedButtonProps) {
  const reasonId = useId();
  if (refusal === null) {
    return (
      <Button size="xs" variant="light" {...props} onClick={onClick}>
        {children}
      </Button>
    );
  }
  return (
    <Tooltip label={refusal} withArrow multiline maw={260} events={{ hover: true, focus: true, touch: true }}>
      <Button
        size="xs"
        variant="light"
        {...props}
        data-disabled
        aria-disabled="true"
        aria-describedby={reasonId}
        title={refusal}
        onClick={(event) => event.preventDefault()}
      >
        {children}
        <VisuallyHidden id={reasonId}>{refusal}</VisuallyHidden>
      </Button>
    </Tooltip>
  );
}
