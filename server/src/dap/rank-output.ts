/**
 * Splits a rank's output into whole lines prefixed "[rank N] ", keeping a partial last line until the
 * rest arrives, so chunks cut mid-line by pipes never produce a prefix in the middle of a line.
 */
export class RankOutput {
  private readonly partial = new Map<string, string>();

  constructor(private readonly emit: (text: string, stream: 'stdout' | 'stderr') => void) {}

  write(text: string, stream: 'stdout' | 'stderr', rank: number | undefined): void {
    const key = `${stream}:${rank ?? ''}`;
    const joined = (this.partial.get(key) ?? '') + text;
    const cut = joined.lastIndexOf('\n');
    if (cut < 0) {
      this.partial.set(key, joined);
      return;
    }
    this.partial.set(key, joined.slice(cut + 1));
    const prefix = rank === undefined ? '' : `[rank ${rank}] `;
    const lines = joined.slice(0, cut).split('\n');
    this.emit(lines.map((line) => `${prefix}${line}\n`).join(''), stream);
  }

  /** Emits every partial line (at the end of the job). */
  flush(): void {
    for (const [key, rest] of this.partial) {
      if (rest === '') continue;
      const [stream, rank] = key.split(':') as ['stdout' | 'stderr', string];
      this.emit(`${rank === '' ? '' : `[rank ${rank}] `}${rest}\n`, stream);
    }
    this.partial.clear();
  }
}
