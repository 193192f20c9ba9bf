/** The header of a corpus program (test/programs/README.md), parsed. */
export interface CorpusHeader {
  readonly ranks: number;
  /** Expected findings, each as kind and the set of lines; empty for `expect: none`. */
  readonly expect: readonly ExpectedFinding[];
  readonly args: readonly string[];
  /** MPI libraries the program applies to. */
  readonly mpi: readonly string[];
  /** mpiscope's expected exit status, when the header says it. */
  readonly exit?: number;
}

export interface ExpectedFinding {
  readonly kind: string;
  readonly lines: readonly number[];
}

/** Parse the `/* mpiscope-test … *\/` comment at the top of a corpus program; throws on a malformed header. */
export function parseCorpusHeader(source: string, name = 'program'): CorpusHeader {
  const m = /\/\*\s*mpiscope-test\b([\s\S]*?)\*\//.exec(source);
  if (m === null) throw new Error(`${name}: no /* mpiscope-test ... */ header`);
  let ranks: number | undefined;
  let exit: number | undefined;
  let args: string[] = [];
  let mpi = ['openmpi', 'mpich'];
  const expect: ExpectedFinding[] = [];
  let none = false;
  for (const raw of (m[1] ?? '').split('\n')) {
    const line = raw.replace(/^\s*\*?\s?/, '').trim();
    if (line === '') continue;
    const [key, ...restParts] = line.split(':');
    const value = restParts.join(':').trim();
    switch (key?.trim()) {
      case 'ranks':
        ranks = Number(value);
        break;
      case 'exit':
        exit = Number(value);
        break;
      case 'args':
        args = value.split(/\s+/).filter((a) => a !== '');
        break;
      case 'mpi':
        mpi = value.split(/\s+/).filter((a) => a !== '');
        break;
      case 'expect': {
        if (value === 'none') {
          none = true;
          break;
        }
        const e = /^([a-z-]+)\s+lines\s+([\d,\s]+)$/.exec(value);
        if (e === null)
          throw new Error(`${name}: cannot read "expect: ${value}" (want "expect: KIND lines L1,L2")`);
        const lines = [...new Set((e[2] ?? '').split(',').map((s) => Number(s.trim())))].sort(
          (a, b) => a - b,
        );
        expect.push({ kind: e[1] as string, lines });
        break;
      }
      default:
        // Free text after the fields (a description) is allowed.
        break;
    }
  }
  if (ranks === undefined || !Number.isInteger(ranks) || ranks < 1)
    throw new Error(`${name}: header needs "ranks: N"`);
  if (none && expect.length > 0) throw new Error(`${name}: "expect: none" together with other expectations`);
  if (!none && expect.length === 0) throw new Error(`${name}: header has no "expect:" line`);
  return { ranks, expect, args, mpi, ...(exit !== undefined ? { exit } : {}) };
}

/** A finding reduced to what the corpus compares: "kind lines a,b,c". */
export function findingKey(kind: string, lines: readonly number[]): string {
  return `${kind} lines ${[...new Set(lines)].sort((a, b) => a - b).join(',')}`;
}
