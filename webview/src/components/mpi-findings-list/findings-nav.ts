/** Roving focus in a list: which index a key moves to (undefined: the key is not ours). */
export function nextIndex(current: number, key: string, count: number): number | undefined {
  if (count === 0) return undefined;
  switch (key) {
    case 'ArrowDown':
      return Math.min(count - 1, current + 1);
    case 'ArrowUp':
      return Math.max(0, current - 1);
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    case 'PageDown':
      return Math.min(count - 1, current + 10);
    case 'PageUp':
      return Math.max(0, current - 10);
    default:
      return undefined;
  }
}

/** Errors first, then warnings, then notes; within a severity, in the order they were found. */
export function sortFindings<T extends { readonly severity: string; readonly id: number }>(
  list: readonly T[],
): T[] {
  const rank = (s: string): number => (s === 'error' ? 0 : s === 'warning' ? 1 : 2);
  return [...list].sort((a, b) => rank(a.severity) - rank(b.severity) || a.id - b.id);
}

/** "halo.c:52" from an absolute path and line; "" when unknown. */
export function shortLocation(file: string, line: number): string {
  if (file === '') return '';
  const name = file.split('/').pop() ?? file;
  return line > 0 ? `${name}:${line}` : name;
}
