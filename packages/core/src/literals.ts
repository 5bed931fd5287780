/** Whether a stored string is one of a closed list's values (the database keeps some as text). */
export const isOneOf = <T extends string>(
  values: readonly T[],
  value: string | null | undefined,
): value is T => values.includes(value as T);
