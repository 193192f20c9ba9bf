import type { Hover, MarkupContent } from 'vscode-languageserver';

interface Seen {
  /** The last thing the rank was doing on this line, e.g. "MPI_Recv from rank 0, tag 7". */
  last: string;
  times: number;
  /** Finding kinds this rank's call on this line took part in. */
  findings: Set<string>;
}

/**
 * What the last run saw on each source line, per rank: the calls it made there and the findings it
 * took part in. Filled while the job runs; the hover reads it.
 */
export class HoverIndex {
  private readonly lines = new Map<string, Map<number, Seen>>();

  private entry(file: string, line: number, rank: number): Seen {
    const key = `${file}:${line}`;
    let ranks = this.lines.get(key);
    if (!ranks) this.lines.set(key, (ranks = new Map<number, Seen>()));
    let seen = ranks.get(rank);
    if (!seen) ranks.set(rank, (seen = { last: '', times: 0, findings: new Set() }));
    return seen;
  }

  /** A rank entered an MPI call on this line. */
  call(file: string, line: number, rank: number, what: string): void {
    if (!file || line <= 0) return;
    const seen = this.entry(file, line, rank);
    seen.last = what;
    seen.times++;
  }

  /** A finding names this rank's call on this line. */
  finding(file: string, line: number, rank: number, kind: string, what: string): void {
    if (!file || line <= 0) return;
    const seen = this.entry(file, line, rank);
    if (!seen.last) seen.last = what;
    seen.findings.add(kind);
  }

  clear(): void {
    this.lines.clear();
  }

  /** The hover for a 1-based line of a file, or null when the last run saw nothing there. */
  hover(file: string, line: number): Hover | null {
    const ranks = this.lines.get(`${file}:${line}`);
    if (!ranks || ranks.size === 0) return null;
    const rows = [...ranks.entries()]
      .sort(([a], [b]) => a - b)
      .map(([rank, seen]) => {
        const times = seen.times > 1 ? ` (${seen.times} calls)` : '';
        const findings = seen.findings.size > 0 ? ` — **${[...seen.findings].join(', ')}**` : '';
        return `| ${rank} | ${escapeCell(seen.last || 'MPI call')}${times}${findings} |`;
      });
    const contents: MarkupContent = {
      kind: 'markdown',
      value: [
        '**mpiscope** — last run on this line',
        '',
        '| rank | what it did |',
        '| ---: | --- |',
        ...rows,
      ].join('\n'),
    };
    return { contents };
  }
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
