import { closestMatch } from '@agentv/core/provider-utils';

/** `did you mean "mean"? ` when `value` is a likely typo of one of `choices`, else ''. */
export function closeChoice(value: string, choices: readonly string[]): string {
  const match = closestMatch(value, choices);
  return match === undefined ? '' : `did you mean "${match}"? `;
}
